package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// Payload, delta and block types. AIPerf compares them case-insensitively
// with '-' equal to '_' (CaseInsensitiveStrEnum); norm does the same.
const (
	typeMessage      = "message"
	typeMessageStart = "message_start"
	typeBlockDelta   = "content_block_delta"
	typeMessageDelta = "message_delta"

	deltaText      = "text_delta"
	deltaThinking  = "thinking_delta"
	deltaInputJSON = "input_json_delta"

	blockText     = "text"
	blockThinking = "thinking"
	blockToolUse  = "tool_use"
)

// unit holds the fields of a streaming event and of a whole message; the
// rest (ids, stop reasons, signatures, errors) is skipped by encoding/json.
type unit struct {
	Type string `json:"type"`

	// A whole message.
	Content []block          `json:"content"`
	Usage   *openai.RawUsage `json:"usage"`

	// message_start.
	Message *struct {
		Usage *openai.RawUsage `json:"usage"`
	} `json:"message"`
	// content_block_delta.
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
}

type block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Thinking string          `json:"thinking"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
}

func norm(s string) string { return strings.ReplaceAll(strings.ToLower(s), "-", "_") }

// ParseResponse implements sdk.Endpoint for one SSE event's data or one
// whole non-streaming body, dispatched on "type": a "message" is a whole
// answer; message_start carries the input usage; content_block_delta
// carries text_delta text, thinking_delta reasoning and input_json_delta
// tool arguments (generated tokens, counted as text as in AIPerf);
// message_delta carries the final usage. ping, block start/stop,
// message_stop and error events carry nothing (AIPerf only logs an error
// event; an SSE "event: error" fails the request in the transport).
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if openai.IsEmptyUnit(data) {
		return sdk.ParsedResponse{}, nil
	}
	var u unit
	if err := openai.Unmarshal(Name, data, &u); err != nil {
		return sdk.ParsedResponse{}, err
	}
	return u.parsed(), nil
}

// ParseRecord implements sdk.RecordParser. Anthropic splits streaming
// usage: message_start has the input tokens, message_delta the final
// output tokens and may omit the rest. The core keeps the last usage, so
// counts missing from it are folded in from the earlier ones (the first
// earlier unit that has a count wins; counts the last one has stay), as
// AIPerf's extract_response_data does.
func (e *Endpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	out := make([]sdk.ParsedResponse, len(units))
	last := -1
	for i := range units {
		p, err := e.ParseResponse(units[i].Data)
		if err != nil {
			return nil, fmt.Errorf("unit %d: %w", i, err)
		}
		p.PerfNs = units[i].PerfNs
		out[i] = p
		if p.Usage != nil {
			last = i
		}
	}
	if last < 0 {
		return out, nil
	}
	folded := *out[last].Usage
	for i := range last {
		if u := out[i].Usage; u != nil {
			fill(&folded.PromptTokens, u.PromptTokens)
			fill(&folded.CompletionTokens, u.CompletionTokens)
			fill(&folded.TotalTokens, u.TotalTokens)
			fill(&folded.ReasoningTokens, u.ReasoningTokens)
		}
	}
	out[last].Usage = &folded
	return out, nil
}

func fill(dst **int, v *int) {
	if *dst == nil {
		*dst = v
	}
}

// IsFirstToken implements sdk.FirstTokenDetector: the first event with
// generated content, not message_start, ping or a block start.
func (e *Endpoint) IsFirstToken(data []byte) bool {
	p, err := e.ParseResponse(data)
	return err == nil && p.HasContent()
}

func (u *unit) parsed() sdk.ParsedResponse {
	switch norm(u.Type) {
	case typeMessage:
		return u.whole()
	case typeMessageStart:
		if u.Message != nil {
			return sdk.ParsedResponse{Usage: u.Message.Usage.Normalize()}
		}
	case typeBlockDelta:
		if u.Delta == nil {
			break
		}
		switch norm(u.Delta.Type) {
		case deltaText:
			return sdk.ParsedResponse{Text: u.Delta.Text}
		case deltaThinking:
			return sdk.ParsedResponse{Reasoning: u.Delta.Thinking}
		case deltaInputJSON:
			return sdk.ParsedResponse{Text: u.Delta.PartialJSON}
		}
	case typeMessageDelta:
		return sdk.ParsedResponse{Usage: u.Usage.Normalize()}
	}
	return sdk.ParsedResponse{}
}

// whole reads a non-streaming message's content blocks: thinking goes to
// Reasoning; text and tool_use blocks (the tool's name and its input as
// compact JSON) go to Text, the text first.
func (u *unit) whole() sdk.ParsedResponse {
	out := sdk.ParsedResponse{Usage: u.Usage.Normalize()}
	var text, thinking, tool strings.Builder
	for i := range u.Content {
		b := &u.Content[i]
		switch norm(b.Type) {
		case blockText:
			text.WriteString(b.Text)
		case blockThinking:
			thinking.WriteString(b.Thinking)
		case blockToolUse:
			tool.WriteString(b.Name)
			appendInput(&tool, b.Input)
		}
	}
	out.Reasoning = thinking.String()
	out.Text = text.String()
	if out.Reasoning == "" {
		// AIPerf's ToolCallResponseData: the prose, then the tool calls.
		out.Text += tool.String()
	}
	return out
}

// appendInput writes a tool_use input that is not empty (AIPerf skips a
// falsy one: {}, [], "", 0, false, null) as compact JSON.
func appendInput(b *strings.Builder, raw json.RawMessage) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || !openai.Truthy(v) {
		return
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil {
		b.Write(c.Bytes())
	}
}
