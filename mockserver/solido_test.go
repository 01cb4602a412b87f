package mockserver

import (
	"strings"
	"testing"
)

type wireSolidoSource struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

type wireSolido struct {
	Content string             `json:"content"`
	Sources []wireSolidoSource `json:"sources"`
}

// AIPerf's captured solido_rag body: no "stream" field even when streaming.
const solidoBody = `{"query":[" I think thou art enamoured Upon his"],"filters":{"family":"Solido","tool":"SDE"},"inference_model":"mock-model"}`

func TestSolidoRAG(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var whole wireSolido
	postOK(t, base+"/rag/api/prompt", solidoBody, &whole)
	if whole.Content == "" || len(whole.Sources) != 1 || whole.Sources[0].ID == "" || whole.Sources[0].Score != 0.9 {
		t.Fatalf("body %+v: want content and one source", whole)
	}
	var three wireSolido
	postOK(t, base+"/rag/api/prompt", `{"query":["a","b","c","d"],"inference_model":"m","max_tokens":6,"ignore_eos":true}`, &three)
	if len(three.Sources) != 3 || countTokens(three.Content) != 6 {
		t.Fatalf("4 queries, max_tokens 6: %d sources, %d tokens", len(three.Sources), countTokens(three.Content))
	}

	// The Accept header alone selects streaming, as AIPerf sends it.
	for name, headers := range map[string]map[string]string{
		"accept header": {"Accept": "text/event-stream"},
		"stream field":  nil,
	} {
		t.Run(name, func(t *testing.T) {
			body := solidoBody
			if headers == nil {
				body = strings.Replace(body, `{"query"`, `{"stream":true,"query"`, 1)
			}
			events := streamOK(t, base+"/rag/api/prompt", body, headers)
			var sb strings.Builder
			for i, ev := range events {
				var e wireSolido
				strictJSON(t, ev.data, &e)
				last := i == len(events)-1
				if last != (e.Content == "") || last != (e.Sources != nil) {
					t.Fatalf("event %d (last=%v): %s", i, last, ev.data)
				}
				sb.WriteString(e.Content)
				if last && (len(e.Sources) != 1 || e.Sources[0] != whole.Sources[0]) {
					t.Fatalf("final sources %+v, want %+v", e.Sources, whole.Sources)
				}
			}
			if sb.String() != whole.Content || len(events) != countTokens(whole.Content)+1 {
				t.Fatalf("streamed %q in %d events; non-streaming said %q", sb.String(), len(events), whole.Content)
			}
		})
	}
}

func TestSolidoBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ body, wantMsg string }{
		{`{"query":[`, "invalid JSON body"},
		{`{"inference_model":"m"}`, `"query"`},
		{`{"query":[]}`, `"query" must be`},
		{`{"query":[1]}`, `"query" must be`},
		{`{"query":"x","max_tokens":0}`, `"max_tokens" must be >= 1`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+"/rag/api/prompt", tc.body), 400)
			if !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}
