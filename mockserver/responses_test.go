package mockserver

import (
	"fmt"
	"strings"
	"testing"
)

type wireResponsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

type wireResponsesItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Annotations []any  `json:"annotations"`
	} `json:"content"`
}

type wireResponse struct {
	ID        string              `json:"id"`
	Object    string              `json:"object"`
	CreatedAt int64               `json:"created_at"`
	Status    string              `json:"status"`
	Model     string              `json:"model"`
	Output    []wireResponsesItem `json:"output"`
	Usage     *wireResponsesUsage `json:"usage"`
}

type wireResponsesEvent struct {
	Type           string             `json:"type"`
	SequenceNumber int                `json:"sequence_number"`
	Response       *wireResponse      `json:"response"`
	ItemID         string             `json:"item_id"`
	OutputIndex    *int               `json:"output_index"`
	ContentIndex   *int               `json:"content_index"`
	Item           *wireResponsesItem `json:"item"`
	Part           *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Annotations []any  `json:"annotations"`
	} `json:"part"`
	Delta    *string `json:"delta"`
	Text     *string `json:"text"`
	Logprobs []any   `json:"logprobs"`
}

const responsesPrompt = " I think thou art enamoured Upon his"

// AIPerf's captured responses body (instructions from --system-prompt).
var responsesBody = `{"input":[{"role":"user","content":"` + responsesPrompt + `","type":"message"}],"model":"mock-model","stream":false,"instructions":"Be brief.","max_output_tokens":8}`

func TestResponsesNonStreaming(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var r wireResponse
	postOK(t, base+"/v1/responses", strings.Replace(responsesBody, `"max_output_tokens":8`, `"max_output_tokens":8,"ignore_eos":true`, 1), &r)
	if r.Object != "response" || r.Status != "completed" || r.Model != "mock-model" || !strings.HasPrefix(r.ID, "resp_") || r.CreatedAt == 0 {
		t.Fatalf("response %+v", r)
	}
	if len(r.Output) != 1 || r.Output[0].Type != "message" || r.Output[0].Role != "assistant" ||
		len(r.Output[0].Content) != 1 || r.Output[0].Content[0].Type != "output_text" {
		t.Fatalf("output %+v", r.Output)
	}
	text := r.Output[0].Content[0].Text
	// The instructions count toward the prompt, as a system message does.
	wantIn := countTokens("Be brief.\n" + responsesPrompt)
	if countTokens(text) != 8 || r.Usage == nil || r.Usage.InputTokens != wantIn || r.Usage.OutputTokens != 8 || r.Usage.TotalTokens != wantIn+8 {
		t.Fatalf("text %q usage %+v; want 8 output and %d input tokens", text, r.Usage, wantIn)
	}
	// A string input and an item list with typed parts read the same prompt.
	var a, b wireResponse
	postOK(t, base+"/v1/responses", `{"model":"m","input":"hello there"}`, &a)
	postOK(t, base+"/v1/responses", `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello there"},{"type":"input_image","image_url":"data:image/png;base64,AA=="}]}]}`, &b)
	if a.Output[0].Content[0].Text != b.Output[0].Content[0].Text || a.Usage.InputTokens != countTokens("hello there") || b.Usage.InputTokens != a.Usage.InputTokens {
		t.Fatalf("string input %+v vs parts input %+v", a.Usage, b.Usage)
	}
}

// The stream is the OpenAI event sequence with matching event: names and
// data types, sequence numbers counting from 0, the deltas adding up to
// the done text, and usage in response.completed.
func TestResponsesStream(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	const n = 6
	body := fmt.Sprintf(`{"model":"m","input":"%s","stream":true,"max_output_tokens":%d,"ignore_eos":true}`, responsesPrompt, n)
	events := streamOK(t, base+"/v1/responses", body, nil)
	wantTypes := []string{"response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"}
	for range n {
		wantTypes = append(wantTypes, "response.output_text.delta")
	}
	wantTypes = append(wantTypes, "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed")
	if len(events) != len(wantTypes) {
		t.Fatalf("%d events, want %d", len(events), len(wantTypes))
	}
	var deltas strings.Builder
	var parsed []wireResponsesEvent
	for i, ev := range events {
		var e wireResponsesEvent
		strictJSON(t, ev.data, &e)
		if e.Type != wantTypes[i] || ev.event != e.Type || e.SequenceNumber != i {
			t.Fatalf("event %d: event %q type %q seq %d, want %q seq %d", i, ev.event, e.Type, e.SequenceNumber, wantTypes[i], i)
		}
		if e.Type == "response.output_text.delta" {
			if e.Delta == nil || *e.Delta == "" || *e.OutputIndex != 0 || *e.ContentIndex != 0 {
				t.Fatalf("delta event %s", ev.data)
			}
			deltas.WriteString(*e.Delta)
		}
		parsed = append(parsed, e)
	}
	created, done, completed := parsed[0], parsed[4+n], parsed[len(parsed)-1]
	if created.Response == nil || created.Response.Status != "in_progress" || created.Response.Usage != nil {
		t.Fatalf("response.created %+v", created.Response)
	}
	if done.Text == nil || *done.Text != deltas.String() || countTokens(deltas.String()) != n {
		t.Fatalf("done text %v, deltas %q", done.Text, deltas.String())
	}
	r := completed.Response
	if r == nil || r.Status != "completed" || r.ID != created.Response.ID || r.Usage == nil ||
		r.Usage.OutputTokens != n || r.Usage.InputTokens != countTokens(responsesPrompt) ||
		r.Output[0].Content[0].Text != deltas.String() {
		t.Fatalf("response.completed %+v", r)
	}
	// The non-streaming answer to the same request carries the same text.
	var whole wireResponse
	postOK(t, base+"/v1/responses", strings.Replace(body, `"stream":true`, `"stream":false`, 1), &whole)
	if whole.Output[0].Content[0].Text != deltas.String() {
		t.Fatalf("non-streaming %q, streamed %q", whole.Output[0].Content[0].Text, deltas.String())
	}
	// Item ids tie the events together.
	for _, e := range parsed {
		if e.ItemID != "" && e.ItemID != r.Output[0].ID {
			t.Fatalf("event %s names item %q, the output item is %q", e.Type, e.ItemID, r.Output[0].ID)
		}
	}
}

func TestResponsesBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct{ body, wantMsg string }{
		{`{"model":"m","input":`, "invalid JSON body"},
		{`{"input":"x"}`, `"model"`},
		{`{"model":"m"}`, `"input"`},
		{`{"model":"m","input":[]}`, `"input" must be`},
		{`{"model":"m","input":[{"role":"user","content":7}]}`, "input[0].content"},
		{`{"model":"m","input":"x","max_output_tokens":0}`, `"max_output_tokens" must be >= 1`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+"/v1/responses", tc.body), 400)
			if !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}
