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
	}}, // AIPerf 0.13's other endpoint types: each declares where its API differs
	// from a chat API (one turn only, extras in "parameters", ...).
	"embeddings": {SingleTurn: true, SampleUnits: []sdktest.SampleUnit{
		{Name: "two vectors", Data: []byte(`{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2],"index":0},{"object":"embedding","embedding":[0.3,0.4],"index":1}],"model":"m","usage":{"prompt_tokens":10,"total_tokens":10}}`)},
		{Name: "no data", Data: []byte(`{"object":"list","data":[],"model":"m"}`)},
	}},
	"nim_embeddings": {SingleTurn: true, SampleUnits: []sdktest.SampleUnit{
		{Name: "one vector", Data: []byte(`{"object":"list","data":[{"index":0,"embedding":[0.1,0.2],"object":"embedding"}],"model":"nvidia/nv-embedqa-e5-v5","usage":{"prompt_tokens":5,"total_tokens":5}}`)},
	}},
	"chat_embeddings": {SampleUnits: []sdktest.SampleUnit{
		{Name: "one vector", Data: []byte(`{"object":"list","data":[{"object":"embedding","embedding":[0.1],"index":0}]}`)},
	}},
	"nim_rankings": {SingleTurn: true, Turn: rankingsTurn, SampleUnits: []sdktest.SampleUnit{
		{Name: "NIM rankings", Data: []byte(`{"rankings":[{"index":1,"logit":0.42},{"index":0,"logit":-1.5}]}`)},
	}},
	"hf_tei_rankings": {SingleTurn: true, Turn: rankingsTurn, SampleUnits: []sdktest.SampleUnit{
		{Name: "TEI list", Data: []byte(`[{"index":0,"score":0.98},{"index":1,"score":0.01}]`)},
	}},
	"cohere_rankings": {SingleTurn: true, Turn: rankingsTurn, SampleUnits: []sdktest.SampleUnit{
		{Name: "Cohere results", Data: []byte(`{"id":"rr-1","results":[{"index":0,"relevance_score":0.9}],"meta":{"billed_units":{"search_units":1}}}`)},
	}},
	"huggingface_generate": {SingleTurn: true, ExtrasAt: "parameters", SampleUnits: []sdktest.SampleUnit{
		{Name: "stream event", Data: []byte(`{"index":0,"token":{"id":100,"text":" the","logprob":-0.1,"special":false},"generated_text":null,"details":null}`), Text: " the"},
		{Name: "whole body", Data: []byte(`{"generated_text":"Hello there"}`), Text: "Hello there"},
	}},
	"responses": {SampleUnits: []sdktest.SampleUnit{
		{Name: "text delta", Data: []byte(`{"type":"response.output_text.delta","item_id":"m1","output_index":0,"content_index":0,"delta":"Hello"}`), Text: "Hello"},
		{Name: "whole response", Data: []byte(`{"id":"r1","object":"response","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}]}`), Text: "Hi"},
	}},
	"messages": {SampleUnits: []sdktest.SampleUnit{
		{Name: "text delta", Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`), Text: "Hello"},
		{Name: "whole message", Data: []byte(`{"type":"message","content":[{"type":"text","text":"Hi"}]}`), Text: "Hi"},
	}},
	// A template API may answer in plain text: no unit is malformed.
	"template": {ExtraInputs: map[string]any{"payload_template": conformanceTemplate}, MalformedUnits: [][]byte{},
		SampleUnits: []sdktest.SampleUnit{
			{Name: "plain text", Data: []byte(`Hello there`), Text: "Hello there"},
			{Name: "chat-like body", Data: []byte(`{"choices":[{"message":{"content":"Hi"}}]}`), Text: "Hi"},
			{Name: "text field", Data: []byte(`{"text":"Hello"}`), Text: "Hello"},
		}},
	"image_generation": {FirstTextOnly: true, SampleUnits: []sdktest.SampleUnit{
		{Name: "one image", Data: []byte(`{"created":1,"data":[{"b64_json":"iVBORw0KGgo="}],"usage":{"input_tokens":5,"output_tokens":272,"total_tokens":277}}`),
			Usage: &sdk.Usage{PromptTokens: intp(5), CompletionTokens: intp(272), TotalTokens: intp(277)}},
	}},
	"video_generation": {FirstTextOnly: true, SampleUnits: []sdktest.SampleUnit{
		{Name: "queued job", Data: []byte(`{"id":"video_1","object":"video","status":"queued","model":"m"}`)},
		{Name: "completed job", Data: []byte(`{"id":"video_1","object":"video","status":"completed","inference_time_s":0.35,"peak_memory_mb":2048}`)},
	}},
	"solido_rag": {NoMaxTokens: true, StreamByHeader: true, SampleUnits: []sdktest.SampleUnit{
		{Name: "body", Data: []byte(`{"content":"The answer.","sources":[{"doc":"a.pdf","score":0.5}]}`), Text: "The answer."},
		{Name: "stream event", Data: []byte(`{"content":" the"}`), Text: " the"},
	}},
}

// conformanceTemplate renders a chat-like body from the template
// endpoint's variables, so the suite's checks see what they look for.
const conformanceTemplate = `{"model": {{ model|tojson }}, "messages": [{"role": "user", "content": {{ texts|join(" ")|tojson }}}],` +
	` "max_tokens": {{ max_tokens|tojson }}, "stream": {{ stream|tojson }}}`

// rankingsTurn makes a rankings turn of the suite's texts: the first is the
// query, the rest the passages.
func rankingsTurn(texts []string) sdk.Turn {
	return sdk.Turn{TextGroups: []sdk.TextGroup{{Name: sdk.TextGroupQuery, Contents: texts[:1]},
		{Name: sdk.TextGroupPassages, Contents: texts[1:]}}}
}

// datasetSamples are one file of each built-in loader's format.
var datasetSamples = map[string]string{
	"mooncake_trace": `{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [0, 1]}` + "\n" +
		`{"timestamp": 250, "input_length": 100, "output_length": 4, "hash_ids": [0]}` + "\n",
	"single_turn": `{"text": "What is a benchmark?"}` + "\n" + `{"texts": ["one", "two"], "output_length": 12}` + "\n",
	"multi_turn":  `{"session_id": "s1", "turns": [{"text": "hello"}, {"text": "and then?", "delay": 100}]}` + "\n",
	"bailian_trace": `{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 40, "output_length": 8, "type": "text", "turn": 1, "hash_ids": [1, 2]}` + "\n" +
		`{"chat_id": 2, "parent_chat_id": 1, "timestamp": 1.5, "input_length": 60, "output_length": 4, "type": "text", "turn": 2, "hash_ids": [1, 2, 3]}` + "\n",
	"burst_gpt_trace": "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,47,18,65,Conversation log\n45,ChatGPT,108,9,117,Conversation log\n",
	"random_pool":     `{"type": "random_pool", "text": "a pooled prompt"}` + "\n" + `{"type": "random_pool", "texts": ["x", "y"]}` + "\n",
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
