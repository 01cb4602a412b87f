package completions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func intp(n int) *int { return &n }

func TestFormatPayloadGolden(t *testing.T) {
	one := sdk.Turn{Texts: []string{"Once upon"}, MaxTokens: intp(64)}
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{"non-streaming single prompt is a bare string", sdk.RequestInfo{Model: "m", Turn: one},
			`{"prompt":"Once upon","model":"m","stream":false,"max_tokens":64}`},
		// AIPerf 0.13 asks for the usage chunk on every streaming request,
		// with or without --use-server-token-count (RequestInfo.IncludeUsage).
		{"streaming always asks for usage", sdk.RequestInfo{Model: "m", Streaming: true, Turn: one},
			`{"prompt":"Once upon","model":"m","stream":true,"max_tokens":64,"stream_options":{"include_usage":true}}`},
		{"streaming with include usage", sdk.RequestInfo{Model: "m", Streaming: true, IncludeUsage: true, Turn: one},
			`{"prompt":"Once upon","model":"m","stream":true,"max_tokens":64,"stream_options":{"include_usage":true}}`},
		{"include usage ignored when not streaming", sdk.RequestInfo{Model: "m", IncludeUsage: true, Turn: one},
			`{"prompt":"Once upon","model":"m","stream":false,"max_tokens":64}`},
		{"extra stream false drops stream_options", sdk.RequestInfo{Model: "m", Streaming: true, Turn: one,
			ExtraInputs: map[string]any{"stream": false}},
			`{"prompt":"Once upon","model":"m","stream":false,"max_tokens":64}`},
		{"extra stream true adds stream_options", sdk.RequestInfo{Model: "m", Turn: one,
			ExtraInputs: map[string]any{"stream": true}},
			`{"prompt":"Once upon","model":"m","stream":true,"max_tokens":64,"stream_options":{"include_usage":true}}`},
		{"author stream_options kept and completed", sdk.RequestInfo{Model: "m", Streaming: true, Turn: one,
			ExtraInputs: map[string]any{"stream_options": map[string]any{"continuous_usage_stats": true}}},
			`{"prompt":"Once upon","model":"m","stream":true,"max_tokens":64,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`},
		{"author include_usage false wins", sdk.RequestInfo{Model: "m", Streaming: true, Turn: one,
			ExtraInputs: map[string]any{"stream_options": map[string]any{"include_usage": false}}},
			`{"prompt":"Once upon","model":"m","stream":true,"max_tokens":64,"stream_options":{"include_usage":false}}`},
		{"null stream_options becomes include usage", sdk.RequestInfo{Model: "m", Streaming: true, Turn: one,
			ExtraInputs: map[string]any{"stream_options": nil}},
			`{"prompt":"Once upon","model":"m","stream":true,"max_tokens":64,"stream_options":{"include_usage":true}}`},
		{"legacy flag changes nothing", sdk.RequestInfo{Model: "m", UseLegacyMaxTokens: true, Turn: one},
			`{"prompt":"Once upon","model":"m","stream":false,"max_tokens":64}`},
		{"several prompts are a list", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a", "", "b"}}},
			`{"prompt":["a","b"],"model":"m","stream":false}`},
		{"one non-empty of several is a bare string", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"", "b"}}},
			`{"prompt":"b","model":"m","stream":false}`},
		{"zero max tokens omitted", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, MaxTokens: intp(0)}},
			`{"prompt":"x","model":"m","stream":false}`},
		{"extras override and add, turn extra last", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Model: "t", Extra: map[string]any{"echo": false}},
			ExtraInputs: map[string]any{"max_tokens": 5.0, "echo": true, "ignore_eos": true}},
			`{"prompt":"x","model":"t","stream":false,"echo":false,"ignore_eos":true,"max_tokens":5}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	if _, err := New().FormatPayload(sdk.RequestInfo{Turn: one}); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("missing model: err = %v", err)
	}
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name, data, text string
		completion       int // -1 = no usage
	}{
		{"vllm chunk", `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`, " the", -1},
		{"usage chunk", `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":4,"total_tokens":9,"completion_tokens":5}}`, "", 5},
		{"non-streaming", `{"id":"cmpl-2","object":"text_completion","choices":[{"index":0,"text":"a time","finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":2,"total_tokens":4}}`, "a time", 2},
		{"empty text", `{"object":"text_completion","choices":[{"text":""}]}`, "", -1},
		{"done", "[DONE]", "", -1},
		{"empty", "", "", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().ParseResponse([]byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != c.text || got.Reasoning != "" {
				t.Errorf("text = %q reasoning = %q, want %q", got.Text, got.Reasoning, c.text)
			}
			if c.completion < 0 {
				if got.Usage != nil {
					t.Errorf("usage = %+v, want nil", got.Usage)
				}
			} else if got.Usage == nil || *got.Usage.CompletionTokens != c.completion {
				t.Errorf("usage = %+v, want completion %d", got.Usage, c.completion)
			}
		})
	}
	_, err := New().ParseResponse([]byte(`{"choices":[{"text":"unterminated`))
	if err == nil || !strings.HasPrefix(err.Error(), "completions: malformed response JSON") || !strings.Contains(err.Error(), "unterminated") {
		t.Errorf("malformed: err = %v", err)
	}
}

func TestRoundTripOverLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Prompt string `json:"prompt"`
			Stream bool   `json:"stream"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || r.URL.Path != Path || body.Prompt == "" || !body.Stream {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		for _, tok := range []string{" upon", " a", " time"} {
			io.WriteString(w, `data: {"object":"text_completion","choices":[{"index":0,"text":"`+tok+`"}]}`+"\n\n")
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	ep := New()
	payload, err := ep.FormatPayload(sdk.RequestInfo{Model: "m", Streaming: true, Turn: sdk.Turn{Texts: []string{"Once"}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+Path, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var out strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			p, err := ep.ParseResponse([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			out.WriteString(p.Text)
		}
	}
	if out.String() != " upon a time" {
		t.Errorf("streamed text = %q", out.String())
	}
}
