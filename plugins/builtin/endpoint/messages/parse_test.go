package messages

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

// Events of streamed answers, shaped as Anthropic (and the capture server)
// send them.
const (
	evStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"mock-model",` +
		`"usage":{"input_tokens":10,"output_tokens":1}}}`
	evBlockStart    = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	evPing          = `{"type":"ping"}`
	evHello         = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`
	evEmptyText     = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}`
	evThinkingStart = `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`
	evThinking      = `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me think"}}`
	evSignature     = `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}`
	evToolStart     = `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`
	evToolJSON      = `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}}`
	evBlockStop     = `{"type":"content_block_stop","index":0}`
	evMessageDelta  = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}`
	evMessageStop   = `{"type":"message_stop"}`
	evError         = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
)

func usage(prompt, completion, total int) *sdk.Usage {
	p := func(n int) *int {
		if n < 0 {
			return nil
		}
		return &n
	}
	return &sdk.Usage{PromptTokens: p(prompt), CompletionTokens: p(completion), TotalTokens: p(total)}
}

func sameUsage(a, b *sdk.Usage) bool {
	if a == nil || b == nil {
		return a == b
	}
	eq := func(x, y *int) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.PromptTokens, b.PromptTokens) && eq(a.CompletionTokens, b.CompletionTokens) &&
		eq(a.TotalTokens, b.TotalTokens) && eq(a.ReasoningTokens, b.ReasoningTokens)
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name            string
		data            string
		text, reasoning string
		usage           *sdk.Usage
	}{
		{"message_start carries the input usage", evStart, "", "", usage(10, 1, -1)},
		{"text delta", evHello, "Hello", "", nil},
		{"empty text delta", evEmptyText, "", "", nil},
		{"thinking delta", evThinking, "", "Let me think", nil},
		{"signature delta is not output", evSignature, "", "", nil},
		{"tool input JSON counts as text", evToolJSON, `{"city": "Pa`, "", nil},
		{"message_delta carries the final usage", evMessageDelta, "", "", usage(-1, 6, -1)},
		{"block start", evBlockStart, "", "", nil},
		{"thinking block start", evThinkingStart, "", "", nil},
		{"tool block start", evToolStart, "", "", nil},
		{"block stop", evBlockStop, "", "", nil},
		{"ping", evPing, "", "", nil},
		{"message stop", evMessageStop, "", "", nil},
		{"error event is only logged by AIPerf", evError, "", "", nil},
		{"unknown event", `{"type":"future_event","delta":{"type":"text_delta","text":"x"}}`, "", "", nil},
		{"no type", `{"content":[{"type":"text","text":"x"}]}`, "", "", nil},
		{"types match case-insensitively, dash as underscore", `{"type":"Content-Block-Delta","delta":{"type":"TEXT_DELTA","text":"Hi"}}`, "Hi", "", nil},
		// Whole messages (stream absent).
		{"capture server message", `{"id":"msg_1","type":"message","role":"assistant","model":"mock-model",` +
			`"content":[{"type":"text","text":"Hello from the fake server."}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":6}}`,
			"Hello from the fake server.", "", usage(10, 6, -1)},
		{"thinking wins; text kept, tool dropped", `{"type":"message","content":[{"type":"thinking","thinking":"hmm","signature":"x"},` +
			`{"type":"text","text":"ok"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}]}`, "ok", "hmm", nil},
		{"prose then tool calls, input as compact JSON in its order", `{"type":"message","content":[{"type":"tool_use","id":"t1","name":"get_weather",` +
			`"input":{"city": "Paris", "unit": "c"}},{"type":"text","text":"Let me check. "},{"type":"tool_use","id":"t2","name":"now","input":{}}]}`,
			`Let me check. get_weather{"city":"Paris","unit":"c"}now`, "", nil},
		{"text blocks joined, unknown blocks skipped", `{"type":"message","content":[{"type":"text","text":"a"},{"type":"redacted_thinking","data":"x"},{"type":"text","text":"b"}]}`,
			"ab", "", nil},
		{"no content, usage only", `{"type":"message","content":[],"usage":{"input_tokens":3,"output_tokens":0}}`, "", "", usage(3, 0, -1)},
		{"DONE", "[DONE]", "", "", nil},
		{"empty", "", "", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New().ParseResponse([]byte(c.data))
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != c.text || p.Reasoning != c.reasoning {
				t.Errorf("text %q reasoning %q, want %q %q", p.Text, p.Reasoning, c.text, c.reasoning)
			}
			if !sameUsage(p.Usage, c.usage) {
				t.Errorf("usage %+v, want %+v", p.Usage, c.usage)
			}
		})
	}
}

func TestParseRejectsMalformed(t *testing.T) {
	for _, data := range []string{`{"type":"message_start"`, `{not json}`, `[1]`} {
		if _, err := New().ParseResponse([]byte(data)); err == nil || !strings.HasPrefix(err.Error(), "messages: ") {
			t.Errorf("ParseResponse(%s) error %v, want a messages: error", data, err)
		}
	}
	units := []sdk.Response{{PerfNs: 1, Data: []byte(evHello)}, {PerfNs: 2, Data: []byte(`{"type":`)}}
	if _, err := New().ParseRecord(units); err == nil || !strings.Contains(err.Error(), "unit 1") {
		t.Errorf("ParseRecord error %v, want one naming unit 1", err)
	}
}

func parseSeq(t *testing.T, seq ...string) []sdk.ParsedResponse {
	t.Helper()
	units := make([]sdk.Response, len(seq))
	for i, s := range seq {
		units[i] = sdk.Response{PerfNs: int64(100 + i), Data: []byte(s)}
	}
	out, err := New().ParseRecord(units)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(units) {
		t.Fatalf("%d parsed for %d units", len(out), len(units))
	}
	for i := range out {
		if out[i].PerfNs != units[i].PerfNs {
			t.Errorf("unit %d: PerfNs %d, want %d", i, out[i].PerfNs, units[i].PerfNs)
		}
	}
	return out
}

// lastUsage is what the core keeps: the last non-nil usage.
func lastUsage(out []sdk.ParsedResponse) *sdk.Usage {
	var u *sdk.Usage
	for _, p := range out {
		if p.Usage != nil {
			u = p.Usage
		}
	}
	return u
}

// TestParseRecordFoldsSplitUsage: the capture server's stream (and
// Anthropic's) reports input tokens only in message_start; the record's
// usage must still have them (the capture shows usage_prompt_tokens 10).
func TestParseRecordFoldsSplitUsage(t *testing.T) {
	out := parseSeq(t, evStart, evBlockStart, evPing, evHello,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" from"}}`,
		evBlockStop, evMessageDelta, evMessageStop)
	var text strings.Builder
	content := 0
	for _, p := range out {
		text.WriteString(p.Text)
		if p.HasContent() {
			content++
		}
	}
	if text.String() != "Hello from" || content != 2 {
		t.Errorf("text %q in %d units, want %q in 2", text.String(), content, "Hello from")
	}
	if u := lastUsage(out); !sameUsage(u, usage(10, 6, -1)) {
		t.Errorf("record usage %+v, want prompt 10 (from message_start) and completion 6 (message_delta's)", u)
	}
	// The earlier unit's own usage is left as it was.
	if !sameUsage(out[0].Usage, usage(10, 1, -1)) {
		t.Errorf("message_start usage changed to %+v", out[0].Usage)
	}
}

func TestParseRecordFoldOrder(t *testing.T) {
	out := parseSeq(t,
		`{"type":"message_start","message":{"usage":{"input_tokens":10}}}`,
		`{"type":"message_delta","usage":{"input_tokens":11,"output_tokens":2,"total_tokens":13}}`,
		`{"type":"message_delta","usage":{"output_tokens":5}}`)
	// The last usage keeps its own count; missing ones come from the first
	// earlier usage that has them.
	if u := lastUsage(out); !sameUsage(u, usage(10, 5, 13)) {
		t.Errorf("record usage %+v, want prompt 10, completion 5, total 13", u)
	}
	// A cumulative server that repeats every count is untouched.
	out = parseSeq(t, evStart, `{"type":"message_delta","usage":{"input_tokens":12,"output_tokens":7}}`)
	if u := lastUsage(out); !sameUsage(u, usage(12, 7, -1)) {
		t.Errorf("record usage %+v, want 12 and 7", u)
	}
	// No usage at all stays none.
	if u := lastUsage(parseSeq(t, evHello, evMessageStop)); u != nil {
		t.Errorf("usage %+v, want none", u)
	}
}

func TestParseRecordThinkingAndTools(t *testing.T) {
	out := parseSeq(t, evStart, evThinkingStart, evThinking, evSignature, evBlockStop, evToolStart, evToolJSON,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ris\"}"}}`, evMessageDelta)
	var text, reasoning strings.Builder
	for _, p := range out {
		text.WriteString(p.Text)
		reasoning.WriteString(p.Reasoning)
	}
	if text.String() != `{"city": "Paris"}` || reasoning.String() != "Let me think" {
		t.Errorf("text %q reasoning %q", text.String(), reasoning.String())
	}
}

func TestIsFirstToken(t *testing.T) {
	ep := New()
	for data, want := range map[string]bool{
		evStart: false, evBlockStart: false, evPing: false, evEmptyText: false, evSignature: false,
		evMessageDelta: false, evError: false, "[DONE]": false, `{"type":`: false,
		evHello: true, evThinking: true, evToolJSON: true,
	} {
		if got := ep.IsFirstToken([]byte(data)); got != want {
			t.Errorf("IsFirstToken(%s) = %v, want %v", data, got, want)
		}
	}
}

func TestSDKConformance(t *testing.T) {
	sdktest.Endpoint(t, New(), sdktest.EndpointCase{
		SampleUnits: []sdktest.SampleUnit{
			{Name: "ping", Data: []byte(evPing)},
			{Name: "text delta", Data: []byte(evHello), Text: "Hello"},
			{Name: "thinking delta", Data: []byte(evThinking), Reasoning: "Let me think"},
			{Name: "message_delta", Data: []byte(evMessageDelta), Usage: usage(-1, 6, -1)},
			{Name: "whole message", Data: []byte(`{"type":"message","content":[{"type":"text","text":"Hi"}]}`), Text: "Hi"},
		},
	})
}
