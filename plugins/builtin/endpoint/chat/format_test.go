package chat

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func intp(n int) *int { return &n }

func TestFormatPayloadGolden(t *testing.T) {
	hello := sdk.Turn{Texts: []string{"Hello"}, MaxTokens: intp(100)}
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{
			name: "non-streaming",
			req:  sdk.RequestInfo{Model: "m", Turn: hello},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":false,"max_completion_tokens":100}`,
		},
		{
			name: "streaming forces include_usage",
			req:  sdk.RequestInfo{Model: "m", Streaming: true, Turn: hello},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":true,"max_completion_tokens":100,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "legacy max tokens",
			req:  sdk.RequestInfo{Model: "m", UseLegacyMaxTokens: true, Turn: hello},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":false,"max_tokens":100}`,
		},
		{
			name: "no max tokens",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"Hello"}}},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":false}`,
		},
		{
			name: "extra inputs override in place and add sorted",
			req: sdk.RequestInfo{Model: "m", Streaming: true, Turn: hello,
				ExtraInputs: map[string]any{"model": "other", "min_tokens": 100.0, "ignore_eos": true}},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"other","stream":true,"max_completion_tokens":100,"ignore_eos":true,"min_tokens":100,"stream_options":{"include_usage":true}}`,
		},
		{
			name: "per-turn extra after extra inputs",
			req: sdk.RequestInfo{Model: "m",
				Turn:        sdk.Turn{Texts: []string{"Hello"}, Extra: map[string]any{"temperature": 0.0, "seed": 7.0}},
				ExtraInputs: map[string]any{"temperature": 0.5}},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":false,"temperature":0,"seed":7}`,
		},
		{
			name: "extra stream false drops stream_options",
			req:  sdk.RequestInfo{Model: "m", Streaming: true, Turn: hello, ExtraInputs: map[string]any{"stream": false}},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":false,"max_completion_tokens":100}`,
		},
		{
			name: "author stream_options kept",
			req: sdk.RequestInfo{Model: "m", Streaming: true, Turn: hello,
				ExtraInputs: map[string]any{"stream_options": map[string]any{"continuous_usage_stats": true}}},
			want: `{"messages":[{"role":"user","content":"Hello"}],"model":"m","stream":true,"max_completion_tokens":100,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`,
		},
		{
			name: "multiple texts become parts, empty skipped",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"one", "", "two"}}},
			want: `{"messages":[{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}],"model":"m","stream":false}`,
		},
		{
			name: "all-empty parts degrade to empty string",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"", ""}}},
			want: `{"messages":[{"role":"user","content":""}],"model":"m","stream":false}`,
		},
		{
			name: "history, turn role and turn model",
			req: sdk.RequestInfo{Model: "m",
				History: []sdk.HistoryEntry{{Role: "user", Text: "Hi"}, {Role: "assistant", Text: "Hello!"}},
				Turn:    sdk.Turn{Texts: []string{"More"}, Role: "user", Model: "m2"}},
			want: `{"messages":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello!"},{"role":"user","content":"More"}],"model":"m2","stream":false}`,
		},
		{
			name: "escaping",
			req:  sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"say \"hi\"\n<b>&\t"}}},
			want: `{"messages":[{"role":"user","content":"say \"hi\"\n<b>&\t"}],"model":"m","stream":false}`,
		},
	}
	ep := New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ep.FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if !json.Valid(got) {
				t.Errorf("body is not valid JSON: %s", got)
			}
		})
	}
}

func TestFormatPayloadDoesNotMutateInputs(t *testing.T) {
	so := map[string]any{"continuous_usage_stats": true}
	extra := map[string]any{"stream_options": so}
	req := sdk.RequestInfo{Model: "m", Streaming: true, Turn: sdk.Turn{Texts: []string{"x"}}, ExtraInputs: extra}
	for range 2 {
		if _, err := New().FormatPayload(req); err != nil {
			t.Fatal(err)
		}
	}
	if len(so) != 1 || len(extra) != 1 {
		t.Fatalf("config maps were modified: %v", extra)
	}
}

func TestFormatPayloadErrors(t *testing.T) {
	_, err := New().FormatPayload(sdk.RequestInfo{Turn: sdk.Turn{Texts: []string{"x"}}})
	if err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("missing model: err = %v", err)
	}
	_, err = New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
		ExtraInputs: map[string]any{"bad": func() {}}})
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("unencodable extra: err = %v, want it to name the key", err)
	}
}

func TestMetadata(t *testing.T) {
	md := New().Metadata()
	want := sdk.EndpointMetadata{EndpointPath: "/v1/chat/completions", StreamingPath: "/v1/chat/completions",
		ServiceKind: "openai", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics",
		SupportsAudio: true, SupportsImages: true, SupportsVideos: true}
	if md != want {
		t.Errorf("metadata = %+v, want %+v", md, want)
	}
}
