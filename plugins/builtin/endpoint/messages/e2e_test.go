package messages

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/records"
	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// words is the capture server's answer (fakeserver.py WORDS).
var words = []string{"Hello", " from", " the", " fake", " server", "."}

// fakeServer answers like the capture server's messages handler, and like
// Anthropic refuses a request without its headers.
func fakeServer(t *testing.T, got *[]byte) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != Path:
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		case r.Header.Get("X-Api-Key") != "sk-test" || r.Header.Get("Authorization") != "":
			http.Error(w, `{"type":"error","error":{"type":"authentication_error"}}`, http.StatusUnauthorized)
			return
		case r.Header.Get("Anthropic-Version") != AnthropicVersion:
			http.Error(w, "anthropic-version required", http.StatusBadRequest)
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
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%q}],`+
				`"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":6}}`, req.Model, strings.Join(words, ""))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(typ, data string) {
			_, _ = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data)
			w.(http.Flusher).Flush()
		}
		send("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":%q,`+
			`"usage":{"input_tokens":10,"output_tokens":1}}}`, req.Model))
		send("content_block_start", evBlockStart)
		send("ping", evPing)
		for _, wd := range words {
			send("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%q}}`, wd))
		}
		send("content_block_stop", evBlockStop)
		send("message_delta", evMessageDelta)
		send("message_stop", evMessageStop)
	}))
}

// TestRoundTripOverLoopback sends formatted bodies with the endpoint's own
// headers through the real transport and parses the record as the core
// does, with server token counts: the split streaming usage must still give
// the input tokens (the capture reports usage_prompt_tokens 10).
func TestRoundTripOverLoopback(t *testing.T) {
	var got []byte
	srv := fakeServer(t, &got)
	defer srv.Close()
	tr := transport.New(transport.Options{})
	defer tr.Close()
	ep := New()
	headers := map[string]string{"Content-Type": "application/json"}
	for k, v := range ep.Headers("sk-test") {
		headers[k] = v
	}

	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			body, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: streaming,
				Turn: sdk.Turn{Texts: []string{" I think thou art enamoured Upon his"}, MaxTokens: intp(8)}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &sdk.RequestRecord{Streaming: streaming}
			tr.Send(context.Background(), &sdk.TransportRequest{URL: srv.URL + Path, Body: body, Headers: headers}, rec)
			if rec.Error != nil {
				t.Fatalf("send: %+v", rec.Error)
			}
			if string(got) != string(body) {
				t.Errorf("server got %s, want %s", got, body)
			}
			pr := records.Parse(ep, nil, engine.Completed{Record: rec, Request: &engine.PreparedRequest{}}, records.ServerUsage)
			if pr.Record.Error != nil {
				t.Fatalf("parse: %+v", pr.Record.Error)
			}
			var text strings.Builder
			content := 0
			for _, p := range pr.Responses {
				text.WriteString(p.Text)
				if p.HasContent() {
					content++
				}
			}
			wantContent := 1
			if streaming {
				wantContent = len(words)
			}
			if text.String() != "Hello from the fake server." || content != wantContent {
				t.Errorf("text %q in %d content units, want %d", text.String(), content, wantContent)
			}
			if pr.InputTokens == nil || *pr.InputTokens != 10 || pr.OutputTokens == nil || *pr.OutputTokens != 6 {
				t.Errorf("server counts: input %v output %v, want 10 and 6 (usage %+v)", pr.InputTokens, pr.OutputTokens, pr.Usage)
			}
		})
	}
}
