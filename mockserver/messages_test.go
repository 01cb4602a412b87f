package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

type wireAnthropicUsage struct {
	InputTokens              int  `json:"input_tokens"`
	OutputTokens             int  `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

type wireAnthropicMessage struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Role    string `json:"role"`
	Model   string `json:"model"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StopReason   *string            `json:"stop_reason"`
	StopSequence *string            `json:"stop_sequence"`
	Usage        wireAnthropicUsage `json:"usage"`
}

type wireAnthropicEvent struct {
	Type         string                `json:"type"`
	Message      *wireAnthropicMessage `json:"message"`
	Index        *int                  `json:"index"`
	ContentBlock *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type         string  `json:"type"`
		Text         string  `json:"text"`
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage *wireAnthropicUsage `json:"usage"`
}

type wireAnthropicError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

const messagesPrompt = " I think thou art enamoured Upon his"

func TestMessagesNonStreaming(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	// AIPerf's captured messages body, sent with and without anthropic-version.
	body := `{"model":"mock-model","messages":[{"role":"user","content":"` + messagesPrompt + `"}],"max_tokens":1024,"system":"Be brief."}`
	for _, headers := range []map[string]string{{"anthropic-version": "2023-06-01", "x-api-key": "sk-secret"}, nil} {
		resp, b := send(t, "POST", base+"/v1/messages", body, headers)
		if resp.StatusCode != http.StatusOK || strings.Contains(string(b), "sk-secret") {
			t.Fatalf("status %d body %s", resp.StatusCode, b)
		}
		var m wireAnthropicMessage
		strictJSON(t, string(b), &m)
		wantIn := countTokens("Be brief.\n" + messagesPrompt)
		if m.Type != "message" || m.Role != "assistant" || m.Model != "mock-model" || !strings.HasPrefix(m.ID, "msg_") ||
			len(m.Content) != 1 || m.Content[0].Type != "text" || m.StopReason == nil || *m.StopReason != "end_turn" {
			t.Fatalf("message %+v", m)
		}
		if m.Usage.InputTokens != wantIn || m.Usage.OutputTokens != countTokens(m.Content[0].Text) || m.Usage.CacheReadInputTokens == nil {
			t.Fatalf("usage %+v, text of %d tokens, want %d input tokens", m.Usage, countTokens(m.Content[0].Text), wantIn)
		}
	}
	var capped wireAnthropicMessage
	postOK(t, base+"/v1/messages", `{"model":"m","max_tokens":5,"ignore_eos":true,"system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{"type":"url","url":"http://x/y.png"}}]}]}`, &capped)
	if *capped.StopReason != "max_tokens" || capped.Usage.OutputTokens != 5 || countTokens(capped.Content[0].Text) != 5 || capped.Usage.InputTokens != countTokens("sys\nhi") {
		t.Fatalf("capped message %+v", capped)
	}
}

func TestMessagesStream(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	const n = 8
	// AIPerf's captured messages_stream body.
	body := fmt.Sprintf(`{"model":"mock-model","messages":[{"role":"user","content":"%s"}],"max_tokens":%d,"stream":true,"ignore_eos":true}`, messagesPrompt, n)
	events := streamOK(t, base+"/v1/messages", body, map[string]string{"anthropic-version": "2023-06-01"})
	want := []string{"message_start", "content_block_start", "ping"}
	for range n {
		want = append(want, "content_block_delta")
	}
	want = append(want, "content_block_stop", "message_delta", "message_stop")
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	var text strings.Builder
	var start, delta wireAnthropicEvent
	for i, ev := range events {
		var e wireAnthropicEvent
		strictJSON(t, ev.data, &e)
		if e.Type != want[i] || ev.event != e.Type {
			t.Fatalf("event %d: event %q type %q, want %q", i, ev.event, e.Type, want[i])
		}
		switch e.Type {
		case "message_start":
			start = e
		case "content_block_delta":
			if e.Delta == nil || e.Delta.Type != "text_delta" || e.Delta.Text == "" || *e.Index != 0 {
				t.Fatalf("delta %s", ev.data)
			}
			text.WriteString(e.Delta.Text)
		case "message_delta":
			delta = e
		}
	}
	wantIn := countTokens(messagesPrompt)
	if start.Message == nil || start.Message.Usage.InputTokens != wantIn || start.Message.StopReason != nil || len(start.Message.Content) != 0 {
		t.Fatalf("message_start %+v", start.Message)
	}
	if delta.Delta.StopReason != "max_tokens" || delta.Usage == nil || delta.Usage.OutputTokens != n || delta.Usage.InputTokens != wantIn {
		t.Fatalf("message_delta %+v usage %+v", delta.Delta, delta.Usage)
	}
	if countTokens(text.String()) != n {
		t.Fatalf("streamed %q (%d tokens), want %d", text.String(), countTokens(text.String()), n)
	}
	var whole wireAnthropicMessage
	postOK(t, base+"/v1/messages", strings.Replace(body, `"stream":true`, `"stream":false`, 1), &whole)
	if whole.Content[0].Text != text.String() {
		t.Fatalf("non-streaming %q, streamed %q", whole.Content[0].Text, text.String())
	}
}

// Errors come in Anthropic's shape, bad requests and injected ones alike.
func TestMessagesErrors(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ body, wantMsg string }{
		{`{"model":"m","messages":`, "invalid JSON body"},
		{`{"messages":[{"role":"user","content":"x"}]}`, `"model"`},
		{`{"model":"m","messages":[]}`, `"messages"`},
		{`{"model":"m","messages":[{"role":"user","content":3}]}`, "messages[0].content"},
		{`{"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":0}`, `"max_tokens" must be >= 1`},
	}
	check := func(t *testing.T, resp *http.Response, b []byte, status int, errType, wantMsg string) {
		t.Helper()
		if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d type %q, want %d JSON", resp.StatusCode, resp.Header.Get("Content-Type"), status)
		}
		var e wireAnthropicError
		if err := json.Unmarshal(b, &e); err != nil || e.Type != "error" || e.Error.Type != errType || !strings.Contains(e.Error.Message, wantMsg) {
			t.Fatalf("error body %s (%v), want type %q mentioning %q", b, err, errType, wantMsg)
		}
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			resp, b := send(t, "POST", base+"/v1/messages", tc.body, nil)
			check(t, resp, b, 400, "invalid_request_error", tc.wantMsg)
		})
	}
	failing := startServer(t, Config{Fast: true, ErrorRate: 100})
	resp, b := send(t, "POST", failing+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, nil)
	check(t, resp, b, 500, "api_error", "simulated")
}
