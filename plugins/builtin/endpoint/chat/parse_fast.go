package chat

import "github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"

// flatResponse is what the fast path reads, held by value so a plain content
// chunk is parsed with no allocation besides its text.
type flatResponse struct {
	object               string
	hasChoice            bool
	hasDelta, hasMessage bool
	delta, message       message
	usage                *openai.RawUsage
}

// scanResponse is the fast path of ParseResponse for the common chunk and
// body shapes. It returns false for any shape it does not handle (tool calls,
// wrong types, bad syntax), and ParseResponse then uses encoding/json.
func scanResponse(data []byte, f *flatResponse) bool {
	s := openai.NewScanner(data)
	s.Object(func(key []byte) {
		switch string(key) {
		case "object":
			// Only these two names change which message is read.
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
				scanChoice(&s, f)
			})
		case "usage":
			f.usage = openai.ScanUsage(&s)
		default:
			s.Skip()
		}
	})
	return s.End()
}

func scanChoice(s *openai.Scanner, f *flatResponse) {
	if s.Peek() != '{' {
		s.Fail()
		return
	}
	s.Object(func(key []byte) {
		switch string(key) {
		case "delta":
			f.hasDelta = scanMessage(s, &f.delta)
		case "message":
			f.hasMessage = scanMessage(s, &f.message)
		default:
			s.Skip()
		}
	})
}

// scanMessage reads a message object into m; it reports false for null.
func scanMessage(s *openai.Scanner, m *message) bool {
	if s.Null() {
		return false
	}
	s.Object(func(key []byte) {
		switch string(key) {
		case "content":
			m.Content = s.String()
		case "reasoning_content":
			m.ReasoningContent = s.String()
		case "reasoning":
			m.Reasoning = s.String()
		case "tool_calls":
			// Rare and nested: left to encoding/json unless null or empty.
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
