package rankings

import (
	"encoding/json"
	"errors"
	"github.com/aiperf-go/aiperf/internal/capturetest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestMetadata(t *testing.T) {
	cases := []struct {
		ep          *Endpoint
		path, title string
	}{
		{NewNIM(), "/v1/ranking", "Rankings Metrics"},
		{NewHFTEI(), "/rerank", "Ranking Metrics"},
		{NewCohere(), "/v2/rerank", "Ranking Metrics"},
	}
	for _, c := range cases {
		want := sdk.EndpointMetadata{EndpointPath: c.path, ServiceKind: "openai", TokenizesInput: true, MetricsTitle: c.title}
		if got := c.ep.Metadata(); got != want {
			t.Errorf("%s metadata = %+v, want %+v", c.ep.name, got, want)
		}
	}
}

// rankingsTurn is the synthetic rankings turn AIPerf's composer builds:
// Text(name="query") and Text(name="passages").
func rankingsTurn(query string, passages []string) sdk.Turn {
	return sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{query}}, {Name: "passages", Contents: passages}}}
}

// Each capture's bodies, rebuilt from the query and passages they carry.
func TestFormatPayloadCaptures(t *testing.T) {
	nimTurn := func(t *testing.T, body string) sdk.Turn {
		var b struct {
			Query    struct{ Text string }
			Passages []struct{ Text string }
		}
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatal(err)
		}
		var passages []string
		for _, p := range b.Passages {
			passages = append(passages, p.Text)
		}
		return rankingsTurn(b.Query.Text, passages)
	}
	flatTurn := func(t *testing.T, body string) sdk.Turn {
		var b struct {
			Query            string
			Texts, Documents []string
		}
		if err := json.Unmarshal([]byte(body), &b); err != nil {
			t.Fatal(err)
		}
		return rankingsTurn(b.Query, append(b.Texts, b.Documents...))
	}
	cases := []struct {
		capture string
		ep      *Endpoint
		turn    func(*testing.T, string) sdk.Turn
		extra   map[string]any
		req     sdk.RequestInfo // flags AIPerf ignores for rankings
	}{
		{capture: "nim_rankings", ep: NewNIM(), turn: nimTurn},
		{capture: "nim_rankings_b3", ep: NewNIM(), turn: nimTurn}, // -b 3 ignored
		{capture: "rankings_with_isl_flag", ep: NewNIM(), turn: nimTurn, // --isl 8 ignored
			req: sdk.RequestInfo{Turn: sdk.Turn{Texts: []string{"a synthetic prompt"}}}},
		{capture: "rankings_defaults", ep: NewNIM(), turn: nimTurn},
		{capture: "rankings_empty", ep: NewNIM(), turn: nimTurn},
		{capture: "hf_tei_rankings", ep: NewHFTEI(), turn: flatTurn, extra: map[string]any{"truncate": true}},
		{capture: "cohere_rankings", ep: NewCohere(), turn: flatTurn, extra: map[string]any{"top_n": 2}},
		{capture: "rankings_file", ep: NewCohere(), turn: flatTurn},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			for i, want := range capturetest.Bodies(t, c.capture) {
				turn := c.turn(t, want)
				turn.Texts = c.req.Turn.Texts
				got, err := c.ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", ExtraInputs: c.extra, Turn: turn})
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Errorf("body %d:\ngot  %.400s\nwant %.400s", i, got, want)
				}
			}
		})
	}
}

func intp(n int) *int { return &n }

func TestFormatPayload(t *testing.T) {
	groups := func(gs ...sdk.TextGroup) sdk.Turn { return sdk.Turn{TextGroups: gs} }
	cases := []struct {
		name string
		ep   *Endpoint
		req  sdk.RequestInfo
		want string
	}{
		{name: "queries alias, first query wins, passages concatenated with empty ones kept",
			ep: NewCohere(), req: sdk.RequestInfo{Model: "m", Turn: groups(
				sdk.TextGroup{Name: "passages", Contents: []string{"p1"}},
				sdk.TextGroup{Name: "queries", Contents: []string{"q1", "q2"}},
				sdk.TextGroup{Name: "query", Contents: []string{"q3"}},
				sdk.TextGroup{Name: "passages", Contents: []string{"", "p2"}})},
			want: `{"model":"m","query":"q1","documents":["p1","","p2"]}`},
		{name: "texts and other groups ignored", ep: NewHFTEI(),
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"t"},
				TextGroups: []sdk.TextGroup{{Name: "text", Contents: []string{"x"}}, {Name: "query", Contents: []string{"q"}}}}},
			want: `{"query":"q","texts":[]}`},
		{name: "no passages is an empty list", ep: NewNIM(),
			req:  sdk.RequestInfo{Model: "m", Turn: rankingsTurn("q", nil)},
			want: `{"model":"m","query":{"text":"q"},"passages":[]}`},
		{name: "empty query is still a query", ep: NewNIM(),
			req:  sdk.RequestInfo{Model: "m", Turn: rankingsTurn("", []string{"p"})},
			want: `{"model":"m","query":{"text":""},"passages":[{"text":"p"}]}`},
		{name: "turn model, max tokens and streaming ignored, extras then turn extra, no HTML escaping", ep: NewNIM(),
			req: sdk.RequestInfo{Model: "m", Streaming: true, ExtraInputs: map[string]any{"truncate": "END", "top_n": 3},
				Turn: func() sdk.Turn {
					t := rankingsTurn(`"<q>"&`, []string{"p"})
					t.Model, t.MaxTokens, t.Extra = "tm", intp(5), map[string]any{"top_n": 1}
					return t
				}()},
			want: `{"model":"tm","query":{"text":"\"<q>\"&"},"passages":[{"text":"p"}],"top_n":1,"truncate":"END"}`},
		{name: "TEI needs no model", ep: NewHFTEI(), req: sdk.RequestInfo{Turn: rankingsTurn("q", []string{"a", "b"})},
			want: `{"query":"q","texts":["a","b"]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.ep.FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestFormatPayloadErrors(t *testing.T) {
	_, err := NewNIM().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"},
		TextGroups: []sdk.TextGroup{{Name: "passages", Contents: []string{"p"}}}}})
	if !errors.Is(err, ErrNoQuery) || !strings.HasPrefix(err.Error(), "nim_rankings: format payload: rankings request requires a text with name 'query' or 'queries'") {
		t.Errorf("no query: err = %v", err)
	}
	_, err = NewCohere().FormatPayload(sdk.RequestInfo{Turn: rankingsTurn("q", nil)})
	if err == nil || !strings.Contains(err.Error(), "cohere_rankings: format payload: no model") {
		t.Errorf("no model: err = %v", err)
	}
	_, err = NewHFTEI().FormatPayload(sdk.RequestInfo{Model: "m", Turn: rankingsTurn("q", nil),
		History: []sdk.HistoryEntry{{Role: "user", Text: "x"}}})
	if !errors.Is(err, ErrMultiTurn) || !strings.HasPrefix(err.Error(), "hf_tei_rankings: ") {
		t.Errorf("second turn: err = %v", err)
	}
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name  string
		ep    *Endpoint
		data  string
		count int
		err   string
	}{
		// What the fake server answered in the captures.
		{name: "nim fake server", ep: NewNIM(), data: `{"rankings":[{"index":0,"logit":1.0},{"index":1,"logit":0.9},{"index":2,"logit":0.8}]}`, count: 3},
		{name: "tei fake server", ep: NewHFTEI(), data: `[{"index":0,"score":0.9},{"index":1,"score":0.8}]`, count: 2},
		{name: "cohere fake server", ep: NewCohere(), data: `{"id":"rr-1","results":[{"index":0,"relevance_score":0.9},{"index":1,"relevance_score":0.8}],"meta":{"billed_units":{"search_units":1}}}`, count: 2},
		// rankings_empty: the server answered {} (AIPerf: no content).
		{name: "nim empty object", ep: NewNIM(), data: `{}`},
		{name: "nim empty list", ep: NewNIM(), data: `{"rankings":[]}`},
		{name: "nim missing field", ep: NewNIM(), data: `{"results":[{"index":0}]}`},
		{name: "tei empty list", ep: NewHFTEI(), data: `[]`},
		{name: "tei results object", ep: NewHFTEI(), data: `{"results":[{"index":0,"score":0.1}]}`, count: 1},
		{name: "tei object without results", ep: NewHFTEI(), data: `{"rankings":[{"index":0}]}`},
		{name: "cohere empty results", ep: NewCohere(), data: `{"results":[]}`},
		{name: "cohere done", ep: NewCohere(), data: `[DONE]`},
		{name: "nim rankings not a list is kept as one item", ep: NewNIM(), data: `{"rankings":{"index":0}}`, count: 1},
		{name: "nim top-level list", ep: NewNIM(), data: `[{"index":0}]`, err: "nim_rankings: response is not a JSON object"},
		{name: "cohere top-level list", ep: NewCohere(), data: `[{"index":0}]`, err: "cohere_rankings: response is not a JSON object"},
		{name: "tei scalar", ep: NewHFTEI(), data: `"ranked"`, err: "hf_tei_rankings: response is not a JSON object"},
		{name: "cohere results not a list", ep: NewCohere(), data: `{"results":{"index":0}}`, err: `"results" is not a list`},
		{name: "cohere result not an object", ep: NewCohere(), data: `{"results":[{"index":0},3]}`, err: "results[1] is not an object"},
		{name: "malformed", ep: NewHFTEI(), data: `[{"index":`, err: "hf_tei_rankings: malformed response JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.ep.ParseResponse([]byte(c.data))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Usage != nil || p.Text != "" {
				t.Errorf("parsed %+v: want no usage and no text", p)
			}
			if c.count == 0 {
				if p.HasContent() {
					t.Errorf("parsed %+v, want no content", p)
				}
				return
			}
			if p.Result == nil || p.Result.Kind != sdk.ResultRankings || p.Result.Count != c.count {
				t.Errorf("result = %+v, want %d rankings", p.Result, c.count)
			}
		})
	}
}
