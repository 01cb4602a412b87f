package responses

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

// Events of one streamed answer, shaped as the OpenAI Responses API (and
// the capture server) send them.
const (
	evCreated      = `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}}`
	evInProgress   = `{"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","object":"response","status":"in_progress"}}`
	evItemAdded    = `{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}`
	evPartAdded    = `{"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":""}}`
	evDeltaHello   = `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello"}`
	evDeltaWorld   = `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":" world"}`
	evDeltaEmpty   = `{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"content_index":0,"delta":""}`
	evDone         = `{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"Hello world"}`
	evDoneOnly     = `{"type":"response.output_text.done","item_id":"msg_2","output_index":1,"content_index":0,"text":"Bye"}`
	evPartDone     = `{"type":"response.content_part.done","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hello world"}}`
	evReasoning    = `{"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"Let me think"}`
	evToolArgs     = `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"city\":"}`
	evToolArgsDone = `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"{\"city\":\"Paris\"}"}`
	evCompletedEv  = `{"type":"response.completed","sequence_number":9,"response":{"id":"resp_1","object":"response","status":"completed",` +
		`"output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Hello world","annotations":[]}]}],` +
		`"usage":{"input_tokens":10,"output_tokens":6,"total_tokens":16,"output_tokens_details":{"reasoning_tokens":2}}}}`
	evFailed = `{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"boom"}}}`
)

func usage(prompt, completion, total, reasoning int) *sdk.Usage {
	p := func(n int) *int {
		if n < 0 {
			return nil
		}
		return &n
	}
	return &sdk.Usage{PromptTokens: p(prompt), CompletionTokens: p(completion), TotalTokens: p(total), ReasoningTokens: p(reasoning)}
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
		{"text delta", evDeltaHello, "Hello", "", nil},
		{"empty delta carries nothing", evDeltaEmpty, "", "", nil},
		{"done alone carries its text", evDone, "Hello world", "", nil},
		{"reasoning delta", evReasoning, "", "Let me think", nil},
		{"function call arguments count as text", evToolArgs, `{"city":`, "", nil},
		{"function call arguments done is structure", evToolArgsDone, "", "", nil},
		{"created is structure", evCreated, "", "", nil},
		{"in progress", evInProgress, "", "", nil},
		{"item added", evItemAdded, "", "", nil},
		{"part added", evPartAdded, "", "", nil},
		{"part done", evPartDone, "", "", nil},
		{"failed", evFailed, "", "", nil},
		{"completed carries the usage only", evCompletedEv, "", "", usage(10, 6, 16, 2)},
		{"completed without usage", `{"type":"response.completed","response":{"usage":{}}}`, "", "", nil},
		{"a type of any value makes an event", `{"type":null,"object":"response","output_text":"x"}`, "", "", nil},
		{"unknown object", `{"object":"chat.completion","output_text":"x"}`, "", "", nil},
		{"wrong-typed delta is skipped", `{"type":"response.output_text.delta","delta":5}`, "", "", nil},
		// Whole responses (stream false).
		{"capture server response", `{"id":"resp_1","object":"response","status":"completed","model":"mock-model",` +
			`"output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hello from the fake server.","annotations":[]}]}],` +
			`"usage":{"input_tokens":10,"output_tokens":6,"total_tokens":16}}`, "Hello from the fake server.", "", usage(10, 6, 16, -1)},
		{"message parts joined, other part types skipped", `{"object":"response","output":[{"type":"message","content":[` +
			`{"type":"output_text","text":"a"},{"type":"refusal","refusal":"no"},{"type":"output_text","text":"b"}]},` +
			`{"type":"message","content":[{"type":"output_text","text":"c"}]}]}`, "abc", "", nil},
		{"reasoning summary wins, message text kept", `{"object":"response","output":[` +
			`{"type":"reasoning","summary":[{"type":"summary_text","text":"think "},{"type":"summary_text","text":"more"}]},` +
			`{"type":"message","content":[{"type":"output_text","text":"answer"}]},{"type":"function_call","name":"f","arguments":"{}"}]}`,
			"answer", "think more", nil},
		{"message wins over function call", `{"object":"response","output":[{"type":"function_call","name":"get_weather","arguments":"{}"},` +
			`{"type":"message","content":[{"type":"output_text","text":"ok"}]}]}`, "ok", "", nil},
		{"function calls alone: name and arguments", `{"object":"response","output":[{"type":"function_call","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},` +
			`{"type":"function_call","name":"now","arguments":""}]}`, `get_weather{"city":"Paris"}now`, "", nil},
		{"output_text fallback", `{"object":"response","output_text":"flat","usage":{"input_tokens":3}}`, "flat", "", usage(3, -1, -1, -1)},
		{"output_text fallback when output has no text", `{"object":"response","output":[{"type":"web_search_call"}],"output_text":"flat"}`, "flat", "", nil},
		{"usage only", `{"object":"response","output":[],"usage":{"input_tokens":3,"output_tokens":0}}`, "", "", usage(3, 0, -1, -1)},
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
	for _, data := range []string{`{"type":"response.output_text.delta","delta":"x"`, `{not json}`, `["response"]`} {
		if _, err := New().ParseResponse([]byte(data)); err == nil || !strings.HasPrefix(err.Error(), "responses: ") {
			t.Errorf("ParseResponse(%s) error %v, want a responses: error", data, err)
		}
	}
	units := []sdk.Response{{PerfNs: 1, Data: []byte(evDeltaHello)}, {PerfNs: 2, Data: []byte(`{"type":`)}}
	if _, err := New().ParseRecord(units); err == nil || !strings.Contains(err.Error(), "unit 1") {
		t.Errorf("ParseRecord error %v, want one naming unit 1", err)
	}
}

// TestParseRecordDeduplicatesDoneText: a part's done event repeats the text
// its deltas carried and must not count twice; a part that streamed no
// delta keeps its done text.
func TestParseRecordDeduplicatesDoneText(t *testing.T) {
	seq := []string{evCreated, evInProgress, evItemAdded, evPartAdded, evDeltaHello, evDeltaWorld, evDone, evPartDone,
		evDeltaEmpty, evDoneOnly, "[DONE]", evCompletedEv}
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
	var text strings.Builder
	var content []int
	for i, p := range out {
		if p.PerfNs != units[i].PerfNs {
			t.Errorf("unit %d: PerfNs %d, want %d", i, p.PerfNs, units[i].PerfNs)
		}
		if p.HasContent() {
			content = append(content, i)
		}
		text.WriteString(p.Text)
	}
	if got := text.String(); got != "Hello worldBye" {
		t.Errorf("record text %q, want %q (the done text of a streamed part counted once)", got, "Hello worldBye")
	}
	if want := []int{4, 5, 9}; !equalInts(content, want) {
		t.Errorf("content units %v, want %v", content, want)
	}
	if !sameUsage(out[len(out)-1].Usage, usage(10, 6, 16, 2)) {
		t.Errorf("completed usage %+v", out[len(out)-1].Usage)
	}
	// Per unit, the done event still carries its text (first-token
	// detection sees it as content, as AIPerf's per-event callers do).
	if p, _ := New().ParseResponse([]byte(evDone)); p.Text != "Hello world" {
		t.Errorf("ParseResponse(done) = %q", p.Text)
	}
}

// Parts are told apart by (output_index, content_index): a delta of part
// (0,0) does not silence the done of part (0,1).
func TestParseRecordKeysPartsByBothIndexes(t *testing.T) {
	seq := []string{
		`{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"A"}`,
		`{"type":"response.output_text.done","output_index":0,"content_index":1,"text":"B"}`,
		`{"type":"response.output_text.done","output_index":0,"content_index":0,"text":"A"}`,
		`{"type":"response.output_text.delta","delta":"C"}`,
		`{"type":"response.output_text.done","output_index":null,"text":"C"}`,
	}
	units := make([]sdk.Response, len(seq))
	for i, s := range seq {
		units[i] = sdk.Response{PerfNs: int64(i), Data: []byte(s)}
	}
	out, err := New().ParseRecord(units)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out {
		got = append(got, p.Text)
	}
	if want := "A|B||C|"; strings.Join(got, "|") != want {
		t.Errorf("texts %q, want %q", strings.Join(got, "|"), want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestIsFirstToken(t *testing.T) {
	ep := New()
	for data, want := range map[string]bool{
		evCreated: false, evInProgress: false, evItemAdded: false, evPartAdded: false, evDeltaEmpty: false,
		evCompletedEv: false, "[DONE]": false, `{"type":`: false,
		evDeltaHello: true, evReasoning: true, evToolArgs: true, evDone: true,
	} {
		if got := ep.IsFirstToken([]byte(data)); got != want {
			t.Errorf("IsFirstToken(%s) = %v, want %v", data, got, want)
		}
	}
}

func TestSDKConformance(t *testing.T) {
	sdktest.Endpoint(t, New(), sdktest.EndpointCase{
		SampleUnits: []sdktest.SampleUnit{
			{Name: "created", Data: []byte(evCreated)},
			{Name: "text delta", Data: []byte(evDeltaHello), Text: "Hello"},
			{Name: "reasoning delta", Data: []byte(evReasoning), Reasoning: "Let me think"},
			{Name: "done of another part", Data: []byte(evDoneOnly), Text: "Bye"},
			{Name: "completed", Data: []byte(evCompletedEv), Usage: usage(10, 6, 16, 2)},
		},
	})
}
