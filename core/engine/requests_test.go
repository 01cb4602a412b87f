package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/completions"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func intp(v int) *int { return &v }

// metaEndpoint is a real endpoint whose metadata is adjusted, to reach
// capability combinations no builtin endpoint has (e.g. no input tokenizing).
type metaEndpoint struct {
	sdk.Endpoint
	edit func(*sdk.EndpointMetadata)
}

func (m metaEndpoint) Metadata() sdk.EndpointMetadata {
	md := m.Endpoint.Metadata()
	m.edit(&md)
	return md
}

// chatBody is the part of a chat payload the tests inspect.
type chatBody struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
	MaxTokens           *int           `json:"max_tokens"`
	StreamOptions       map[string]any `json:"stream_options"`
	IgnoreEOS           *bool          `json:"ignore_eos"`
	Temperature         *float64       `json:"temperature"`
}

func decodeChat(t *testing.T, payload []byte) chatBody {
	t.Helper()
	var b chatBody
	if err := json.Unmarshal(payload, &b); err != nil {
		t.Fatalf("payload is not JSON: %v\n%s", err, payload)
	}
	return b
}

func TestPreparePayloadPerTurn(t *testing.T) {
	convs := []sdk.Conversation{
		{SessionID: "s0", Turns: []sdk.Turn{{Texts: []string{"Hello there"}, MaxTokens: intp(7)}}},
		{SessionID: "s1", Turns: []sdk.Turn{
			{Texts: []string{"first turn"}},
			{Texts: []string{"second ", "turn"}, Role: "system", Extra: map[string]any{"temperature": 0.5}},
		}},
	}
	cases := []struct {
		name      string
		streaming bool
		legacy    bool
		extra     map[string]any
	}{
		{name: "non-streaming", streaming: false},
		{name: "streaming asks for usage", streaming: true},
		{name: "legacy max_tokens", legacy: true},
		{name: "extra inputs merged", streaming: true, extra: map[string]any{"ignore_eos": true}},
	}
	ep := chat.New()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs, _, err := Prepare(ep, convs, PrepareOptions{Models: []string{"m"}, Streaming: c.streaming,
				UseLegacyMaxTokens: c.legacy, ExtraInputs: c.extra})
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 3 {
				t.Fatalf("%d prepared requests, want one per turn (3)", len(reqs))
			}
			want := []struct {
				conv string
				turn int
				text string
			}{{"s0", 0, "Hello there"}, {"s1", 0, "first turn"}, {"s1", 1, "second turn"}}
			k := 0
			for _, conv := range convs {
				for ti, turn := range conv.Turns {
					r := reqs[k]
					if r.ConversationID != want[k].conv || r.TurnIndex != want[k].turn || r.InputText != want[k].text {
						t.Errorf("request %d = {%s, %d, %q}, want %+v", k, r.ConversationID, r.TurnIndex, r.InputText, want[k])
					}
					// The payload is exactly what the endpoint formats for this turn.
					exp, err := ep.FormatPayload(sdk.RequestInfo{Model: "m", Streaming: c.streaming, Turn: turn,
						UseLegacyMaxTokens: c.legacy, IncludeUsage: c.streaming, ExtraInputs: c.extra})
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(r.Payload, exp) {
						t.Errorf("request %d (%s turn %d) payload\n%s\nwant\n%s", k, conv.SessionID, ti, r.Payload, exp)
					}
					b := decodeChat(t, r.Payload)
					if b.Model != "m" || b.Stream != c.streaming {
						t.Errorf("request %d: model %q stream %v", k, b.Model, b.Stream)
					}
					if got := b.StreamOptions["include_usage"] == true; got != c.streaming {
						t.Errorf("request %d: stream_options.include_usage present=%v, want %v", k, got, c.streaming)
					}
					if c.extra != nil && (b.IgnoreEOS == nil || !*b.IgnoreEOS) {
						t.Errorf("request %d: --extra-inputs not merged: %s", k, r.Payload)
					}
					wantRole := turn.Role
					if wantRole == "" {
						wantRole = "user"
					}
					if len(b.Messages) != 1 || b.Messages[0].Role != wantRole {
						t.Errorf("request %d: messages %+v", k, b.Messages)
					}
					k++
				}
			}
			// MaxTokens travels with the request and lands in the right key.
			if reqs[0].MaxTokens == nil || *reqs[0].MaxTokens != 7 || reqs[1].MaxTokens != nil {
				t.Errorf("MaxTokens = %v, %v; want 7, nil", reqs[0].MaxTokens, reqs[1].MaxTokens)
			}
			b0 := decodeChat(t, reqs[0].Payload)
			key, other := b0.MaxCompletionTokens, b0.MaxTokens
			if c.legacy {
				key, other = other, key
			}
			if key == nil || *key != 7 || other != nil {
				t.Errorf("legacy=%v: max token keys in %s", c.legacy, reqs[0].Payload)
			}
			if b2 := decodeChat(t, reqs[2].Payload); b2.Temperature == nil || *b2.Temperature != 0.5 {
				t.Errorf("turn Extra not merged: %s", reqs[2].Payload)
			}
		})
	}
}

func TestPrepareRoundRobinModelsOverConversations(t *testing.T) {
	convs := []sdk.Conversation{
		{SessionID: "c0", Turns: []sdk.Turn{{Texts: []string{"a"}}}},
		{SessionID: "c1", Turns: []sdk.Turn{{Texts: []string{"b"}}, {Texts: []string{"c"}}}},
		{SessionID: "c2", Turns: []sdk.Turn{{Texts: []string{"d"}}}},
		{SessionID: "c3", Turns: []sdk.Turn{{Texts: []string{"e"}, Model: "pinned"}}},
		{SessionID: "c4", Turns: []sdk.Turn{{Texts: []string{"f"}}}},
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
			reqs, _, err := Prepare(chat.New(), convs, PrepareOptions{Models: c.models})
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
				if got := decodeChat(t, r.Payload).Model; got != r.Model {
					t.Errorf("request %d: payload model %q, PreparedRequest.Model %q", i, got, r.Model)
				}
			}
		})
	}
}

func TestPrepareInputTokens(t *testing.T) {
	tok := tiktoken.New()
	noTokenize := metaEndpoint{Endpoint: chat.New(), edit: func(m *sdk.EndpointMetadata) { m.TokenizesInput = false }}
	long := strings.Repeat("Shall I compare thee to a summer's day? ", 5)
	cases := []struct {
		name  string
		ep    sdk.Endpoint
		tok   sdk.Tokenizer
		texts []string
		want  *int
	}{
		{name: "chat counts the prompt", ep: chat.New(), tok: tok, texts: []string{long}, want: intp(tok.Count(long))},
		{name: "completions counts the prompt", ep: completions.New(), tok: tok, texts: []string{"hello world"}, want: intp(tok.Count("hello world"))},
		{name: "several texts are counted joined", ep: chat.New(), tok: tok, texts: []string{"Hel", "lo"}, want: intp(tok.Count("Hello"))},
		{name: "endpoint does not tokenize input", ep: noTokenize, tok: tok, texts: []string{long}, want: nil},
		{name: "no tokenizer", ep: chat.New(), tok: nil, texts: []string{long}, want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			convs := []sdk.Conversation{{SessionID: "s", Turns: []sdk.Turn{{Texts: c.texts}}}}
			reqs, _, err := Prepare(c.ep, convs, PrepareOptions{Models: []string{"m"}, Tokenizer: c.tok})
			if err != nil {
				t.Fatal(err)
			}
			got := reqs[0].InputTokens
			switch {
			case c.want == nil && got != nil:
				t.Errorf("InputTokens = %d, want absent", *got)
			case c.want != nil && got == nil:
				t.Errorf("InputTokens absent, want %d", *c.want)
			case c.want != nil && *got != *c.want:
				t.Errorf("InputTokens = %d, want %d", *got, *c.want)
			}
			if want := strings.Join(c.texts, ""); reqs[0].InputText != want {
				t.Errorf("InputText %q, want %q", reqs[0].InputText, want)
			}
		})
	}
	// The joined count differs from the per-text sum, so the case above
	// really checks that texts are joined before counting.
	if tok.Count("Hello") == tok.Count("Hel")+tok.Count("lo") {
		t.Fatal("test premise: \"Hel\"+\"lo\" must tokenize differently from \"Hello\"")
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
			want: []string{"format payload for conversation sess-9 turn 0", "chat: format payload: no model"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reqs, inputs, err := Prepare(chat.New(), c.convs, PrepareOptions{Models: c.models})
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
	reqs, inputs, err := Prepare(completions.New(), convs, PrepareOptions{Models: []string{"m1", "m2"}, Streaming: true})
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
			if !json.Valid(p) {
				t.Errorf("entry %s payload %d is not JSON: %s", in.SessionID, ti, p)
			}
			k++
		}
	}
	if k != len(reqs) {
		t.Errorf("inputs hold %d payloads, %d requests were prepared", k, len(reqs))
	}
}
