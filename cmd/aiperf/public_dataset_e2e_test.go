package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// shareGPTFixture is the checked-in ShareGPT slice the sharegpt loader's
// tests use (plugins/builtin/dataset/public/testdata/README.md).
const shareGPTFixture = "../../plugins/builtin/dataset/public/testdata/sharegpt/ShareGPT_V3_unfiltered_cleaned_split.json"

// fakeShareGPTHub serves the fixture at ShareGPT's resolve URL, as the hub
// does, and records the paths asked for.
func fakeShareGPTHub(t *testing.T) (url string, paths func() []string) {
	t.Helper()
	body, err := os.ReadFile(shareGPTFixture)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.EscapedPath())
		mu.Unlock()
		if r.URL.EscapedPath() != "/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered/resolve/main/ShareGPT_V3_unfiltered_cleaned_split.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// hubEnv points the Hugging Face settings of this test at the fake hub and
// a fresh cache.
func hubEnv(t *testing.T, endpoint, cache string, offline bool) {
	t.Setenv("HF_ENDPOINT", endpoint)
	t.Setenv("HF_HUB_CACHE", cache)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_HOME", t.TempDir())
	if offline {
		t.Setenv("HF_HUB_OFFLINE", "1")
	} else {
		t.Setenv("HF_HUB_OFFLINE", "")
	}
}

// sent is each inputs.json session's prompts and max_completion_tokens.
func sent(t *testing.T, r *profileRun) [][]any {
	t.Helper()
	data, _ := r.inputsJS["data"].([]any)
	var out [][]any
	for _, s := range data {
		var turns []any
		for _, p := range s.(map[string]any)["payloads"].([]any) {
			body := p.(map[string]any)
			msgs := body["messages"].([]any)
			content := msgs[len(msgs)-1].(map[string]any)["content"]
			text, _ := content.(string)
			if len(text) > 24 {
				text = text[:24]
			}
			turns = append(turns, text, body["max_completion_tokens"])
		}
		out = append(out, turns)
	}
	return out
}

// `aiperf profile --public-dataset sharegpt` downloads the dataset once
// from the hub (HF_ENDPOINT) into the Hugging Face cache, sends its
// filtered prompts with max_tokens = the completion's length in dataset
// order, runs offline from the warm cache, and with a cold cache offline
// says what to fetch and sends nothing.
func TestProfilePublicDatasetShareGPT(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	hub, paths := fakeShareGPTHub(t)
	cache := t.TempDir()
	hubEnv(t, hub, cache, false)
	args := []string{"-m", "m", "-u", url, "--public-dataset", "sharegpt", "--request-count", "12", "--concurrency", "1", "--extra-inputs", "ignore_eos:true"}

	r := profile(t, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := [][]any{
		{"Summarize the plot of Ha", 38.0},
		{"What is the capital of A", 14.0, "Why was it chosen over S", 29.0},
		{"Write a haiku about autu", 17.0},
		{"Give me a synonym for ha", 7.0},
		{"How many legs does a spi", 6.0},
		{"Name a famous painting b", 14.0},
		{"Please answer briefly.", 12.0},
		{"What does HTTP stand for", 8.0},
		{"What is the boiling poin", 11.0},
		{"Describe the rules of ch", 26.0},
		{"Recommend a good book ab", 22.0},
	}
	got := sent(t, r)
	if len(got) != len(want) {
		t.Fatalf("inputs.json has %d sessions, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Errorf("session %d sent %v, want %v", i, got[i], want[i])
			continue
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("session %d sent %v, want %v", i, got[i], want[i])
				break
			}
		}
	}
	// 12 requests in dataset order: the 11 sessions (12 turns) once each.
	if len(r.records) != 12 {
		t.Errorf("%d records, want 12", len(r.records))
	}
	if osl := r.mustMetric(t, "output_sequence_length"); *osl.Max != 38 {
		t.Errorf("OSL max %v, want the largest max_tokens, 38", *osl.Max)
	}
	var ds map[string]any
	if ic, ok := r.summary["input_config"]; ok {
		var cfg struct {
			Datasets []map[string]any `json:"datasets"`
		}
		if err := json.Unmarshal(ic, &cfg); err == nil && len(cfg.Datasets) == 1 {
			ds = cfg.Datasets[0]
		}
	}
	if ds["type"] != "public" || ds["dataset"] != "sharegpt" || ds["entries"] != 12.0 {
		t.Errorf("input_config datasets[0] = %v, want type public, dataset sharegpt, entries 12", ds)
	}
	if p := paths(); len(p) != 1 {
		t.Errorf("hub requests %v, want one download", p)
	}
	if _, err := os.Stat(filepath.Join(cache, "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered", "refs", "main")); err != nil {
		t.Errorf("the Hugging Face cache has no ref: %v", err)
	}

	// Warm cache, offline: the same run, no request.
	hubEnv(t, hub, cache, true)
	if r := profile(t, args...); r.code != 0 || len(sent(t, r)) != len(want) {
		t.Fatalf("offline warm: exit %d\n%s", r.code, r.stderr)
	}
	if p := paths(); len(p) != 1 {
		t.Errorf("the warm run asked the hub: %v", p)
	}

	// Cold cache, offline: an error naming the command; nothing sent.
	quiet := startMock(t, mockserver.Config{Fast: true})
	hubEnv(t, hub, t.TempDir(), true)
	cold := profile(t, "-m", "m", "-u", quiet, "--public-dataset", "sharegpt", "--request-count", "3")
	if cold.code != 1 || !strings.Contains(cold.stderr, "huggingface-cli download --repo-type dataset anon8231489123/ShareGPT_Vicuna_unfiltered") ||
		!strings.Contains(cold.stderr, "HF_HUB_OFFLINE") {
		t.Errorf("offline cold: exit %d\n%s", cold.code, cold.stderr)
	}
	if body := httpGet(t, quiet+"/metrics"); grepLines(body, "vllm:prompt_tokens_total{") != "" {
		t.Error("requests were sent although the dataset could not be loaded")
	}
}

func TestProfilePublicDatasetFlagErrors(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	file := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(file, []byte(`{"text": "hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--public-dataset", "sharegtp"}, `--public-dataset "sharegtp" is not valid; choose one of: sharegpt, aimo, mmstar`},
		{[]string{"--public-dataset", "sharegpt", "--input-file", file}, "--public-dataset and --input-file cannot be used together"},
		{[]string{"--hf-subset", "x"}, "--hf-subset x requires --public-dataset"},
	}
	for _, c := range cases {
		r := profile(t, append([]string{"-m", "m", "-u", url, "--request-count", "2"}, c.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A hub dataset end to end: --public-dataset mmstar lists the split on the
// hub's Parquet branch, downloads it into the cache, and sends each
// question with its image as a JPEG data URI.
func TestProfilePublicDatasetFromHubParquet(t *testing.T) {
	parquet, err := os.ReadFile("../../plugins/builtin/dataset/public/testdata/hub/Lin-Chen--MMStar/default/val/0000.parquet")
	if err != nil {
		t.Fatal(err)
	}
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/api/datasets/Lin-Chen/MMStar/tree/refs%2Fconvert%2Fparquet/default%2Fval":
			w.Write([]byte(`[{"type": "file", "path": "default/val/0000.parquet", "size": ` + strconv.Itoa(len(parquet)) + `}]`))
		case "/datasets/Lin-Chen/MMStar/resolve/refs%2Fconvert%2Fparquet/default/val/0000.parquet":
			w.Header().Set("X-Repo-Commit", "89abcdef0123456789abcdef0123456789abcdef")
			w.Write(parquet)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hub.Close)
	hubEnv(t, hub.URL, t.TempDir(), false)
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--public-dataset", "mmstar", "--request-count", "3", "--concurrency", "1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	data, _ := r.inputsJS["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("inputs.json has %d sessions, want MMStar's 3 rows", len(data))
	}
	images := 0
	for _, s := range data {
		body := s.(map[string]any)["payloads"].([]any)[0].(map[string]any)
		msg := body["messages"].([]any)[0].(map[string]any)
		parts, _ := msg["content"].([]any)
		for _, p := range parts {
			if iu, ok := p.(map[string]any)["image_url"].(map[string]any); ok && strings.HasPrefix(iu["url"].(string), "data:image/jpeg;base64,") {
				images++
			}
		}
	}
	if images != 2 {
		t.Errorf("%d JPEG images sent, want 2 (the third row's image does not decode)", images)
	}
}

// input_config.datasets[0] keeps AIPerf's PublicDataset field order.
func TestPublicDatasetInputConfigOrder(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	hub, _ := fakeShareGPTHub(t)
	hubEnv(t, hub, t.TempDir(), false)
	r := profile(t, "-m", "m", "-u", url, "--public-dataset", "sharegpt", "--request-count", "2", "--osl", "30",
		"--dataset-sampling-strategy", "shuffle")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, r.summary["input_config"]); err != nil {
		t.Fatal(err)
	}
	want := `"datasets":[{"name":"main","type":"public","dataset":"sharegpt","entries":2,"random_seed":42,"sampling":"shuffle","osl":{"mean":30.0}}]`
	if !strings.Contains(compact.String(), want) {
		t.Errorf("input_config %s\nlacks %s", compact.String(), want)
	}
}
