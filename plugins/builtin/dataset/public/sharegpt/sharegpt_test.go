package sharegpt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

const fixture = "../testdata/sharegpt/" + File

// wantTurn is a turn's prompt (its start) and max_tokens.
type wantTurn struct {
	prompt    string
	maxTokens int
}

// The fixture's 20 entries under o200k_base (the builtin tokenizer), as
// AIPerf 0.13's ShareGPTLoader.convert_to_conversations converts them with
// the same token counts (README.md): 11 conversations. Rejected: a 1-token
// prompt, a 1-token completion, a 1920-token prompt, 965+1157 tokens in
// all, an entry whose second pair fails, a single message, no messages, a
// human message answered by "bing", and a prompt that is not a string.
var wantShareGPT = [][]wantTurn{
	{{"Summarize the plot of Hamlet", 38}},
	{{"What is the capital of Australia?", 14}, {"Why was it chosen over Sydney", 29}},
	{{"Write a haiku about autumn", 17}}, // the system message is not a pair
	{{"Give me a synonym for happy", 7}}, // no roles: the first two values
	{{"How many legs does a spider", 6}}, // user/chatgpt are not ShareGPT roles: the first two values
	{{"Name a famous painting by Vermeer", 14}},
	{{"Please answer briefly.", 12}}, // human, human, gpt: the second human pairs
	{{"What does HTTP stand for", 8}},
	{{"What is the boiling point of water", 11}}, // the empty first prompt skips its pair only
	{{"Describe the rules of chess castling", 26}},
	{{"Recommend a good book about the history", 22}},
}

func TestReadMatchesAIPerf(t *testing.T) {
	convs, err := Read(context.Background(), fixture, tiktoken.New(), 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != len(wantShareGPT) {
		t.Fatalf("%d conversations, want %d", len(convs), len(wantShareGPT))
	}
	seen := map[string]bool{}
	for i, want := range wantShareGPT {
		c := convs[i]
		if seen[c.SessionID] || len(c.SessionID) != 36 {
			t.Errorf("conversation %d: session id %q is not a fresh UUID", i, c.SessionID)
		}
		seen[c.SessionID] = true
		if len(c.Turns) != len(want) {
			t.Fatalf("conversation %d: %d turns, want %d", i, len(c.Turns), len(want))
		}
		for j, w := range want {
			turn := c.Turns[j]
			if !strings.HasPrefix(turn.Texts[0], w.prompt) || turn.MaxTokens == nil || *turn.MaxTokens != w.maxTokens {
				t.Errorf("conversation %d turn %d = %.40q max_tokens %v, want %q... %d", i, j, turn.Texts[0], turn.MaxTokens, w.prompt, w.maxTokens)
			}
		}
	}
	// The same seed gives the same session ids; another seed others.
	again, _ := Read(context.Background(), fixture, tiktoken.New(), 42)
	other, _ := Read(context.Background(), fixture, tiktoken.New(), 43)
	if again[0].SessionID != convs[0].SessionID || other[0].SessionID == convs[0].SessionID {
		t.Error("session ids do not follow the seed")
	}
}

func TestMalformedFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		`{"conversations": []}`:                  "not a JSON array",
		`[{"conversations": []}, {"conversat`:    "element 1",
		`[{"id": 1}] trailing`:                   "data after the JSON array",
		`[{"id": 1}, {"conversations": "nope"}]`: "",
	}
	for body, want := range cases {
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		convs, err := Read(context.Background(), path, tiktoken.New(), 1)
		switch {
		case want == "" && (err != nil || len(convs) != 0):
			t.Errorf("%s: %v, %d conversations; want none and no error", body, err, len(convs))
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path)):
			t.Errorf("%s: err = %v, want one naming the file and %q", body, err, want)
		}
	}
}

// hubFor lays the fixture out as the ShareGPT repo of a fake hub.
func hubFor(t *testing.T) *hubtest.Hub {
	root := t.TempDir()
	dst := filepath.Join(root, strings.ReplaceAll(Repo, "/", "--"))
	hubtest.CopyTree(t, filepath.Dir(fixture), dst)
	return hubtest.New(t, root)
}

func TestPathPrefersAIPerfCacheThenHubCache(t *testing.T) {
	hub := hubFor(t)
	cache := t.TempDir()
	aiperfDir := filepath.Join(t.TempDir(), ".cache", "aiperf", "datasets")
	l := &Loader{Hub: &hfhub.Options{Endpoint: hub.URL(), CacheDir: cache, Token: "hf_tok"}, AIPerfCache: aiperfDir}

	path, err := l.Path(context.Background())
	want := filepath.Join(cache, "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered", "snapshots", hubtest.Commit, File)
	if err != nil || path != want {
		t.Fatalf("Path = %q, %v; want %q", path, err, want)
	}
	if got := hub.Paths(); len(got) != 1 || got[0] != "/datasets/"+Repo+"/resolve/main/"+File {
		t.Errorf("requests %v, want one GET of the resolve URL", got)
	}
	// Warm cache, offline: no request.
	l.Hub.Offline = true
	if again, err := l.Path(context.Background()); err != nil || again != want || len(hub.Paths()) != 1 {
		t.Errorf("offline warm: %q, %v, %d requests", again, err, len(hub.Paths()))
	}
	// AIPerf's own copy wins over both.
	if err := os.MkdirAll(aiperfDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(fixture)
	if err := os.WriteFile(filepath.Join(aiperfDir, File), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Path(context.Background()); err != nil || got != filepath.Join(aiperfDir, File) {
		t.Errorf("with AIPerf's copy: %q, %v", got, err)
	}
}

func TestPathErrorsNameWhatWasTried(t *testing.T) {
	cache := t.TempDir()
	aiperf := filepath.Join(t.TempDir(), "aiperf-cache")
	cold := &Loader{Hub: &hfhub.Options{CacheDir: cache, Offline: true}, AIPerfCache: aiperf}
	_, err := cold.Path(context.Background())
	for _, want := range []string{
		"HF_HUB_OFFLINE is set",
		filepath.Join(cache, "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered", "snapshots"),
		"huggingface-cli download --repo-type dataset anon8231489123/ShareGPT_Vicuna_unfiltered ShareGPT_V3_unfiltered_cleaned_split.json",
		filepath.Join(aiperf, File),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("offline cold: %v lacks %q", err, want)
		}
	}
	if !errors.Is(err, hfhub.ErrNotCached) {
		t.Errorf("offline cold: %v is not ErrNotCached", err)
	}

	empty := hubtest.New(t, t.TempDir()) // a hub without the file: 404
	missing := &Loader{Hub: &hfhub.Options{Endpoint: empty.URL(), CacheDir: cache}, AIPerfCache: aiperf}
	_, err = missing.Path(context.Background())
	for _, want := range []string{empty.URL() + "/datasets/" + Repo + "/resolve/main/" + File, filepath.Join(cache, "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("404: %v lacks %q", err, want)
		}
	}
}

func TestTruncatedDownloadIsNotCached(t *testing.T) {
	root := t.TempDir()
	dst := filepath.Join(root, strings.ReplaceAll(Repo, "/", "--"))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, File), []byte(`[{"id": "a", "conversations": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	hub := hubtest.New(t, root)
	cache := t.TempDir()
	l := &Loader{Hub: &hfhub.Options{Endpoint: hub.URL(), CacheDir: cache}, AIPerfCache: t.TempDir()}
	_, err := l.LoadPublic(context.Background(), sdk.DatasetOptions{Tokenizer: tiktoken.New()})
	if !errors.Is(err, hfhub.ErrCorrupt) {
		t.Fatalf("err = %v, want a failed verification", err)
	}
	if _, ok := hfhub.CachedFile(cache, hfhub.DatasetRepo(Repo), Revision, File); ok {
		t.Error("the truncated file was cached")
	}
}

func TestNeedsATokenizer(t *testing.T) {
	if _, err := New().LoadPublic(context.Background(), sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "tokenizer") {
		t.Errorf("err = %v", err)
	}
}
