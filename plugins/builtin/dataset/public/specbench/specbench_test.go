package specbench

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

const fixture = "../testdata/spec_bench/spec_bench.jsonl"

// Values follow AIPerf 0.13's SpecBenchLoader over the same records.
func TestFirstTurnsAndMultiTurn(t *testing.T) {
	convs, err := Read(context.Background(), fixture, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Compose an engaging travel blog post about a recent trip to Hawaii.",
		"Draft a professional email seeking your supervisor's feedback on the report.",
		"Summarize the following text in one sentence: the quick brown fox jumps over the lazy dog.",
	}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d (no turns and a blank first turn skipped)", len(convs), len(want))
	}
	for i, w := range want {
		if len(convs[i].Turns) != 1 || convs[i].Turns[0].Texts[0] != w {
			t.Errorf("conversation %d = %+v, want %q", i, convs[i].Turns, w)
		}
	}
	multi, err := Read(context.Background(), fixture, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(multi) != 4 || len(multi[0].Turns) != 2 || multi[2].Turns[0].Texts[0] != "Second turn only." {
		t.Errorf("multi_turn = %+v", multi)
	}
}

func TestDownloadOnceIntoAIPerfCache(t *testing.T) {
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int64
	var auth atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		if r.URL.Path != "/question.jsonl" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), ".cache", "aiperf", "datasets")
	l := &Loader{Hub: &hfhub.Options{Token: "hf_never_to_github"}, CacheDir: dir, URL: srv.URL + "/question.jsonl"}
	convs, err := l.LoadPublic(context.Background(), sdk.DatasetOptions{RandomSeed: 1})
	if err != nil || len(convs) != 3 {
		t.Fatalf("LoadPublic = %d, %v", len(convs), err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, File)); string(got) != string(body) {
		t.Error("the cached file differs from the download")
	}
	if a := auth.Load(); a != "" {
		t.Errorf("Authorization %q sent to a non-hub host", a)
	}
	l.Hub.Offline = true
	if _, err := l.LoadPublic(context.Background(), sdk.DatasetOptions{}); err != nil || hits.Load() != 1 {
		t.Errorf("second load: %v, %d requests; want the cache, 1 request in all", err, hits.Load())
	}

	// Cold and offline: the error names the URL, the path and a command.
	cold := &Loader{Hub: &hfhub.Options{Offline: true}, CacheDir: t.TempDir()}
	_, err = cold.LoadPublic(context.Background(), sdk.DatasetOptions{})
	if !errors.Is(err, hfhub.ErrNotCached) || !strings.Contains(err.Error(), URL) || !strings.Contains(err.Error(), filepath.Join(cold.CacheDir, File)) ||
		!strings.Contains(err.Error(), "curl -L --create-dirs -o") {
		t.Errorf("offline cold: %v", err)
	}
	// A failed download names both too, and caches nothing.
	bad := &Loader{Hub: &hfhub.Options{}, CacheDir: t.TempDir(), URL: srv.URL + "/missing.jsonl"}
	_, err = bad.LoadPublic(context.Background(), sdk.DatasetOptions{})
	if err == nil || !strings.Contains(err.Error(), srv.URL+"/missing.jsonl") || !strings.Contains(err.Error(), filepath.Join(bad.CacheDir, File)) || !strings.Contains(err.Error(), "404") {
		t.Errorf("404: %v", err)
	}
	if _, err := os.Stat(filepath.Join(bad.CacheDir, File)); !os.IsNotExist(err) {
		t.Error("a failed download left a file")
	}
}
