package transport

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// chatStream is a realistic OpenAI chat completion stream: n content chunks,
// a usage chunk and [DONE].
func chatStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-9f8e7d6c5b4a","object":"chat.completion.chunk","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" token%d"},"logprobs":null,"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"chatcmpl-9f8e7d6c5b4a","object":"chat.completion.chunk","created":1749678185,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":550,"completion_tokens":100,"total_tokens":650}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// part is one write of a scripted response: bytes to write and flush, then
// an optional pause before the next part.
type part struct {
	data  string
	pause time.Duration
}

// scripted serves an SSE response written in flushed parts.
func scripted(parts ...part) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		for _, p := range parts {
			if _, err := w.Write([]byte(p.data)); err != nil {
				return
			}
			f.Flush()
			if p.pause > 0 {
				select {
				case <-time.After(p.pause):
				case <-r.Context().Done():
					return
				}
			}
		}
	}
}

// mustNotFail stops the test when a record carries an error.
func mustNotFail(t *testing.T, err *sdk.ErrorDetails) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected record error: %+v", err)
	}
}
