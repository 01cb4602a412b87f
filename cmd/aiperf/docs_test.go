package main

import (
	"fmt"
	"github.com/aiperf-go/aiperf/internal/replayserver"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// The package and category tables of docs/ARCHITECTURE.md and
// docs/PLUGINS.md are generated from the code (package comments,
// sdk.Categories, the registry, the flags), so they cannot drift: this test
// fails when they differ and rewrites them with AIPERF_UPDATE_DOCS=1
// (make docs).
func TestDocTablesMatchTheCode(t *testing.T) {
	reg, err := embeddedRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]string{"packages": packageTable(t), "categories": categoryTable(reg), "works-with": worksWithTable(t)}
	for file, names := range map[string][]string{
		"docs/ARCHITECTURE.md": {"packages", "categories"},
		"docs/PLUGINS.md":      {"categories"},
		"README.md":            {"works-with"},
	} {
		path := filepath.Join("..", "..", file)
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		updated := string(doc)
		for _, name := range names {
			updated = replaceGenerated(t, updated, name, tables[name])
		}
		if updated == string(doc) {
			continue
		}
		if os.Getenv("AIPERF_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's generated tables are stale: run make docs", file)
	}
}

// serverNames are the display names of the transcript directories; the
// generic SSE cases are not a server.
var serverNames = map[string]string{
	"dynamo": "NVIDIA Dynamo", "litellm": "LiteLLM proxy", "llamacpp": "llama.cpp server", "nim": "NVIDIA NIM for LLMs",
	"ollama": "Ollama", "sglang": "SGLang", "tgi": "TGI (text-generation-inference)", "trtllm": "TensorRT-LLM (trtllm-serve)",
	"vllm": "vLLM", "sse": "", "gateway": "",
}

// worksWithTable is README's "works with" table, from the recorded wire
// transcripts TestInteropReplay replays: a server is listed with what was
// recorded of it, and only that.
func worksWithTable(t *testing.T) string {
	trs, err := replayserver.LoadAll(transcriptRoot)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		endpoints           map[string]bool
		notes               []string
		stream, plain, errs int
	}
	rows := map[string]*row{}
	var order []string
	for _, tr := range trs {
		name, known := serverNames[tr.Server]
		if !known {
			name = tr.Server
		}
		if name == "" {
			continue
		}
		r := rows[name]
		if r == nil {
			r = &row{endpoints: map[string]bool{}}
			rows[name] = r
			order = append(order, name)
		}
		ep, _ := tr.Field("endpoint")
		if ep == "" {
			ep = "chat"
		}
		r.endpoints[ep] = true
		if note, ok := tr.Field("note"); ok {
			r.notes = append(r.notes, note)
		}
		if _, isErr := tr.Field("expect-error-type"); isErr {
			r.errs++
			continue
		}
		if st, _ := tr.Field("streaming"); st == "true" {
			r.stream++
		} else {
			r.plain++
		}
	}
	slices.SortFunc(order, func(x, y string) int { return strings.Compare(strings.ToLower(x), strings.ToLower(y)) })
	var b strings.Builder
	b.WriteString("| Server | Endpoint types | Streaming answers | Non-streaming answers | Error bodies | Notes |\n|---|---|---:|---:|---:|---|\n")
	for _, name := range order {
		r := rows[name]
		eps := slices.Sorted(maps.Keys(r.endpoints))
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s |\n", name, "`"+strings.Join(eps, "`, `")+"`", r.stream, r.plain, r.errs, strings.Join(r.notes, "; "))
	}
	return b.String()
}

func replaceGenerated(t *testing.T, doc, name, table string) string {
	t.Helper()
	begin := "<!-- BEGIN GENERATED " + name + " (make docs) -->\n"
	end := "<!-- END GENERATED " + name + " -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("a doc lacks the %q markers", name)
	}
	return doc[:i+len(begin)] + table + doc[j:]
}

// packageTable lists every package of both modules with the first sentence
// of its package comment.
func packageTable(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| Package | Role |\n|---|---|\n")
	for _, dir := range []string{"../..", "../../plugin-sdk"} {
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}", "./...")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v", dir, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			path, doc, _ := strings.Cut(line, "\t")
			rel := strings.TrimPrefix(strings.TrimPrefix(path, "github.com/aiperf-go/aiperf"), "/")
			if rel == "" {
				rel = "(root)"
			}
			if doc == "" {
				t.Errorf("package %s has no package comment", path)
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", rel, strings.ReplaceAll(doc, "|", `\|`))
		}
	}
	return b.String()
}

// categoryTable describes every category from its descriptor, the
// registry's built-ins and the flags that select it.
func categoryTable(reg *registry.Registry) string {
	flags := config.CategoryFlags()
	var b strings.Builder
	b.WriteString("| Category | Interface | Cardinality | Kinds | Built-ins | Selected by |\n|---|---|---|---|---|---|\n")
	for _, c := range sdk.Categories {
		kinds := make([]string, 0, 3)
		for _, k := range registry.AllowedKinds(c.Name) {
			kinds = append(kinds, string(k))
		}
		selected := "every registered plugin, in manifest order"
		switch {
		case c.Cardinality == sdk.One && len(flags[c.Name]) > 0:
			selected = "`" + strings.Join(flags[c.Name], "`, `") + "`"
		case c.Name == sdk.CategoryTimingStrategy:
			selected = "the timing mode (fixed schedule > user-centric > request rate > concurrency)"
		case c.Name == sdk.CategoryDatasetComposer:
			selected = "`public` with `--public-dataset`, `custom` with `--input-file`, else `synthetic`"
		}
		switch c.Name {
		case sdk.CategoryCustomDataset:
			selected += "; detected from the file when unset"
		case sdk.CategoryTokenizer:
			selected += " (`builtin` for `--tokenizer builtin`)"
		case sdk.CategoryDatasetSampler:
			selected += " (default `shuffle`; `sequential` for trace replay and public datasets)"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s |\n", c.Name, c.InterfaceName(), c.Cardinality,
			strings.Join(kinds, ", "), "`"+strings.Join(reg.Names(c.Name), "`, `")+"`", selected)
	}
	return b.String()
}
