package randompool

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/singleturn"
)

const (
	poolFile = "testdata/pool.jsonl"
	poolDir  = "testdata/pools"
)

func load(t *testing.T, l *Loader, path string, n int, seed int64) []sdk.Conversation {
	t.Helper()
	convs, err := l.Load(context.Background(), path, sdk.DatasetOptions{NumEntries: n, RandomSeed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func write(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func intp(n int) *int { return &n }

func TestNumberOfConversations(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{7, 7}, {1, 1}, {0, DefaultConversations}} {
		convs := load(t, New(), poolFile, tc.n, 1)
		if len(convs) != tc.want {
			t.Fatalf("NumEntries %d: %d conversations, want %d", tc.n, len(convs), tc.want)
		}
		ids := map[string]bool{}
		for _, c := range convs {
			if len(c.Turns) != 1 || c.SessionID == "" || ids[c.SessionID] {
				t.Fatalf("conversation %+v: want one turn and a fresh session id", c)
			}
			ids[c.SessionID] = true
		}
	}
}

func TestDeterministicForSeed(t *testing.T) {
	for _, path := range []string{poolFile, poolDir} {
		a := load(t, New(), path, 40, 42)
		b := load(t, New(), path, 40, 42)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed gave different datasets", path)
		}
		c := load(t, New(), path, 40, 43)
		if reflect.DeepEqual(a, c) {
			t.Errorf("%s: seeds 42 and 43 gave the same dataset", path)
		}
	}
}

// The file's plain texts are named after its stem ("pool"), as in AIPerf.
func TestSamplesFileWithReplacement(t *testing.T) {
	convs := load(t, New(), poolFile, 60, 7)
	seen := map[string]int{}
	for _, c := range convs {
		turn := c.Turns[0]
		if turn.Texts != nil || len(turn.TextGroups) != 1 || turn.TextGroups[0].Name != "pool" {
			t.Fatalf("turn %+v: want one text group named after the file", turn)
		}
		key := strings.Join(turn.TextGroups[0].Contents, ",")
		seen[key]++
		switch key {
		case "alpha":
			if turn.MaxTokens == nil || *turn.MaxTokens != 8 || turn.Extra != nil || turn.Images != nil {
				t.Errorf("alpha: %+v", turn)
			}
		case "beta":
			if turn.MaxTokens != nil || turn.Extra["top_k"] != 5.0 {
				t.Errorf("beta: %+v", turn)
			}
		case "gamma,delta":
			if !reflect.DeepEqual(turn.Images, []string{"https://example.com/cat.png"}) {
				t.Errorf("gamma: images %v", turn.Images)
			}
		default:
			t.Errorf("unexpected turn %+v", turn)
		}
	}
	if len(seen) != 3 {
		t.Errorf("drew %v; 60 draws from 3 records should reach all of them", seen)
	}
	// Sampled turns share no backing arrays: changing one leaves the others.
	convs[0].Turns[0].TextGroups[0].Contents[0] = "changed"
	for _, c := range convs[1:] {
		if c.Turns[0].TextGroups[0].Contents[0] == "changed" {
			t.Fatal("sampled turns share storage")
		}
	}
}

func TestDirectoryMergesOneDrawOfEachPool(t *testing.T) {
	convs := load(t, New(), poolDir, 30, 3)
	queries := map[string]bool{"Who are you?": true, "What is the meaning of life?": true}
	passages := map[string]bool{"I am a cat.": true, "I am a dog.": true, "I am a bird.": true}
	seenQ, seenP := map[string]bool{}, map[string]bool{}
	for _, c := range convs {
		turn := c.Turns[0]
		// Files in name order: passages.jsonl, then query.jsonl (plain
		// texts named after the file).
		g := turn.TextGroups
		if len(c.Turns) != 1 || turn.Texts != nil || len(g) != 2 || g[0].Name != "passages" || g[1].Name != "query" ||
			len(g[0].Contents) != 1 || len(g[1].Contents) != 1 || !passages[g[0].Contents[0]] || !queries[g[1].Contents[0]] {
			t.Fatalf("turn %+v: want one passage and one query", turn)
		}
		seenP[g[0].Contents[0]] = true
		seenQ[g[1].Contents[0]] = true
	}
	if len(seenQ) != 2 || len(seenP) != 3 {
		t.Errorf("drew queries %v, passages %v", seenQ, seenP)
	}
}

func TestDirectorySkipsSubdirectoriesAndNamesTextFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "text.jsonl", `{"text": "plain"}`)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sub"), "x.jsonl", `not json`)
	convs := load(t, New(), dir, 2, 1)
	if got := convs[0].Turns[0]; !reflect.DeepEqual(got.Texts, []string{"plain"}) || got.TextGroups != nil {
		t.Errorf("text.jsonl: %+v (a file named text holds plain texts)", got)
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.jsonl", `{"text": "ok"}`)
	bad := write(t, dir, "b.jsonl", `{"text": "ok"}`, `{"text": "x", "texts": ["y"]}`)
	for _, tc := range []struct {
		path, want string
	}{
		{dir, bad + ":2: text and texts cannot be set together"},
		{write(t, t.TempDir(), "j.jsonl", `{"text": "ok"}`, ``, `{"text": `), "j.jsonl:3: invalid JSON"},
		{write(t, t.TempDir(), "t.jsonl", `{"type": "single_turn", "text": "ok"}`), `t.jsonl:1: type: got "single_turn", want "random_pool"`},
		{write(t, t.TempDir(), "m.jsonl", `{"output_length": 3}`), "m.jsonl:1: no input"},
	} {
		_, err := New().Load(context.Background(), tc.path, sdk.DatasetOptions{NumEntries: 2})
		if err == nil || !strings.HasPrefix(err.Error(), Name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.path, err, tc.want)
		}
	}
}

func TestEmptyPoolIsAnError(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.jsonl", `{"text": "ok"}`)
	empty := write(t, dir, "b.jsonl", ``, `   `)
	for _, path := range []string{empty, dir} {
		_, err := New().Load(context.Background(), path, sdk.DatasetOptions{NumEntries: 2})
		if err == nil || !strings.Contains(err.Error(), empty+": no records") {
			t.Errorf("%s: err = %v", path, err)
		}
	}
	none := t.TempDir()
	if _, err := New().Load(context.Background(), none, sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "holds no files") {
		t.Errorf("empty directory: err = %v", err)
	}
	if _, err := New().Load(context.Background(), filepath.Join(none, "missing"), sdk.DatasetOptions{}); err == nil {
		t.Error("missing file: no error")
	}
}

func TestCanLoad(t *testing.T) {
	l := New()
	if !l.CanLoad(poolDir) {
		t.Error("a directory of valid pools must be detected")
	}
	if l.CanLoad(poolFile) {
		t.Error("an untyped file belongs to single_turn, as in AIPerf")
	}
	if !singleturn.New().CanLoad(poolFile) {
		t.Error("single_turn should claim the untyped file")
	}
	typed := write(t, t.TempDir(), "typed.jsonl", `{"type": "random_pool", "text": "hi"}`)
	if !l.CanLoad(typed) || singleturn.New().CanLoad(typed) {
		t.Error(`a file declaring "type": "random_pool" is random_pool's`)
	}
	if l.CanLoad(write(t, t.TempDir(), "bad.jsonl", `{"type": "random_pool", "text": "a", "texts": ["b"]}`)) {
		t.Error("an invalid typed record must not be claimed")
	}
	mixed := t.TempDir()
	write(t, mixed, "a.jsonl", `{"text": "ok"}`)
	write(t, mixed, "b.jsonl", `{"turns": []}`)
	if l.CanLoad(mixed) {
		t.Error("a directory with an invalid file must not be claimed")
	}
	empty := t.TempDir()
	write(t, empty, "a.jsonl", ``)
	if l.CanLoad(empty) || l.CanLoad(t.TempDir()) {
		t.Error("a directory without records must not be claimed")
	}
	nested := t.TempDir()
	if err := os.Mkdir(filepath.Join(nested, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(nested, "sub"), "a.jsonl", `{"images": ["https://x/y.png"]}`)
	if !l.CanLoad(nested) {
		t.Error("detection searches subdirectories, as AIPerf's _validate_path does")
	}
}

func TestBatching(t *testing.T) {
	l := New()
	l.Config.PromptBatchSize = intp(3)
	convs := load(t, l, poolFile, 20, 9)
	texts := map[string]bool{"alpha": true, "beta": true, "gamma": true, "delta": true}
	for _, c := range convs {
		turn := c.Turns[0]
		if len(turn.Texts) != 3 || turn.TextGroups != nil || turn.MaxTokens != nil || turn.Extra != nil {
			t.Fatalf("turn %+v: want 3 plain texts", turn)
		}
		for _, s := range turn.Texts {
			if !texts[s] {
				t.Fatalf("text %q not in the pool", s)
			}
		}
		// Images stay at batch size 1 and are still sampled.
		if !reflect.DeepEqual(turn.Images, []string{"https://example.com/cat.png"}) {
			t.Fatalf("images %v", turn.Images)
		}
	}
	if !reflect.DeepEqual(convs, load(t, l, poolFile, 20, 9)) {
		t.Error("batched sampling is not deterministic")
	}

	l.Config.ImageBatchSize = intp(0)
	if turn := load(t, l, poolFile, 1, 9)[0].Turns[0]; turn.Images != nil {
		t.Errorf("image batch size 0 must drop images: %v", turn.Images)
	}

	l.Config.PromptBatchSize = intp(0)
	if _, err := l.Load(context.Background(), poolFile, sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "no content") {
		t.Errorf("all batches 0: err = %v", err)
	}

	l = New()
	l.Config.PromptBatchSize = intp(2)
	if _, err := l.Load(context.Background(), poolDir, sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "named pools (found 2: passages.jsonl, query.jsonl)") {
		t.Errorf("directory with batching: err = %v", err)
	}
	named := write(t, t.TempDir(), "n.jsonl", `{"texts": [{"name": "q", "contents": ["a"]}]}`)
	if _, err := l.Load(context.Background(), named, sdk.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "named") {
		t.Errorf("named objects with batching: err = %v", err)
	}

	// A batch size on a modality the pool lacks is not batching.
	l = New()
	l.Config.AudioBatchSize = intp(4)
	if !reflect.DeepEqual(load(t, l, poolDir, 5, 2), load(t, New(), poolDir, 5, 2)) {
		t.Error("an audio batch size on a text-only directory changed the dataset")
	}

	l.Config.VideoBatchSize = intp(-1)
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "--video-batch-size") {
		t.Errorf("negative batch size: err = %v", err)
	}
}

func TestPluginConfig(t *testing.T) {
	l := New()
	if err := sdk.DecodeConfig([]byte(`{"prompt_batch_size": 2, "image_batch_size": 0}`), l.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	if got := l.batchSizes(); got != [numModalities]int{2, 0, 1, 1} {
		t.Errorf("batch sizes = %v", got)
	}
}
