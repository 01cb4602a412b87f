package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/app"
)

// A server that answers 200 without content fails every request, as AIPerf
// 0.13 records them (InvalidInferenceResultError), and the run exits with
// the all-failed status; the same answers gzip'd decode to the same verdict,
// and a gzip'd stream with content succeeds.
func TestProfileEmptySuccessesAreErrors(t *testing.T) {
	const noContent = "InvalidInferenceResultError('Invalid inference result: No responses with actual content were received from the server (only usage/metadata, null/empty data, or [DONE] markers)')"
	const usage = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":0,"total_tokens":8}}`
	const content = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hello there"},"finish_reason":null}]}`
	cases := []struct {
		name      string
		streaming bool
		gzip      bool
		body      string
		wantCode  int
		wantErr   string // "" = every record succeeds
	}{
		{name: "empty choices", body: `{"id":"c1","object":"chat.completion","model":"m","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":0}}`,
			wantCode: app.ExitFailedRequests, wantErr: noContent},
		{name: "usage-only stream", streaming: true, body: "data: " + usage + "\n\ndata: [DONE]\n\n",
			wantCode: app.ExitFailedRequests, wantErr: noContent},
		{name: "done-only stream", streaming: true, body: "data: [DONE]\n\n",
			wantCode: app.ExitFailedRequests, wantErr: noContent},
		{name: "gzip done-only stream", streaming: true, gzip: true, body: "data: [DONE]\n\n",
			wantCode: app.ExitFailedRequests, wantErr: noContent},
		{name: "gzip stream with content", streaming: true, gzip: true, body: "data: " + content + "\n\ndata: " + usage + "\n\ndata: [DONE]\n\n",
			wantCode: app.ExitOK},
		{name: "corrupt gzip", gzip: true, body: "", wantCode: app.ExitFailedRequests, wantErr: "Can not decode content-encoding: gzip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload := []byte(c.body)
			if c.gzip && c.body != "" {
				var b bytes.Buffer
				w := gzip.NewWriter(&b)
				_, _ = w.Write(payload)
				_ = w.Close()
				payload = b.Bytes()
			} else if c.gzip {
				payload = []byte("this is not gzip")
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if c.streaming {
					w.Header().Set("Content-Type", "text/event-stream")
				} else {
					w.Header().Set("Content-Type", "application/json")
				}
				if c.gzip {
					w.Header().Set("Content-Encoding", "gzip")
				}
				_, _ = w.Write(payload)
			}))
			defer srv.Close()
			args := []string{"-m", "m", "-u", srv.URL, "--endpoint-type", "chat", "--request-count", "4", "--isl", "8"}
			if c.streaming {
				args = append(args, "--streaming")
			}
			r := profile(t, args...)
			if r.code != c.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, c.wantCode, r.stderr)
			}
			if len(r.records) != 4 {
				t.Fatalf("%d JSONL records, want 4", len(r.records))
			}
			wantType := "InvalidInferenceResultError"
			if c.gzip && c.body == "" {
				wantType = "ClientPayloadError"
			}
			for i, rec := range r.records {
				switch {
				case c.wantErr == "" && rec.Error != nil:
					t.Errorf("record %d failed: %+v", i, rec.Error)
				case c.wantErr != "" && rec.Error == nil:
					t.Errorf("record %d succeeded, want %q", i, c.wantErr)
				case c.wantErr != "" && (!strings.HasPrefix(rec.Error.Message, c.wantErr) || rec.Error.Type != wantType):
					t.Errorf("record %d error %s: %q, want %q", i, rec.Error.Type, rec.Error.Message, c.wantErr)
				}
			}
			if errs, ok := r.metric(t, "error_request_count"); c.wantErr != "" && (!ok || errs.Avg == nil || *errs.Avg != 4) {
				t.Errorf("error_request_count %+v, want 4", errs.Avg)
			}
			summary := string(r.summary["error_summary"])
			if c.wantErr != "" && !strings.Contains(summary, c.wantErr[:20]) {
				t.Errorf("error_summary %s does not list %q", summary, c.wantErr)
			}
		})
	}
}
