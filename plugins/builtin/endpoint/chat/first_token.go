package chat

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

var _ sdk.FirstTokenDetector = (*Endpoint)(nil)

// IsFirstToken implements sdk.FirstTokenDetector: it reports what
// ParseResponse(data).HasContent() would, reading only whether the chosen
// message's content, reasoning_content or reasoning is non-empty, so
// role-only deltas, usage chunks and [DONE] cost no allocation. Shapes the
// scanner leaves alone (tool calls, wrong types, bad syntax) go through
// the full parse; malformed data is not a first token.
func (*Endpoint) IsFirstToken(data []byte) bool {
	if openai.IsEmptyUnit(data) {
		return false
	}
	var f firstTokenScan
	if scanFirstToken(data, &f) {
		return f.hasContent()
	}
	p, err := parseSlow(data)
	return err == nil && p.HasContent()
}

// firstTokenScan mirrors flatResponse with presence bits instead of text.
type firstTokenScan struct {
	object               string
	hasChoice            bool
	hasDelta, hasMessage bool
	delta, message       messagePresence
}

type messagePresence struct {
	content, reasoningContent, reasoning bool
}

// hasContent applies ParseResponse's choice of message (see pick).
func (f *firstTokenScan) hasContent() bool {
	if !f.hasChoice {
		return false
	}
	var m *messagePresence
	switch {
	case f.object == "chat.completion":
		m = presentIf(f.hasMessage, &f.message)
	case f.object == "chat.completion.chunk":
		m = presentIf(f.hasDelta, &f.delta)
	case f.hasDelta:
		m = &f.delta
	default:
		m = presentIf(f.hasMessage, &f.message)
	}
	return m != nil && (m.content || m.reasoningContent || m.reasoning)
}

func presentIf(ok bool, m *messagePresence) *messagePresence {
	if ok {
		return m
	}
	return nil
}

// scanFirstToken walks the shapes scanResponse handles and fails on the
// same ones, so both paths agree on which inputs need encoding/json.
func scanFirstToken(data []byte, f *firstTokenScan) bool {
	s := openai.NewScanner(data)
	s.Object(func(key []byte) {
		switch string(key) {
		case "object":
			switch string(s.StringBytes()) {
			case "chat.completion":
				f.object = "chat.completion"
			case "chat.completion.chunk":
				f.object = "chat.completion.chunk"
			default:
				f.object = ""
			}
		case "choices":
			if s.Null() {
				return
			}
			s.Array(func(i int) {
				if i > 0 {
					s.Skip()
					return
				}
				f.hasChoice = true
				if s.Peek() != '{' {
					s.Fail()
					return
				}
				s.Object(func(key []byte) {
					switch string(key) {
					case "delta":
						f.hasDelta = scanPresence(&s, &f.delta)
					case "message":
						f.hasMessage = scanPresence(&s, &f.message)
					default:
						s.Skip()
					}
				})
			})
		case "usage":
			// Usage never makes a first token; its shape only matters to
			// ParseResponse, which tolerates wrong types there too.
			s.Skip()
		default:
			s.Skip()
		}
	})
	return s.End()
}

// scanPresence reads a message object into m; it reports false for null.
func scanPresence(s *openai.Scanner, m *messagePresence) bool {
	if s.Null() {
		return false
	}
	s.Object(func(key []byte) {
		switch string(key) {
		case "content":
			m.content = s.NonEmptyString()
		case "reasoning_content":
			m.reasoningContent = s.NonEmptyString()
		case "reasoning":
			m.reasoning = s.NonEmptyString()
		case "tool_calls":
			// As in scanMessage: tool calls go to the full parse.
			if s.Null() {
				return
			}
			s.Array(func(int) { s.Fail() })
		default:
			s.Skip()
		}
	})
	return true
}
