package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/aiperf-go/aiperf/registry/wasmloader"
)

func intp(v int) *int { return &v }

// endpointCases are real response units of each built-in endpoint's API;
// a new built-in endpoint needs its own here.
var endpointCases = map[string]sdktest.EndpointCase{
	"chat": {SampleUnits: []sdktest.SampleUnit{
		{Name: "role delta", Data: []byte(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)},
		{Name: "content delta", Data: []byte(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"}}]}`), Text: "Hello"},
		{Name: "reasoning delta", Data: []byte(`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]}`), Reasoning: "hmm"},
		{Name: "usage chunk", Data: []byte(`{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`),
			Usage: &sdk.Usage{PromptTokens: intp(5), CompletionTokens: intp(2), TotalTokens: intp(7)}},
		{Name: "whole body", Data: []byte(`{"id":"c2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there"}}]}`), Text: "Hi there"},
	}},
	"completions": {SampleUnits: []sdktest.SampleUnit{
		{Name: "text chunk", Data: []byte(`{"id":"x1","object":"text_completion","choices":[{"index":0,"text":" world"}]}`), Text: " world"},
		{Name: "usage chunk", Data: []byte(`{"id":"x1","object":"text_completion","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`),
			Usage: &sdk.Usage{PromptTokens: intp(3), CompletionTokens: intp(1), TotalTokens: intp(4)}},
	}},
}

// datasetSamples are one file of each built-in loader's format.
var datasetSamples = map[string]string{
	"mooncake_trace": `{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [0, 1]}` + "\n" +
		`{"timestamp": 250, "input_length": 100, "output_length": 4, "hash_ids": [0]}` + "\n",
	"single_turn": `{"text": "What is a benchmark?"}` + "\n" + `{"texts": ["one", "two"], "output_length": 12}` + "\n",
	"multi_turn":  `{"session_id": "s1", "turns": [{"text": "hello"}, {"text": "and then?", "delay": 100}]}` + "\n",
}

// Every built-in endpoint, dataset loader, record processor and data
// exporter passes the same conformance suite external plugin authors run.
func TestBuiltinConformance(t *testing.T) {
	checked := map[string]int{}
	for _, f := range builtins() {
		switch f.Category {
		case sdk.CategoryEndpoint, sdk.CategoryCustomDataset, sdk.CategoryRecordProcessor, sdk.CategoryDataExporter:
		default:
			continue // the categories sdktest covers: those external plugins can serve
		}
		t.Run(f.Category+"."+f.Name, func(t *testing.T) {
			switch v := f.New().(type) {
			case sdk.Endpoint:
				c, ok := endpointCases[f.Name]
				if !ok {
					t.Fatalf("no conformance case for endpoint %s: add one to endpointCases", f.Name)
				}
				sdktest.Endpoint(t, v, c)
			case sdk.CustomDatasetLoader:
				sample, ok := datasetSamples[f.Name]
				if !ok {
					t.Fatalf("no sample file for dataset loader %s: add one to datasetSamples", f.Name)
				}
				path := filepath.Join(t.TempDir(), f.Name+".jsonl")
				if err := os.WriteFile(path, []byte(sample), 0o600); err != nil {
					t.Fatal(err)
				}
				sdktest.DatasetLoader(t, v, path)
			case sdk.RecordProcessor:
				sdktest.RecordProcessor(t, v)
			case sdk.DataExporter:
				sdktest.DataExporter(t, v)
			default:
				t.Fatalf("%T implements none of the checked interfaces", v)
			}
			checked[f.Category]++
		})
	}
	for _, c := range []string{sdk.CategoryEndpoint, sdk.CategoryCustomDataset, sdk.CategoryRecordProcessor, sdk.CategoryDataExporter} {
		if checked[c] == 0 {
			t.Errorf("no built-in %s was checked", c)
		}
	}
}

// textgenCase is the examples' non-OpenAI API (mock server /v1/textgen).
var textgenCase = sdktest.EndpointCase{SampleUnits: []sdktest.SampleUnit{
	{Name: "delta", Data: []byte(`{"delta":" alpha"}`), Text: " alpha"},
	{Name: "done with usage", Data: []byte(`{"done":true,"usage":{"input_tokens":7,"output_tokens":2}}`),
		Usage: &sdk.Usage{PromptTokens: intp(7), CompletionTokens: intp(2), TotalTokens: intp(9)}},
}}

// The Go example plugins pass the suite as built: the gRPC endpoint as a
// process, the WASM endpoint and record processor through the WASM loader's
// adapters, exactly as a run loads them.
func TestExampleConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plugin binaries")
	}
	dir := t.TempDir()
	t.Run("go-grpc-endpoint", func(t *testing.T) {
		bin, _ := buildPlugin(t, dir, "textgen-plugin", "../../examples/plugins/go-grpc-endpoint")
		sdktest.GRPCPlugin(t, bin, sdktest.WithEndpointCase(textgenCase))
	})
	loader := wasmloader.New(wasmloader.Options{CacheDir: filepath.Join(dir, "wazero")})
	t.Cleanup(func() { _ = loader.Close() })
	load := func(t *testing.T, category, name, pkg string) any {
		path, sum := buildPlugin(t, dir, name+".wasm", pkg, "GOOS=wasip1", "GOARCH=wasm")
		v, err := loader.Load(context.Background(), &registry.Entry{Category: category, Name: name,
			Kind: registry.KindWASM, Path: path, SHA256: sum, APIVersion: sdk.APIVersion, Source: "test"})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	t.Run("go-wasm-endpoint", func(t *testing.T) {
		v := load(t, sdk.CategoryEndpoint, "textgen_wasm", "../../examples/plugins/go-wasm-endpoint")
		sdktest.Endpoint(t, v.(sdk.Endpoint), textgenCase)
	})
	t.Run("go-wasm-metric", func(t *testing.T) {
		v := load(t, sdk.CategoryRecordProcessor, "answer_chars", "../../examples/plugins/go-wasm-metric")
		sdktest.RecordProcessor(t, v.(sdk.RecordProcessor))
	})
}
