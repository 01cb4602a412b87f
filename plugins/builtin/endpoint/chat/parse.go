package chat

import (
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// response holds only the fields parsing needs, so encoding/json skips the
// rest of each chunk (ids, logprobs, finish reasons) without building them.
type response struct {
	Object  string           `json:"object"`
	Choices []choice         `json:"choices"`
	Usage   *openai.RawUsage `json:"usage"`
}

type choice struct {
	Delta   *message `json:"delta"`
	Message *message `json:"message"`
}

type message struct {
	Content          string     `json:"content"`
	ReasoningContent string     `json:"reasoning_content"`
	Reasoning        string     `json:"reasoning"`
	ToolCalls        []toolCall `json:"tool_calls"`
}

type toolCall struct {
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ParseResponse implements sdk.Endpoint for one SSE data payload or one
// whole non-streaming body. "chat.completion" reads choices[0].message and
// "chat.completion.chunk" choices[0].delta; without a known object it takes
// the delta when present, else the message. reasoning_content (or reasoning)
// goes to Reasoning and content to Text, both kept when a chunk has both.
// Tool-call names and arguments count as generated text, as in AIPerf.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if openai.IsEmptyUnit(data) {
		return sdk.ParsedResponse{}, nil
	}
	var f flatResponse
	if scanResponse(data, &f) {
		var delta, msg *message
		if f.hasDelta {
			delta = &f.delta
		}
		if f.hasMessage {
			msg = &f.message
		}
		return extract(f.object, f.hasChoice, delta, msg, f.usage), nil
	}
	return parseSlow(data)
}

// parseSlow decodes with encoding/json: the reference path, and the one that
// reports malformed JSON.
func parseSlow(data []byte) (sdk.ParsedResponse, error) {
	r := new(response)
	if err := openai.Unmarshal(Name, data, r); err != nil {
		return sdk.ParsedResponse{}, err
	}
	if len(r.Choices) == 0 {
		return extract(r.Object, false, nil, nil, r.Usage), nil
	}
	return extract(r.Object, true, r.Choices[0].Delta, r.Choices[0].Message, r.Usage), nil
}

// extract turns the fields of choices[0] into the parsed unit.
func extract(object string, hasChoice bool, delta, msg *message, usage *openai.RawUsage) sdk.ParsedResponse {
	out := sdk.ParsedResponse{Usage: usage.Normalize()}
	if !hasChoice {
		return out
	}
	m := pick(object, delta, msg)
	if m == nil {
		return out
	}
	out.Text = m.Content
	out.Reasoning = m.ReasoningContent
	if out.Reasoning == "" {
		out.Reasoning = m.Reasoning
	}
	if out.Reasoning == "" && len(m.ToolCalls) > 0 {
		out.Text = appendToolCalls(m.Content, m.ToolCalls)
	}
	return out
}

func pick(object string, delta, msg *message) *message {
	switch object {
	case "chat.completion":
		return msg
	case "chat.completion.chunk":
		return delta
	}
	if delta != nil {
		return delta
	}
	return msg
}

func appendToolCalls(content string, calls []toolCall) string {
	var b strings.Builder
	b.WriteString(content)
	for _, tc := range calls {
		b.WriteString(tc.Function.Name)
		b.WriteString(tc.Function.Arguments)
	}
	return b.String()
}
