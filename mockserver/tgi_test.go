package mockserver

import (
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

type wireTGIDetails struct {
	FinishReason    string `json:"finish_reason"`
	GeneratedTokens int    `json:"generated_tokens"`
	InputLength     int    `json:"input_length"`
	Seed            any    `json:"seed"`
}

type wireTGI struct {
	GeneratedText string          `json:"generated_text"`
	Details       *wireTGIDetails `json:"details"`
}

type wireTGIEvent struct {
	Index int `json:"index"`
	Token struct {
		ID      int     `json:"id"`
		Text    string  `json:"text"`
		Logprob float64 `json:"logprob"`
		Special bool    `json:"special"`
	} `json:"token"`
	GeneratedText *string         `json:"generated_text"`
	Details       *wireTGIDetails `json:"details"`
}

const tgiInputs = " I think thou art enamoured Upon his"

func TestTGIGenerate(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var plain, detailed wireTGI
	// AIPerf's captured huggingface_generate body.
	postOK(t, base+"/generate", `{"inputs":"`+tgiInputs+`","parameters":{"max_new_tokens":8,"temperature":0.5}}`, &plain)
	if plain.Details != nil || countTokens(plain.GeneratedText) > 8 || plain.GeneratedText == "" {
		t.Fatalf("body %+v: want text of at most 8 tokens and no details", plain)
	}
	postOK(t, base+"/generate", `{"inputs":"`+tgiInputs+`","parameters":{"max_new_tokens":12,"ignore_eos":true,"details":true}}`, &detailed)
	want := wireTGIDetails{FinishReason: "length", GeneratedTokens: 12, InputLength: countTokens(tgiInputs)}
	if detailed.Details == nil || *detailed.Details != want || countTokens(detailed.GeneratedText) != 12 {
		t.Fatalf("details %+v text %q; want %+v and 12 tokens", detailed.Details, detailed.GeneratedText, want)
	}
	var natural wireTGI
	postOK(t, base+"/generate", `{"inputs":"`+tgiInputs+`","parameters":{"details":true}}`, &natural)
	if natural.Details.FinishReason != "eos_token" || countTokens(natural.GeneratedText) != natural.Details.GeneratedTokens {
		t.Fatalf("natural stop %+v with %d tokens of text", natural.Details, countTokens(natural.GeneratedText))
	}
}

// /generate_stream sends one event per token, token.text being the only
// text AIPerf reads; the last event alone carries generated_text, equal to
// the concatenated tokens and to what /generate answers.
func TestTGIGenerateStream(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	body := `{"inputs":"` + tgiInputs + `","parameters":{"max_new_tokens":10,"ignore_eos":true,"details":true}}`
	events := streamOK(t, base+"/generate_stream", body, map[string]string{"Accept": "text/event-stream"})
	if len(events) != 10 {
		t.Fatalf("%d events, want 10", len(events))
	}
	tok := tiktoken.New()
	var sb strings.Builder
	for i, ev := range events {
		var e wireTGIEvent
		strictJSON(t, ev.data, &e)
		if e.Index != i || e.Token.Text == "" || e.Token.Special {
			t.Fatalf("event %d: %s", i, ev.data)
		}
		if ids := tok.Encode(e.Token.Text); len(ids) != 1 || ids[0] != e.Token.ID {
			t.Fatalf("event %d: token id %d, but %q encodes to %v", i, e.Token.ID, e.Token.Text, ids)
		}
		sb.WriteString(e.Token.Text)
		last := i == len(events)-1
		if (e.GeneratedText != nil) != last || (e.Details != nil) != last {
			t.Fatalf("event %d (last=%v) has generated_text %v details %v", i, last, e.GeneratedText, e.Details)
		}
		if last {
			if *e.GeneratedText != sb.String() || e.Details.GeneratedTokens != 10 || e.Details.FinishReason != "length" {
				t.Fatalf("final event %s; streamed text %q", ev.data, sb.String())
			}
		}
	}
	var whole wireTGI
	postOK(t, base+"/generate", body, &whole)
	if whole.GeneratedText != sb.String() {
		t.Fatalf("/generate said %q, the stream %q", whole.GeneratedText, sb.String())
	}
}

func TestTGIBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ path, body, wantMsg string }{
		{"/generate", `{"inputs":`, "invalid JSON body"},
		{"/generate", `{"parameters":{}}`, `"inputs"`},
		{"/generate_stream", `{"inputs":"x","parameters":{"max_new_tokens":0}}`, `"max_new_tokens" must be >= 1`},
		{"/generate", `{"inputs":"x","parameters":{"max_new_tokens":2,"min_new_tokens":3}}`, `"min_new_tokens" (3) must not exceed`},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+tc.path, tc.body), 400)
			if !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}
