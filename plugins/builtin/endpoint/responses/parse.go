package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// Streaming event types that carry content or usage.
const (
	evTextDelta      = "response.output_text.delta"
	evTextDone       = "response.output_text.done"
	evReasoningDelta = "response.reasoning_text.delta"
	evToolArgsDelta  = "response.function_call_arguments.delta"
	evCompleted      = "response.completed"
)

// unit holds the fields of a streaming event and of a whole response
// object; encoding/json skips the rest (ids, annotations, status).
type unit struct {
	// Type's presence, whatever its value, makes the unit a streaming
	// event (AIPerf tests `"type" in json_obj`).
	Type   json.RawMessage `json:"type"`
	Object string          `json:"object"`

	// Streaming events.
	Delta        string          `json:"delta"`
	Text         string          `json:"text"`
	OutputIndex  json.RawMessage `json:"output_index"`
	ContentIndex json.RawMessage `json:"content_index"`
	Response     *struct {
		Usage *openai.RawUsage `json:"usage"`
	} `json:"response"`

	// A whole "response" object.
	Output     []outputItem     `json:"output"`
	OutputText string           `json:"output_text"`
	Usage      *openai.RawUsage `json:"usage"`
}

type outputItem struct {
	Type      string `json:"type"`
	Content   []part `json:"content"`
	Summary   []part `json:"summary"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type part struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// eventType is the event's "type" when it is a string ("" otherwise).
func (u *unit) eventType() string {
	var s string
	if len(u.Type) > 0 && u.Type[0] == '"' {
		_ = json.Unmarshal(u.Type, &s)
	}
	return s
}

// partKey identifies a text part of the output, AIPerf's (output_index,
// content_index); a missing index and null are the same key.
type partKey struct{ output, content string }

func (u *unit) part() partKey { return partKey{index(u.OutputIndex), index(u.ContentIndex)} }

func index(raw json.RawMessage) string {
	if s := string(raw); s != "null" {
		return s
	}
	return ""
}

// decode reads one response unit; ok is false for a unit that carries
// nothing ("[DONE]", empty data).
func decode(data []byte) (u unit, ok bool, err error) {
	if openai.IsEmptyUnit(data) {
		return u, false, nil
	}
	if err := openai.Unmarshal(Name, data, &u); err != nil {
		return u, false, err
	}
	return u, true, nil
}

// ParseResponse implements sdk.Endpoint for one SSE event's data or one
// whole non-streaming body. A unit with a "type" is a streaming event: text
// deltas and a done event's full text go to Text, reasoning deltas to
// Reasoning, function-call argument deltas to Text (generated tokens, as in
// AIPerf), and response.completed carries the usage; every other event is
// structure. A unit with "object":"response" is a whole response. A done
// event whose part already streamed deltas is deduplicated only by
// ParseRecord, which sees the whole record.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := decode(data)
	if !ok {
		return sdk.ParsedResponse{}, err
	}
	return u.parsed(), nil
}

// ParseRecord implements sdk.RecordParser. A streamed answer arrives twice:
// as output_text.delta events and again whole in output_text.done. Once a
// delta carried text for an (output_index, content_index) part, that part's
// done event parses to nothing, so the text is counted once; a part that
// only has a done event keeps its text.
func (*Endpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	out := make([]sdk.ParsedResponse, len(units))
	var streamed map[partKey]bool
	for i := range units {
		out[i].PerfNs = units[i].PerfNs
		u, ok, err := decode(units[i].Data)
		if err != nil {
			return nil, fmt.Errorf("unit %d: %w", i, err)
		}
		if !ok {
			continue
		}
		if u.Type != nil {
			switch u.eventType() {
			case evTextDelta:
				if u.Delta != "" {
					if streamed == nil {
						streamed = map[partKey]bool{}
					}
					streamed[u.part()] = true
				}
			case evTextDone:
				if streamed[u.part()] {
					// AIPerf keeps an empty-text response here; an empty
					// ParsedResponse is not content in this SDK (see
					// sdk.ParsedResponse.HasContent).
					continue
				}
			}
		}
		p := u.parsed()
		p.PerfNs = units[i].PerfNs
		out[i] = p
	}
	return out, nil
}

// IsFirstToken implements sdk.FirstTokenDetector: the first event with
// generated content, not response.created and the other envelopes.
func (e *Endpoint) IsFirstToken(data []byte) bool {
	p, err := e.ParseResponse(data)
	return err == nil && p.HasContent()
}

func (u *unit) parsed() sdk.ParsedResponse {
	if u.Type != nil {
		return u.event()
	}
	if u.Object == "response" {
		return u.whole()
	}
	return sdk.ParsedResponse{}
}

func (u *unit) event() sdk.ParsedResponse {
	switch u.eventType() {
	case evTextDelta, evToolArgsDelta:
		return sdk.ParsedResponse{Text: u.Delta}
	case evReasoningDelta:
		return sdk.ParsedResponse{Reasoning: u.Delta}
	case evTextDone:
		return sdk.ParsedResponse{Text: u.Text}
	case evCompleted:
		if u.Response != nil {
			return sdk.ParsedResponse{Usage: u.Response.Usage.Normalize()}
		}
	}
	return sdk.ParsedResponse{}
}

// whole reads a non-streaming response's output items with AIPerf's
// precedence: reasoning summaries (with the message text alongside), else
// message output_text, else function calls (name and arguments); the
// top-level output_text is the fallback.
func (u *unit) whole() sdk.ParsedResponse {
	out := sdk.ParsedResponse{Usage: u.Usage.Normalize()}
	var text, reasoning, tool strings.Builder
	for i := range u.Output {
		item := &u.Output[i]
		switch item.Type {
		case "reasoning":
			appendParts(&reasoning, item.Summary, "summary_text")
		case "message":
			appendParts(&text, item.Content, "output_text")
		case "function_call":
			tool.WriteString(item.Name)
			tool.WriteString(item.Arguments)
		}
	}
	switch {
	case reasoning.Len() > 0:
		out.Reasoning, out.Text = reasoning.String(), text.String()
	case text.Len() > 0:
		out.Text = text.String()
	case tool.Len() > 0:
		out.Text = tool.String()
	default:
		out.Text = u.OutputText
	}
	return out
}

func appendParts(b *strings.Builder, parts []part, typ string) {
	for _, p := range parts {
		if p.Type == typ {
			b.WriteString(p.Text)
		}
	}
}
