package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/payload"
)

// The endpoint's body shapes (chat's keys, stream_options, extras) are
// tested in the endpoint plugins; here Prepare is held to its own job: the
// RequestInfo it hands the endpoint and where the bodies go.

// fixtureBody is the part of a fixture payload the tests inspect.
type fixtureBody struct {
	Model string `json:"model"`
	Call  int    `json:"call"`
}

func decodeBody(t *testing.T, payload []byte) fixtureBody {
	t.Helper()
	var b fixtureBody
	if err := json.Unmarshal(payload, &b); err != nil {
		t.Fatalf("payload is not JSON: %v\n%s", err, payload)
	}
	return b
}

func TestPreparePayloadPerTurn(t *testing.T) {
	dataset := func() []sdk.Conversation {
		return []sdk.Conversation{
			{SessionID: "s0", Turns: []sdk.Turn{{Texts: []string{"Hello there"}, MaxTokens: intp(7)}}},
			{SessionID: "s1", Turns: []sdk.Turn{
				{Texts: []string{"first turn"}},
				{Texts: []string{"second ", "turn"}, Role: "system", Extra: map[string]any{"temperature": 0.5}},
			}},
		}
	}
	cases := []struct {
		name         string
		streaming    bool
		legacy       bool
		includeUsage bool
		extra        map[string]any
	}{
		{name: "non-streaming"},
		{name: "streaming"},
		{name: "streaming with usage", streaming: true, includeUsage: true},
		{name: "usage only applies to streams", includeUsage: true},
		{name: "legacy max_tokens", legacy: true},
		{name: "extra inputs", streaming: true, extra: map[string]any{"ignore_eos": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := &recordingEndpoint{}
			convs := dataset()
			reqs, _, err := Prepare(ep, convs, PrepareOptions{Models: []string{"m"}, Streaming: c.streaming,
				UseLegacyMaxTokens: c.legacy, IncludeUsage: c.includeUsage, ExtraInputs: c.extra})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 3 || len(ep.got) != 3 {
				t.Fatalf("%d prepared requests from %d FormatPayload calls, want one per turn (3)", len(reqs), len(ep.got))
			}
			want := []struct {
				conv string
				turn int
				text string
			}{{"s0", 0, "Hello there"}, {"s1", 0, "first turn"}, {"s1", 1, "second turn"}}
			k := 0
			for _, conv := range dataset() {
				for _, turn := range conv.Turns {
					r := reqs[k]
					text, _, _ := r.Inputs(ep, nil, r.Payload, false)
					if r.ConversationID != want[k].conv || r.TurnIndex != want[k].turn || text != want[k].text {
						t.Errorf("request %d = {%s, %d, %q}, want %+v", k, r.ConversationID, r.TurnIndex, text, want[k])
					}
					// The endpoint got exactly this turn and the run's settings,
					// with no history: later turns are re-rendered when sent.
					info := sdk.RequestInfo{Model: "m", Streaming: c.streaming, Turn: turn, UseLegacyMaxTokens: c.legacy,
						IncludeUsage: c.streaming && c.includeUsage, ExtraInputs: c.extra}
					if !reflect.DeepEqual(ep.got[k], info) {
						t.Errorf("request %d: RequestInfo\n%+v\nwant\n%+v", k, ep.got[k], info)
					}
					// The payload is the body the endpoint returned for this turn.
					if b := decodeBody(t, r.Payload); b.Call != k+1 {
						t.Errorf("request %d carries the body of call %d", k, b.Call)
					}
					// A multi-turn session keeps its turns for re-rendering; a
					// single-turn one only what the send path reads (the body
					// holds the prompt, once), here nothing: the shared empty turn.
					keep := turn
					if len(conv.Turns) == 1 {
						keep = sdk.Turn{}
						if r.Turn != &emptyTurn {
							t.Errorf("request %d has its own empty turn, want the shared one", k)
						}
					}
					if !reflect.DeepEqual(*r.Turn, keep) {
						t.Errorf("request %d keeps turn %+v, want %+v", k, *r.Turn, keep)
					}
					k++
				}
			}
			// MaxTokens travels with the request.
			if reqs[0].MaxTokens == nil || *reqs[0].MaxTokens != 7 || reqs[1].MaxTokens != nil {
				t.Errorf("MaxTokens = %v, %v; want 7, nil", reqs[0].MaxTokens, reqs[1].MaxTokens)
			}
		})
	}
}

func TestPrepareRoundRobinModelsOverConversations(t *testing.T) {
	// A function: Prepare clears what it has rendered of single-turn
	// conversations, so every case gets its own dataset.
	convs := func() []sdk.Conversation {
		return []sdk.Conversation{
			{SessionID: "c0", Turns: []sdk.Turn{{Texts: []string{"a"}}}},
			{SessionID: "c1", Turns: []sdk.Turn{{Texts: []string{"b"}}, {Texts: []string{"c"}}}},
			{SessionID: "c2", Turns: []sdk.Turn{{Texts: []string{"d"}}}},
			{SessionID: "c3", Turns: []sdk.Turn{{Texts: []string{"e"}, Model: "pinned"}}},
			{SessionID: "c4", Turns: []sdk.Turn{{Texts: []string{"f"}}}},
		}
	}
	cases := []struct {
		name   string
		models []string
		want   []string // per prepared request
	}{
		{name: "one model", models: []string{"only"}, want: []string{"only", "only", "only", "only", "pinned", "only"}},
		// Every turn of a conversation keeps the conversation's model.
		{name: "two models", models: []string{"A", "B"}, want: []string{"A", "B", "B", "A", "pinned", "A"}},
		{name: "three models", models: []string{"A", "B", "C"}, want: []string{"A", "B", "B", "C", "pinned", "B"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := &recordingEndpoint{}
			reqs, _, err := Prepare(ep, convs(), PrepareOptions{Models: c.models})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(c.want) {
				t.Fatalf("%d requests, want %d", len(reqs), len(c.want))
			}
			for i, r := range reqs {
				if r.Model != c.want[i] {
					t.Errorf("request %d (%s turn %d): model %q, want %q", i, r.ConversationID, r.TurnIndex, r.Model, c.want[i])
				}
				if got := ep.got[i].Model; got != r.Model {
					t.Errorf("request %d: endpoint asked for model %q, PreparedRequest.Model %q", i, got, r.Model)
				}
				if got := decodeBody(t, r.Payload).Model; got != r.Model {
					t.Errorf("request %d: payload model %q, PreparedRequest.Model %q", i, got, r.Model)
				}
			}
		})
	}
}

// countingForbidden fails any count: a cached ISL must not tokenize again.
type countingForbidden struct{ wordTokenizer }

func (countingForbidden) Count(string) int { panic("counted twice") }

func TestPrepareInputTokens(t *testing.T) {
	tok := wordTokenizer{}
	noTokenize := &recordingEndpoint{meta: func(m *sdk.EndpointMetadata) { m.TokenizesInput = false }}
	long := strings.Repeat("Shall I compare thee to a summer's day? ", 5)
	cases := []struct {
		name  string
		ep    sdk.Endpoint
		tok   sdk.Tokenizer
		texts []string
		want  *int
	}{
		{name: "the prompt is counted", ep: chatFixture{}, tok: tok, texts: []string{long}, want: intp(40)},
		{name: "several texts are counted joined", ep: chatFixture{}, tok: tok, texts: []string{"Hel", "lo"}, want: intp(1)},
		{name: "endpoint does not tokenize input", ep: noTokenize, tok: tok, texts: []string{long}, want: nil},
		{name: "no tokenizer", ep: chatFixture{}, tok: nil, texts: []string{long}, want: nil},
		// AIPerf tokenizes an empty content string too: ISL 0, not absent.
		{name: "empty prompt", ep: chatFixture{}, tok: tok, texts: []string{""}, want: intp(0)},
		{name: "no text at all", ep: chatFixture{}, tok: tok, texts: nil, want: intp(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			convs := []sdk.Conversation{{SessionID: "s", Turns: []sdk.Turn{{Texts: c.texts}}}}
			reqs, _, err := Prepare(c.ep, convs, PrepareOptions{Models: []string{"m"}, Tokenizer: c.tok})
			if err != nil {
				t.Fatal(err)
			}
			text, got, _ := reqs[0].Inputs(c.ep, c.tok, reqs[0].Payload, c.ep.Metadata().TokenizesInput)
			switch {
			case c.want == nil && got != nil:
				t.Errorf("InputTokens = %d, want absent", *got)
			case c.want != nil && got == nil:
				t.Errorf("InputTokens absent, want %d", *c.want)
			case c.want != nil && *got != *c.want:
				t.Errorf("InputTokens = %d, want %d", *got, *c.want)
			}
			if want := strings.Join(c.texts, ""); text != want {
				t.Errorf("InputText %q, want %q", text, want)
			}
			// Counted once per prepared body: a second record reads the cache.
			if _, again, _ := reqs[0].Inputs(c.ep, countingForbidden{}, reqs[0].Payload, c.ep.Metadata().TokenizesInput); (again == nil) != (got == nil) ||
				(again != nil && *again != *got) {
				t.Errorf("second read %v, want the cached %v", again, got)
			}
		})
	}
	// The joined count differs from the per-text sum, so the case above
	// really checks that texts are joined before counting.
	if tok.Count("Hello") == tok.Count("Hel")+tok.Count("lo") {
		t.Fatal("test premise: \"Hel\"+\"lo\" must count differently from \"Hello\"")
	}
}

func TestPrepareErrors(t *testing.T) {
	one := []sdk.Conversation{{SessionID: "sess-9", Turns: []sdk.Turn{{Texts: []string{"x"}}}}}
	cases := []struct {
		name   string
		convs  []sdk.Conversation
		models []string
		want   []string
	}{
		{name: "nil dataset", convs: nil, models: []string{"m"}, want: []string{"dataset is empty"}},
		{name: "empty dataset", convs: []sdk.Conversation{}, models: []string{"m"}, want: []string{"dataset is empty"}},
		{name: "no model", convs: one, models: nil, want: []string{"no model name given"}},
		// An empty model name reaches the endpoint, which refuses to format.
		{name: "endpoint format error", convs: one, models: []string{""},
			want: []string{"format payload for conversation sess-9 turn 0", "fixture: no model"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs, inputs, err := Prepare(chatFixture{}, c.convs, PrepareOptions{Models: c.models})
			if err == nil {
				t.Fatalf("no error; got %d requests", len(reqs))
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if reqs != nil || inputs != nil {
				t.Errorf("error with results: %d requests, %d inputs", len(reqs), len(inputs))
			}
		})
	}
}

func TestPrepareInputsMatchPayloads(t *testing.T) {
	convs := []sdk.Conversation{
		{SessionID: "a", Turns: []sdk.Turn{{Texts: []string{"one"}}}},
		{SessionID: "b", Turns: []sdk.Turn{{Texts: []string{"two"}}, {Texts: []string{"three"}}, {Texts: []string{"four"}}}},
		{SessionID: "c", Turns: []sdk.Turn{{Texts: []string{"five"}, MaxTokens: intp(3)}}},
	}
	// Every body names its FormatPayload call, so a payload filed under the
	// wrong turn cannot match by accident.
	reqs, inputs, err := Prepare(&recordingEndpoint{}, convs, PrepareOptions{Models: []string{"m1", "m2"}, Streaming: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != len(convs) {
		t.Fatalf("%d input entries, want one per conversation (%d)", len(inputs), len(convs))
	}
	k := 0
	for i, in := range inputs {
		if in.SessionID != convs[i].SessionID {
			t.Errorf("entry %d session %q, want %q", i, in.SessionID, convs[i].SessionID)
		}
		if len(in.Payloads) != len(convs[i].Turns) {
			t.Fatalf("entry %s: %d payloads, want %d", in.SessionID, len(in.Payloads), len(convs[i].Turns))
		}
		for ti, p := range in.Payloads {
			r := reqs[k]
			if r.ConversationID != in.SessionID || r.TurnIndex != ti || !bytes.Equal(p, r.Payload) {
				t.Errorf("entry %s payload %d differs from request %d (%s turn %d)", in.SessionID, ti, k, r.ConversationID, r.TurnIndex)
			}
			if b := decodeBody(t, p); b.Call != k+1 {
				t.Errorf("entry %s payload %d is the body of call %d, want %d", in.SessionID, ti, b.Call, k+1)
			}
			k++
		}
	}
	if k != len(reqs) {
		t.Errorf("inputs hold %d payloads, %d requests were prepared", k, len(reqs))
	}
}

// A cancelled preparation stops at the next batch of conversations instead
// of rendering a large dataset to the end.
func TestPrepareContextCancelled(t *testing.T) {
	convs := make([]sdk.Conversation, 3000)
	for i := range convs {
		convs[i] = sdk.Conversation{SessionID: fmt.Sprint(i), Turns: []sdk.Turn{{Texts: []string{"hi"}}}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := PrepareContext(ctx, chatFixture{}, convs, PrepareOptions{Models: []string{"m"}})
	if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "request 1024 of the dataset") {
		t.Fatalf("err %v", err)
	}
}

// extractCounter is an endpoint that counts how often a body is walked for
// its inputs.
type extractCounter struct {
	recordingEndpoint
	walks atomic.Int32
}

func (e *extractCounter) ExtractInputs(body []byte) (payload.Inputs, error) {
	e.walks.Add(1)
	return payload.Extract(body, payload.OpenAI)
}

// A prepared body sent many times is walked for its inputs twice at most
// (the second record keeps what it carries); any other body every time.
// Every record gets the same text and count either way.
func TestInputsOfAPreparedBodyAreReadOnceItRepeats(t *testing.T) {
	ep := &extractCounter{}
	reqs, _, err := Prepare(ep, []sdk.Conversation{{SessionID: "s", Turns: []sdk.Turn{{Texts: []string{"a b c"}}}}},
		PrepareOptions{Models: []string{"m"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &reqs[0]
	tok := wordTokenizer{}
	for i := range 5 {
		text, n, in := r.Inputs(ep, tok, r.Payload, true)
		if text != "a b c" || n == nil || *n != 3 || len(in.Texts) != 1 {
			t.Fatalf("send %d: text %q, tokens %v, inputs %+v; want \"a b c\", 3", i, text, n, in)
		}
	}
	if got := ep.walks.Load(); got != 2 {
		t.Errorf("the prepared body was walked %d times for 5 records, want 2", got)
	}
	other := append([]byte(nil), r.Payload...) // same bytes, another body (a later turn's)
	for range 3 {
		r.Inputs(ep, tok, other, true)
	}
	if got := ep.walks.Load(); got != 5 {
		t.Errorf("%d walks after 3 records of another body, want 5: only the prepared body is kept", got)
	}
}
