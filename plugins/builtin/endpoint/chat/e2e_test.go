package chat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// TestRoundTripOverLoopback sends a formatted body to a real HTTP server that
// checks it the way vLLM would, streams a reply, and parses every SSE event.
func TestRoundTripOverLoopback(t *testing.T) {
	var gotBody map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != Path {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &gotBody); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{vllmRoleChunk, vllmReasoningChunk, vllmContentChunk, vllmContentChunk, vllmUsageChunk, "[DONE]"} {
			io.WriteString(w, "data: "+ev+"\n\n")
		}
	}))
	defer srv.Close()

	ep := New()
	body, err := ep.FormatPayload(sdk.RequestInfo{Model: "Qwen/Qwen3-0.6B", Streaming: true,
		Turn: sdk.Turn{Texts: []string{"Shall I compare thee to a summer's day?"}, MaxTokens: intp(5)}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+ep.Metadata().StreamingPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}

	var text, reasoning strings.Builder
	var content, events int
	var lastUsage *sdk.Usage
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		events++
		p, err := ep.ParseResponse([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if p.HasContent() {
			content++
		}
		text.WriteString(p.Text)
		reasoning.WriteString(p.Reasoning)
		if p.Usage != nil {
			lastUsage = p.Usage
		}
	}
	if events != 6 || content != 3 {
		t.Errorf("events=%d content=%d, want 6 and 3", events, content)
	}
	if text.String() != " thee thee" || reasoning.String() != "Let me think" {
		t.Errorf("text=%q reasoning=%q", text.String(), reasoning.String())
	}
	if lastUsage == nil || *lastUsage.CompletionTokens != 5 || *lastUsage.TotalTokens != 17 {
		t.Errorf("usage = %+v, want completion 5 total 17", lastUsage)
	}
	so, _ := gotBody["stream_options"].(map[string]any)
	if gotBody["max_completion_tokens"] != 5.0 || so["include_usage"] != true {
		t.Errorf("server saw body %v", gotBody)
	}
}
