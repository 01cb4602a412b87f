package responses

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// words is the capture server's answer (fakeserver.py WORDS).
var words = []string{"Hello", " from", " the", " fake", " server", "."}

// fakeServer answers like the capture server's resp_api: typed SSE events
// when the body asks to stream, else one response object. It records the
// body it received.
func fakeServer(t *testing.T, got *[]byte) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		*got = body
		var req struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text := strings.Join(words, "")
		full := fmt.Sprintf(`{"id":"resp_1","object":"response","status":"completed","model":%q,`+
			`"output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":%q,"annotations":[]}]}],`+
			`"usage":{"input_tokens":10,"output_tokens":6,"total_tokens":16}}`, req.Model, text)
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, full)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(typ, data string) {
			_, _ = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data)
			w.(http.Flusher).Flush()
		}
		send("response.created", `{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`)
		for _, wd := range words {
			send("response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":%q}`, wd))
		}
		send("response.output_text.done", fmt.Sprintf(`{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":%q}`, text))
		send("response.completed", `{"type":"response.completed","response":`+full+`}`)
	}))
}

// TestRoundTripOverLoopback sends formatted bodies through the real
// transport to a server shaped like the capture server and parses the
// record as the core does, one ParseRecord call.
func TestRoundTripOverLoopback(t *testing.T) {
	var got []byte
	srv := fakeServer(t, &got)
	defer srv.Close()
	tr := transport.New(transport.Options{})
	defer tr.Close()
	ep := New()

	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			body, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: streaming,
				History: []sdk.HistoryEntry{{Role: "system", Text: "Be brief."}},
				Turn:    sdk.Turn{Texts: []string{" I think thou art enamoured Upon his"}, MaxTokens: intp(8)}})
			if err != nil {
				t.Fatal(err)
			}
			var rec sdk.RequestRecord
			tr.Send(context.Background(), &sdk.TransportRequest{URL: srv.URL + Path, Body: body,
				Headers: map[string]string{"Content-Type": "application/json"}}, &rec)
			if rec.Error != nil {
				t.Fatalf("send: %+v", rec.Error)
			}
			if string(got) != string(body) {
				t.Errorf("server got %s, want %s", got, body)
			}
			out, err := ep.ParseRecord(rec.Responses)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			var content int
			var last *sdk.Usage
			for _, p := range out {
				text.WriteString(p.Text)
				if p.HasContent() {
					content++
				}
				if p.Usage != nil {
					last = p.Usage
				}
			}
			if text.String() != "Hello from the fake server." {
				t.Errorf("text %q", text.String())
			}
			// AIPerf counts 7 content responses when streaming (6 deltas and
			// an empty-text placeholder for the deduplicated done event);
			// here the placeholder carries nothing.
			wantUnits, wantContent := 1, 1
			if streaming {
				wantUnits, wantContent = 9, 6
			}
			if len(rec.Responses) != wantUnits || content != wantContent {
				t.Errorf("%d units, %d with content; want %d and %d", len(rec.Responses), content, wantUnits, wantContent)
			}
			if !sameUsage(last, usage(10, 6, 16, -1)) {
				t.Errorf("usage %+v", last)
			}
		})
	}
}
