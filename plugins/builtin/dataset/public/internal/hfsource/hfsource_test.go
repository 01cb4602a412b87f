package hfsource

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

const fixtures = "../../testdata/hub"

var aimo = Split{Dataset: "AI-MO/NuminaMath-TIR", Config: "default", Split: "train"}

func TestParquetFilesDownloadsOnceIntoTheHubCache(t *testing.T) {
	hub := hubtest.New(t, fixtures)
	cache := t.TempDir()
	o := hfhub.Options{Endpoint: hub.URL(), CacheDir: cache, Token: "hf_secret"}
	files, err := ParquetFiles(context.Background(), aimo, o)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cache, "datasets--AI-MO--NuminaMath-TIR", "snapshots", hubtest.Commit, "default", "train", "0000.parquet")
	if len(files) != 1 || files[0] != want {
		t.Fatalf("files = %v, want [%s]", files, want)
	}
	ref, _ := os.ReadFile(filepath.Join(cache, "datasets--AI-MO--NuminaMath-TIR", "refs", "refs", "convert", "parquet"))
	if string(ref) != hubtest.Commit {
		t.Errorf("refs/refs/convert/parquet = %q, want the commit", ref)
	}
	wantPaths := []string{
		"/api/datasets/AI-MO/NuminaMath-TIR/tree/refs%2Fconvert%2Fparquet/default%2Ftrain",
		"/datasets/AI-MO/NuminaMath-TIR/resolve/refs%2Fconvert%2Fparquet/default/train/0000.parquet",
	}
	reqs := hub.Requests()
	if got := hub.Paths(); strings.Join(got, " ") != strings.Join(wantPaths, " ") {
		t.Errorf("requests = %v, want %v", got, wantPaths)
	}
	for _, r := range reqs {
		if r.Authorization != "Bearer hf_secret" {
			t.Errorf("%s: Authorization %q, want the token (same origin)", r.Path, r.Authorization)
		}
	}
	// Warm cache: no request at all, online or offline.
	for _, offline := range []bool{false, true} {
		o.Offline = offline
		again, err := ParquetFiles(context.Background(), aimo, o)
		if err != nil || len(again) != 1 || again[0] != want {
			t.Errorf("offline=%t: %v, %v", offline, again, err)
		}
	}
	if n := len(hub.Requests()); n != len(wantPaths) {
		t.Errorf("cache hits made %d more requests", n-len(wantPaths))
	}
}

func TestOfflineColdCacheSaysWhatToFetch(t *testing.T) {
	cache := t.TempDir()
	_, err := ParquetFiles(context.Background(), aimo, hfhub.Options{CacheDir: cache, Offline: true, Endpoint: "http://127.0.0.1:1"})
	if err == nil {
		t.Fatal("no error offline with a cold cache")
	}
	for _, want := range []string{
		"HF_HUB_OFFLINE is set",
		filepath.Join(cache, "datasets--AI-MO--NuminaMath-TIR", "snapshots"),
		"huggingface-cli download --repo-type dataset AI-MO/NuminaMath-TIR --revision refs/convert/parquet --include 'default/train/*'",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestPartialSplitFolderAndMissingSplit(t *testing.T) {
	root := t.TempDir()
	hubtest.CopyTree(t, filepath.Join(fixtures, "AI-MO--NuminaMath-TIR", "default", "train"), filepath.Join(root, "AI-MO--NuminaMath-TIR", "default", "partial-train"))
	hub := hubtest.New(t, root)
	cache := t.TempDir()
	o := hfhub.Options{Endpoint: hub.URL(), CacheDir: cache}
	files, err := ParquetFiles(context.Background(), aimo, o)
	if err != nil || len(files) != 1 || !strings.HasSuffix(files[0], filepath.Join("default", "partial-train", "0000.parquet")) {
		t.Fatalf("partial-train: %v, %v", files, err)
	}
	o.Offline = true
	if again, err := ParquetFiles(context.Background(), aimo, o); err != nil || again[0] != files[0] {
		t.Errorf("offline partial-train: %v, %v", again, err)
	}
	_, err = ParquetFiles(context.Background(), Split{Dataset: "AI-MO/NuminaMath-TIR", Config: "default", Split: "test"}, hfhub.Options{Endpoint: hub.URL(), CacheDir: cache})
	if !errors.Is(err, hfhub.ErrNotFound) || !strings.Contains(err.Error(), `no Parquet conversion of config "default" split "test"`) ||
		!strings.Contains(err.Error(), hub.URL()+"/api/datasets/AI-MO/NuminaMath-TIR/tree/refs%2Fconvert%2Fparquet/default%2Ftest") {
		t.Errorf("missing split: %v", err)
	}
}

func TestCorruptDownloadIsNotCached(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "org--bad", "default", "train")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0000.parquet"), []byte("<html>rate limited</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	hub := hubtest.New(t, root)
	cache := t.TempDir()
	_, err := ParquetFiles(context.Background(), Split{Dataset: "org/bad", Config: "default", Split: "train"}, hfhub.Options{Endpoint: hub.URL(), CacheDir: cache})
	if !errors.Is(err, hfhub.ErrCorrupt) || !strings.Contains(err.Error(), "no PAR1 magic") {
		t.Fatalf("err = %v, want a failed verification", err)
	}
	matches, _ := filepath.Glob(filepath.Join(cache, "datasets--org--bad", "snapshots", "*", "default", "train", "*"))
	if len(matches) != 0 {
		t.Errorf("a corrupt file was cached: %v", matches)
	}
}

// A streamed dataset with a cap downloads only the files it reads: here
// the first of two holds enough rows, so the second is never fetched; a
// later run wanting more reads the cached file, then fetches the next.
func TestLazyRowsStopAtTheCap(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(fixtures, "HuggingFaceH4--mt_bench_prompts", "default", "train", "0000.parquet")
	dst := filepath.Join(root, "HuggingFaceH4--mt_bench_prompts", "default", "train")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0000.parquet", "0001.parquet"} {
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hub := hubtest.New(t, root)
	cache := t.TempDir()
	s := base.Settings{HFDatasetName: "HuggingFaceH4/mt_bench_prompts", Streaming: true, MaxConversations: 2}
	o := hfhub.Options{Endpoint: hub.URL(), CacheDir: cache}
	convert := func(row stream.Row) ([]sdk.Turn, error) {
		list, _ := row["prompt"].([]any)
		if len(list) == 0 || list[0] == "" {
			return nil, nil
		}
		return []sdk.Turn{{Texts: []string{list[0].(string)}}}, nil
	}
	convs, skipped, err := Load(context.Background(), s, &o, 1, convert)
	if err != nil || len(convs) != 2 || skipped != 1 {
		t.Fatalf("Load = %d convs, %d skipped, %v; want 2 and 1", len(convs), skipped, err)
	}
	for _, p := range hub.Paths() {
		if strings.Contains(p, "0001.parquet") {
			t.Errorf("the second file was downloaded although the first held enough rows: %v", hub.Paths())
		}
	}
	s.MaxConversations = 3
	convs, _, err = Load(context.Background(), s, &o, 1, convert)
	if err != nil || len(convs) != 3 {
		t.Fatalf("cap 3: %d convs, %v", len(convs), err)
	}
	fetched := 0
	for _, p := range hub.Paths() {
		if strings.Contains(p, "/resolve/") {
			fetched++
		}
	}
	if fetched != 2 {
		t.Errorf("%d downloads over both runs, want each file once: %v", fetched, hub.Paths())
	}
	// Offline, the cache's rows are all there is.
	o.Offline = true
	s.MaxConversations = 10
	if convs, _, err = Load(context.Background(), s, &o, 1, convert); err != nil || len(convs) != 4 {
		t.Errorf("offline, uncapped: %d convs, %v; want the 4 cached", len(convs), err)
	}
}

func TestCheckSettings(t *testing.T) {
	if err := CheckSettings(base.Settings{}); err == nil || !strings.Contains(err.Error(), "hf_dataset_name") {
		t.Errorf("empty settings: %v", err)
	}
	if err := CheckSettings(base.Settings{HFDatasetName: "a/b", MaxConversations: -1}); err == nil {
		t.Error("a negative cap passed")
	}
}
