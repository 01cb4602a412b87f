package testfixtures

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Endpoint parses OpenAI-shaped responses: chat chunks (choices[0].delta
// content and reasoning_content), chat bodies (choices[0].message), text
// completions (choices[0].text) and usage. "[DONE]" and blank units carry
// nothing; malformed JSON is an error.
type Endpoint struct{}

var _ sdk.Endpoint = Endpoint{}

// Metadata describes a streaming chat endpoint.
func (Endpoint) Metadata() sdk.EndpointMetadata { return ChatEndpointMetadata }

// FormatPayload renders a minimal chat body: the history's messages (a
// later turn of a multi-turn session), then one message per text of the
// turn, with max_completion_tokens when the turn asks for a length and
// stream_options.include_usage when asked for usage.
func (Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	msgs := make([]map[string]string, 0, len(req.History)+len(req.Turn.Texts))
	for _, h := range req.History {
		msgs = append(msgs, map[string]string{"role": roleOr(h.Role), "content": h.Text})
	}
	for _, t := range req.Turn.Texts {
		msgs = append(msgs, map[string]string{"role": roleOr(req.Turn.Role), "content": t})
	}
	body := map[string]any{"model": req.Model, "messages": msgs, "stream": req.Streaming}
	if req.Turn.MaxTokens != nil {
		body["max_completion_tokens"] = *req.Turn.MaxTokens
	}
	if req.IncludeUsage {
		body["stream_options"] = map[string]bool{"include_usage": true}
	}
	return json.Marshal(body)
}

func roleOr(role string) string {
	if role == "" {
		return "user"
	}
	return role
}

type message struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content"`
}

type unit struct {
	Choices []struct {
		Delta   *message `json:"delta"`
		Message *message `json:"message"`
		Text    string   `json:"text"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens            *int `json:"prompt_tokens"`
		CompletionTokens        *int `json:"completion_tokens"`
		TotalTokens             *int `json:"total_tokens"`
		CompletionTokensDetails *struct {
			ReasoningTokens *int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

// ParseResponse parses one unit.
func (Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || bytes.Equal(t, []byte("[DONE]")) {
		return sdk.ParsedResponse{}, nil
	}
	var u unit
	if err := json.Unmarshal(t, &u); err != nil {
		return sdk.ParsedResponse{}, fmt.Errorf("fixture endpoint: %w", err)
	}
	var out sdk.ParsedResponse
	if u.Usage != nil {
		out.Usage = &sdk.Usage{PromptTokens: u.Usage.PromptTokens, CompletionTokens: u.Usage.CompletionTokens,
			TotalTokens: u.Usage.TotalTokens}
		if d := u.Usage.CompletionTokensDetails; d != nil {
			out.Usage.ReasoningTokens = d.ReasoningTokens
		}
	}
	if len(u.Choices) == 0 {
		return out, nil
	}
	c := u.Choices[0]
	switch {
	case c.Delta != nil:
		out.Text, out.Reasoning = c.Delta.Content, c.Delta.ReasoningContent
	case c.Message != nil:
		out.Text, out.Reasoning = c.Message.Content, c.Message.ReasoningContent
	default:
		out.Text = c.Text
	}
	return out, nil
}
