package records

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// chat is an OpenAI-chat-shaped endpoint; words a tokenizer whose count of
// joined pieces differs from the sum of their counts.
var (
	chat  = testfixtures.Endpoint{}
	words = testfixtures.Words{}
)

func intp(v int) *int { return &v }

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Chat chunks shaped like vLLM's.
func contentChunk(s string) string {
	return `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + jsonString(s) + `},"finish_reason":null}]}`
}

func reasoningChunk(s string) string {
	return `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":` + jsonString(s) + `}}]}`
}

func usageChunk(prompt, completion int) string {
	b, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
	return string(b)
}

const (
	roleChunk     = `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`
	nullUsage     = `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""}}],"usage":null}`
	malformed     = `{"object":"chat.completion.chunk","choices":[{"delta":{"content":"x"}`
	doneEvent     = "[DONE]"
	answerPerfOff = 1000
)

// completed builds a finished streaming request whose i-th response unit
// arrived at perf time 1000+i.
func completed(units ...string) engine.Completed {
	rec := &sdk.RequestRecord{XRequestID: "req-1", ConversationID: "conv", Streaming: true, Status: 200}
	for i, u := range units {
		rec.Responses = append(rec.Responses, sdk.Response{PerfNs: int64(answerPerfOff + i), Data: []byte(u)})
	}
	req := prepared("conv", "the prompt")
	rec.RequestBody = req.Payload
	return engine.Completed{Record: rec, Request: req}
}

// prepared is the engine's prepared request of a one-turn conversation
// with prompt, rendered by the chat fixture.
func prepared(conv, prompt string) *engine.PreparedRequest {
	reqs, _, err := engine.Prepare(chat, []sdk.Conversation{{SessionID: conv, Turns: []sdk.Turn{{Texts: []string{prompt}}}}},
		engine.PrepareOptions{Models: []string{"m"}})
	if err != nil {
		panic(err)
	}
	return &reqs[0]
}

func concat(parts ...string) string { return strings.Join(parts, "") }

func sumCounts(tok sdk.Tokenizer, parts ...string) int {
	n := 0
	for _, p := range parts {
		n += tok.Count(p)
	}
	return n
}

func chunks(f func(string) string, parts ...string) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = f(p)
	}
	return out
}

func TestParseCountsTokens(t *testing.T) {
	tok := words
	// Word pieces: the joined text is fewer tokens than the pieces counted
	// one by one, so a per-chunk count (or a chunk count) is caught.
	answer := []string{"Hel", "lo", " wor", "ld", " toge", "ther"}
	thought := []string{"Let", " me", " th", "ink", " abo", "ut it"}
	for _, parts := range [][]string{answer, thought} {
		joined := tok.Count(concat(parts...))
		if joined == sumCounts(tok, parts...) || joined == len(parts) {
			t.Fatalf("test premise: %q joined is %d tokens, per-piece sum %d, %d pieces; all must differ",
				parts, joined, sumCounts(tok, parts...), len(parts))
		}
	}
	both := append(append([]string{roleChunk}, chunks(reasoningChunk, thought...)...), chunks(contentChunk, answer...)...)
	cases := []struct {
		name               string
		units              []string
		output, reasoning  *int // nil = absent
		responses, content int
	}{
		{name: "answer only", units: append(append([]string{roleChunk}, chunks(contentChunk, answer...)...), usageChunk(2, 6), doneEvent),
			output: intp(tok.Count(concat(answer...))), responses: len(answer) + 1, content: len(answer)},
		{name: "reasoning then answer", units: append(both, doneEvent),
			output: intp(tok.Count(concat(answer...))), reasoning: intp(tok.Count(concat(thought...))),
			responses: len(answer) + len(thought), content: len(answer) + len(thought)},
		{name: "reasoning only has zero output tokens", units: append(chunks(reasoningChunk, thought...), doneEvent),
			output: intp(0), reasoning: intp(tok.Count(concat(thought...))), responses: len(thought), content: len(thought)},
		{name: "non-streaming body", units: []string{`{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"Hello world together"}}],"usage":{"prompt_tokens":2,"completion_tokens":3}}`},
			output: intp(tok.Count("Hello world together")), responses: 1, content: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cm := completed(c.units...)
			pr := Parse(chat, tok, cm, ClientTokenizer)
			if pr.Record != cm.Record || pr.Record.Error != nil {
				t.Fatalf("record %p error %+v", pr.Record, pr.Record.Error)
			}
			checkCount(t, "OutputTokens", pr.OutputTokens, c.output)
			checkCount(t, "ReasoningTokens", pr.ReasoningTokens, c.reasoning)
			if len(pr.Responses) != c.responses || len(pr.ContentResponses()) != c.content {
				t.Errorf("%d responses (%d with content), want %d (%d)", len(pr.Responses), len(pr.ContentResponses()), c.responses, c.content)
			}
			// Each kept unit keeps its arrival time.
			for _, r := range pr.Responses {
				if r.PerfNs < answerPerfOff || r.PerfNs >= answerPerfOff+int64(len(c.units)) {
					t.Errorf("response PerfNs %d is not one of the raw units'", r.PerfNs)
				}
			}
			if pr.InputText != "the prompt" || pr.InputTokens == nil || *pr.InputTokens != 2 {
				t.Errorf("input %q / %v not carried from the prepared request", pr.InputText, pr.InputTokens)
			}
		})
	}
}

func checkCount(t *testing.T, name string, got, want *int) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s = %d, want absent", name, *got)
	case want != nil && got == nil:
		t.Errorf("%s absent, want %d", name, *want)
	case want != nil && *got != *want:
		t.Errorf("%s = %d, want %d", name, *got, *want)
	}
}

func TestParseKeepsArrivalTimesInOrder(t *testing.T) {
	pr := Parse(chat, words, completed(roleChunk, contentChunk("a"), contentChunk("b"), doneEvent, contentChunk("c")), ClientTokenizer)
	var got []int64
	var text string
	for _, r := range pr.ContentResponses() {
		got = append(got, r.PerfNs)
		text += r.Text
	}
	if want := []int64{answerPerfOff + 1, answerPerfOff + 2, answerPerfOff + 4}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("content PerfNs %v, want %v", got, want)
	}
	if text != "abc" {
		t.Errorf("content text %q", text)
	}
}

func TestParseLastUsageWins(t *testing.T) {
	cases := []struct {
		name       string
		units      []string
		completion *int
	}{
		{name: "single", units: []string{contentChunk("x"), usageChunk(4, 1)}, completion: intp(1)},
		{name: "later replaces earlier", units: []string{usageChunk(4, 1), contentChunk("x"), usageChunk(4, 9)}, completion: intp(9)},
		// "usage": null normalizes to no usage and does not erase the last one.
		{name: "null usage after a real one", units: []string{contentChunk("x"), usageChunk(4, 5), nullUsage, doneEvent}, completion: intp(5)},
		{name: "no usage", units: []string{contentChunk("x"), nullUsage}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr := Parse(chat, words, completed(c.units...), ClientTokenizer)
			if c.completion == nil {
				if pr.Usage != nil {
					t.Errorf("Usage = %+v, want none", pr.Usage)
				}
				return
			}
			if pr.Usage == nil {
				t.Fatal("Usage absent")
			}
			checkCount(t, "Usage.CompletionTokens", pr.Usage.CompletionTokens, c.completion)
			checkCount(t, "Usage.PromptTokens", pr.Usage.PromptTokens, intp(4))
		})
	}
}

func TestParseMalformedUnit(t *testing.T) {
	tok := words
	t.Run("turns a valid record into a parse error", func(t *testing.T) {
		cm := completed(roleChunk, contentChunk("Hello"), malformed, contentChunk(" world"), usageChunk(2, 2), doneEvent)
		pr := Parse(chat, tok, cm, ClientTokenizer)
		err := pr.Record.Error
		if err == nil || err.Type != "ResponseParseError" || !strings.HasPrefix(err.Message, "response 2: ") {
			t.Fatalf("Error = %+v, want ResponseParseError on response 2", err)
		}
		// The processed record fails; the engine's own record is left alone
		// (it may still be reading it for multi-turn history).
		if pr.Record.Valid() || cm.Record.Error != nil {
			t.Error("the parse error must fail the processed record and leave the engine's record untouched")
		}
		// Counts would be silently wrong, so none are given.
		if pr.OutputTokens != nil || pr.ReasoningTokens != nil {
			t.Errorf("token counts on a failed record: %v %v", pr.OutputTokens, pr.ReasoningTokens)
		}
		// The units that did parse are still there (for TTFT of errors, exports).
		if n := len(pr.ContentResponses()); n != 2 {
			t.Errorf("%d content responses kept, want 2", n)
		}
	})
	t.Run("first malformed unit is the one reported", func(t *testing.T) {
		pr := Parse(chat, tok, completed(contentChunk("a"), malformed, `not json`), ClientTokenizer)
		if pr.Record.Error == nil || !strings.HasPrefix(pr.Record.Error.Message, "response 1: ") {
			t.Errorf("Error = %+v, want the first malformed unit (1)", pr.Record.Error)
		}
	})
	t.Run("keeps the error of an already failed record", func(t *testing.T) {
		cm := completed(malformed, contentChunk("partial"))
		orig := &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}
		cm.Record.Error = orig
		pr := Parse(chat, tok, cm, ClientTokenizer)
		if pr.Record.Error != orig || *orig != (sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}) {
			t.Errorf("Error = %+v, want the original HTTP 500 untouched", pr.Record.Error)
		}
		if pr.OutputTokens != nil {
			t.Errorf("OutputTokens = %d on a failed record", *pr.OutputTokens)
		}
	})
}

func TestParseWithoutTokenizer(t *testing.T) {
	pr := Parse(chat, nil, completed(reasoningChunk("hm"), contentChunk("answer")), ClientTokenizer)
	if pr.OutputTokens != nil || pr.ReasoningTokens != nil {
		t.Errorf("counts without a tokenizer: %v %v", pr.OutputTokens, pr.ReasoningTokens)
	}
	if len(pr.ContentResponses()) != 2 || pr.Record.Error != nil {
		t.Errorf("responses not parsed: %+v, %+v", pr.Responses, pr.Record.Error)
	}
}

// plainText is an endpoint whose units are bare text: chat's parser would
// fail on every one of them.
type plainText struct{ testfixtures.Endpoint }

func (plainText) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if string(data) == doneEvent {
		return sdk.ParsedResponse{}, nil
	}
	return sdk.ParsedResponse{Text: string(data)}, nil
}

func TestParseUsesTheGivenEndpoint(t *testing.T) {
	units := []string{"Hel", "lo", doneEvent}
	tok := words
	pr := Parse(plainText{}, tok, completed(units...), ClientTokenizer)
	checkCount(t, "OutputTokens", pr.OutputTokens, intp(tok.Count("Hello")))
	if len(pr.ContentResponses()) != 2 || pr.Record.Error != nil {
		t.Errorf("%d content responses (error %+v), want 2", len(pr.ContentResponses()), pr.Record.Error)
	}
}

func TestParseServerUsage(t *testing.T) {
	withReasoning := `{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":30,"total_tokens":41,"completion_tokens_details":{"reasoning_tokens":12}}}`
	cases := []struct {
		name                   string
		units                  []string
		isl, output, reasoning *int
	}{
		// The tokenizer would count 1 token for "Hello"; the server's numbers win.
		{"usage without reasoning", []string{contentChunk("Hello"), usageChunk(7, 9), doneEvent}, intp(7), intp(9), nil},
		{"reasoning is split out of completion", []string{reasoningChunk("hm"), contentChunk("Hi"), withReasoning}, intp(11), intp(18), intp(12)},
		{"last usage wins", []string{contentChunk("a"), usageChunk(1, 1), usageChunk(3, 5)}, intp(3), intp(5), nil},
		// No usage: counts stay absent, never 0 and never the client's count.
		{"no usage stays absent", []string{contentChunk("Hello"), doneEvent}, nil, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr := Parse(chat, words, completed(c.units...), ServerUsage)
			checkCount(t, "InputTokens", pr.InputTokens, c.isl)
			checkCount(t, "OutputTokens", pr.OutputTokens, c.output)
			checkCount(t, "ReasoningTokens", pr.ReasoningTokens, c.reasoning)
		})
	}
}

// batchEndpoint is the chat endpoint plus a whole-record parser that counts
// its calls, the way external plugins are called.
type batchEndpoint struct {
	sdk.Endpoint
	calls int
	fail  bool
}

func (b *batchEndpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	b.calls++
	if b.fail {
		return nil, fmt.Errorf("plugin crashed")
	}
	out := make([]sdk.ParsedResponse, len(units))
	for i, u := range units {
		p, err := b.Endpoint.ParseResponse(u.Data)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func TestParseUsesOneCallPerRecordWhenOffered(t *testing.T) {
	ep := &batchEndpoint{Endpoint: chat}
	pr := Parse(ep, words, completed(roleChunk, contentChunk("Hello"), contentChunk(" world"), doneEvent), ClientTokenizer)
	if ep.calls != 1 {
		t.Errorf("ParseRecord called %d times for one record, want 1", ep.calls)
	}
	checkCount(t, "OutputTokens", pr.OutputTokens, intp(2))
	failing := &batchEndpoint{Endpoint: chat, fail: true}
	pr = Parse(failing, words, completed(contentChunk("x")), ClientTokenizer)
	if pr.Record.Error == nil || pr.Record.Error.Type != "ResponseParseError" || !strings.Contains(pr.Record.Error.Message, "plugin crashed") {
		t.Errorf("a failing record parser gave %+v", pr.Record.Error)
	}
}

// countingWords is the word tokenizer counting its calls.
type countingWords struct {
	testfixtures.Words
	calls *int
}

func (c countingWords) Count(text string) int { *c.calls++; return c.Words.Count(text) }

// inputOnlyOff is the chat fixture declaring that it does not tokenize input.
type inputOnlyOff struct{ testfixtures.Endpoint }

func (inputOnlyOff) Metadata() sdk.EndpointMetadata {
	md := testfixtures.ChatEndpointMetadata
	md.TokenizesInput = false
	return md
}

// A later turn sent with history is counted over every message it carried:
// earlier user turns and answers, then its own text, joined with spaces.
func TestParseCountsTheConversationOfALaterTurn(t *testing.T) {
	history := []sdk.HistoryEntry{{Role: "user", Text: "first question here"}, {Role: "assistant", Text: "an answer"},
		{Role: "user", Text: "second"}, {Role: "assistant", Text: "again"}}
	// The engine records the body it sent: the fixture chat endpoint renders
	// the history, then the turn.
	later := func(units ...string) engine.Completed {
		c := completed(units...)
		c.History = history
		body, err := chat.FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"the prompt"}}, History: history})
		if err != nil {
			t.Fatal(err)
		}
		c.Record.RequestBody = body
		return c
	}
	const full = "first question here an answer second again the prompt"
	if pr := Parse(chat, words, completed(contentChunk("Hi")), ClientTokenizer); pr.InputText != "the prompt" {
		t.Errorf("InputText of a turn without history = %q, want its own text", pr.InputText)
	}

	calls := 0
	tok := countingWords{calls: &calls}
	pr := Parse(chat, tok, later(contentChunk("Hi"), usageChunk(99, 1), doneEvent), ClientTokenizer)
	checkCount(t, "InputTokens", pr.InputTokens, intp(9))
	if pr.InputText != full {
		t.Errorf("ParsedRecord.InputText = %q, want the conversation sent", pr.InputText)
	}
	// A failed later turn: error_isl covers what was sent, too.
	failed := later()
	failed.Record.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error"}
	checkCount(t, "InputTokens (failed)", Parse(chat, words, failed, ClientTokenizer).InputTokens, intp(9))

	// Server usage: prompt_tokens, and no tokenizer call for it.
	calls = 0
	pr = Parse(chat, tok, later(contentChunk("Hi"), usageChunk(99, 1), doneEvent), ServerUsage)
	checkCount(t, "InputTokens (server usage)", pr.InputTokens, intp(99))
	if calls != 0 {
		t.Errorf("the tokenizer was called %d times with --use-server-token-count", calls)
	}
	// ... except for a record with no response, which no usage can count
	// (as the prepared count of a first turn).
	checkCount(t, "InputTokens (server usage, no response)", Parse(chat, words, failed, ServerUsage).InputTokens, intp(9))

	// No tokenizer, or an endpoint that does not tokenize input: no ISL.
	checkCount(t, "InputTokens (no tokenizer)", Parse(chat, nil, later(contentChunk("Hi")), ClientTokenizer).InputTokens, nil)
	checkCount(t, "InputTokens (endpoint without ISL)", Parse(inputOnlyOff{}, words, later(contentChunk("Hi")), ClientTokenizer).InputTokens, nil)

	// A prepared body sent again is counted once: the second record of the
	// same dataset entry calls the tokenizer for its answer only.
	first, again := completed(contentChunk("Hi")), completed(contentChunk("Hi"))
	again.Request, again.Record.RequestBody = first.Request, first.Request.Payload
	calls = 0
	checkCount(t, "InputTokens (single turn)", Parse(chat, tok, first, ClientTokenizer).InputTokens, intp(2))
	if calls != 2 { // the prompt and the answer
		t.Errorf("%d tokenizer calls for the first record, want 2 (prompt and answer)", calls)
	}
	calls = 0
	checkCount(t, "InputTokens (sent again)", Parse(chat, tok, again, ClientTokenizer).InputTokens, intp(2))
	if calls != 1 {
		t.Errorf("%d tokenizer calls for the entry sent again, want 1 (its answer)", calls)
	}
}

// A 2xx record without content is AIPerf's InvalidInferenceResultError
// (ParsedResponseRecord.create_error_from_invalid), with its message, for
// either token source; the input count stays, as on AIPerf's error records.
func TestParseNoContentIsError(t *testing.T) {
	const noContent = "InvalidInferenceResultError('Invalid inference result: No responses with actual content were received from the server (only usage/metadata, null/empty data, or [DONE] markers)')"
	const noResponses = "InvalidInferenceResultError('Invalid inference result: No responses were received')"
	cases := []struct {
		name  string
		units []string
		msg   string
	}{
		{name: "no generated text", units: []string{roleChunk, nullUsage, doneEvent}, msg: noContent},
		{name: "usage only", units: []string{roleChunk, usageChunk(3, 0), doneEvent}, msg: noContent},
		{name: "done only", units: []string{doneEvent}, msg: noContent},
		{name: "empty choices", units: []string{`{"object":"chat.completion","choices":[],"usage":{"prompt_tokens":2,"completion_tokens":0}}`}, msg: noContent},
		{name: "empty body", units: []string{""}, msg: noContent},
		{name: "no responses at all", msg: noResponses},
	}
	for _, c := range cases {
		for _, src := range []TokenSource{ClientTokenizer, ServerUsage} {
			t.Run(fmt.Sprintf("%s/source %d", c.name, src), func(t *testing.T) {
				cm := completed(c.units...)
				pr := Parse(chat, words, cm, src)
				if cm.Record.Error != nil {
					t.Fatal("the engine's record was modified; Parse must mark a copy")
				}
				if pr.Record.Valid() {
					t.Fatal("record without content is valid")
				}
				if e := pr.Record.Error; e.Type != ErrTypeInvalidResult || e.Message != c.msg {
					t.Errorf("error %s: %s, want %s: %s", e.Type, e.Message, ErrTypeInvalidResult, c.msg)
				}
				if len(pr.Responses) != 0 || pr.Usage != nil || pr.OutputTokens != nil || pr.ReasoningTokens != nil {
					t.Errorf("error record keeps responses %d, usage %v, output %v, reasoning %v",
						len(pr.Responses), pr.Usage, pr.OutputTokens, pr.ReasoningTokens)
				}
				if src == ClientTokenizer && (pr.InputTokens == nil || *pr.InputTokens != 2) {
					t.Errorf("InputTokens = %v, want 2", pr.InputTokens)
				}
			})
		}
	}
}
