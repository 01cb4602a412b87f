package chat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/capturetest"
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
		SupportsAudio: true, SupportsImages: true, SupportsVideos: true, ConsumesSystemMessage: true, SendsRawMessages: true}
	if md != want {
		t.Errorf("metadata = %+v, want %+v", md, want)
	}
}

// AIPerf's --system-prompt capture: the system message leads, verbatim.
func TestFormatPayloadSystemPromptCapture(t *testing.T) {
	for i, want := range capturetest.Bodies(t, "chat_legacy_max_tokens") {
		var sent struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.Unmarshal([]byte(want), &sent); err != nil || len(sent.Messages) != 2 {
			t.Fatalf("capture body %d: %v %s", i, err, want)
		}
		got, err := (&Endpoint{}).FormatPayload(sdk.RequestInfo{Model: "mock-model", UseLegacyMaxTokens: true,
			SystemMessage: "You are terse.", Turn: sdk.Turn{Texts: []string{sent.Messages[1].Content}, MaxTokens: intp(8)}})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("body %d\n got %s\nwant %s", i, got, want)
		}
	}
}

// The conversation's system prompt and user context around the turns, and
// a turn's verbatim messages and tools, in AIPerf's shapes.
func TestFormatPayloadContextAndRawMessages(t *testing.T) {
	for _, tt := range []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{"system and user context before history",
			sdk.RequestInfo{Model: "m", SystemMessage: "S", UserContextMessage: "C",
				History: []sdk.HistoryEntry{{Role: "user", Text: "a"}, {Role: "assistant", Text: "b"}}, Turn: sdk.Turn{Texts: []string{"q"}}},
			`{"messages":[{"role":"system","content":"S"},{"role":"user","content":"C"},{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"q"}],"model":"m","stream":false}`},
		{"system prompt joins a leading system history entry",
			sdk.RequestInfo{Model: "m", SystemMessage: "S", History: []sdk.HistoryEntry{{Role: "system", Text: "own"}}, Turn: sdk.Turn{Texts: []string{"q"}}},
			`{"messages":[{"role":"system","content":"S\n\nown"},{"role":"user","content":"q"}],"model":"m","stream":false}`},
		{"raw messages replace history; tools after stream",
			sdk.RequestInfo{Model: "m", Streaming: true, History: []sdk.HistoryEntry{{Role: "user", Text: "ignored"}},
				Turn: sdk.Turn{RawMessages: json.RawMessage(`[{"role":"user","content":"hi","name":"u1"},{"role":"tool","tool_call_id":"c","content":"42"}]`),
					RawTools: json.RawMessage(`[{"type":"function","function":{"name":"f"}}]`), MaxTokens: intp(5)}},
			`{"messages":[{"role":"user","content":"hi","name":"u1"},{"role":"tool","tool_call_id":"c","content":"42"}],"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"f"}}],"max_completion_tokens":5,"stream_options":{"include_usage":true}}`},
		{"system prompt joins a raw leading system message, keeping its keys",
			sdk.RequestInfo{Model: "m", SystemMessage: "S",
				Turn: sdk.Turn{RawMessages: json.RawMessage(`[{"content":"own","role":"system","name":"x"},{"role":"user","content":"q"}]`)}},
			`{"messages":[{"content":"S\n\nown","role":"system","name":"x"},{"role":"user","content":"q"}],"model":"m","stream":false}`},
		{"a parts-list system message gets a leading text part",
			sdk.RequestInfo{Model: "m", SystemMessage: "S",
				Turn: sdk.Turn{RawMessages: json.RawMessage(`[{"role":"system","content":[{"type":"text","text":"own"}]}]`)}},
			`{"messages":[{"role":"system","content":[{"type":"text","text":"S"},{"type":"text","text":"own"}]}],"model":"m","stream":false}`},
		{"raw messages without a system message get one",
			sdk.RequestInfo{Model: "m", SystemMessage: "S", UserContextMessage: "C", Turn: sdk.Turn{RawMessages: json.RawMessage(`[{"role":"user","content":"q"}]`)}},
			`{"messages":[{"role":"system","content":"S"},{"role":"user","content":"C"},{"role":"user","content":"q"}],"model":"m","stream":false}`},
	} {
		got, err := (&Endpoint{}).FormatPayload(tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	if _, err := (&Endpoint{}).FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{RawMessages: json.RawMessage(`["hi"]`)}}); err == nil ||
		!strings.Contains(err.Error(), "element 0 is not an object") {
		t.Errorf("bad raw messages: %v", err)
	}
}
