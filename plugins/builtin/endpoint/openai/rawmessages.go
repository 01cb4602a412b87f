package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// SystemPromptJoin separates a conversation's system prompt from the text of
// a system message a dataset already carries (AIPerf's
// SYSTEM_PROMPT_JOIN_SEP).
const SystemPromptJoin = "\n\n"

// SystemField splits what APIs with a single system field (Responses
// "instructions", Anthropic "system") send there from the messages: the
// conversation's system prompt, joined before a leading "system" history
// entry of the dataset, and the rest of the history.
func SystemField(system string, history []sdk.HistoryEntry) (string, []sdk.HistoryEntry) {
	if len(history) == 0 || history[0].Role != "system" {
		return system, history
	}
	own := history[0].Text
	switch {
	case system == "":
		return own, history[1:]
	case own == "":
		return system, history[1:]
	}
	return system + SystemPromptJoin + own, history[1:]
}

// SplitMessages splits a verbatim message array (sdk.Turn.RawMessages) into
// its elements, checking that each is an object. The elements alias raw.
func SplitMessages(raw json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("raw messages: not a JSON array: %w", err)
	}
	for i, it := range items {
		if b := bytes.TrimLeft(it, " \t\r\n"); len(b) == 0 || b[0] != '{' {
			return nil, fmt.Errorf("raw messages: element %d is not an object", i)
		}
	}
	return items, nil
}

// DecodeObject decodes a JSON object keeping its key order; the values stay
// verbatim (json.RawMessage), so re-encoding changes nothing but what the
// caller sets.
func DecodeObject(raw []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	obj := NewObject(4)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
		obj.Set(key, val)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return obj, nil
}

// MessageRole returns the "role" of a message object ("" when absent).
func MessageRole(msg json.RawMessage) string {
	var m struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Role
}

// PrependSystemText returns the system message msg with prefix put before
// its content, keeping the content's shape as AIPerf does: a parts list
// gets a leading text part, a non-empty string becomes
// prefix + SystemPromptJoin + content, anything else becomes prefix. Key
// order and every other field of msg are kept.
func PrependSystemText(msg json.RawMessage, prefix string) (*Object, error) {
	obj, err := DecodeObject(msg)
	if err != nil {
		return nil, fmt.Errorf("system message: %w", err)
	}
	content, _ := obj.Get("content")
	raw, _ := content.(json.RawMessage)
	switch b := bytes.TrimLeft(raw, " \t\r\n"); {
	case len(b) > 0 && b[0] == '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(b, &parts); err != nil {
			return nil, fmt.Errorf("system message content: %w", err)
		}
		merged := make([]any, 0, len(parts)+1)
		lead := NewObject(2)
		lead.Set("type", "text")
		lead.Set("text", prefix)
		merged = append(merged, lead)
		for _, p := range parts {
			merged = append(merged, p)
		}
		obj.Set("content", merged)
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("system message content: %w", err)
		}
		if s == "" {
			obj.Set("content", prefix)
		} else {
			obj.Set("content", prefix+SystemPromptJoin+s)
		}
	default:
		obj.Set("content", prefix)
	}
	return obj, nil
}

// CloseWithItems appends verbatim array elements to an array being written
// (dst ends in '[' or in the ',' after an element) and closes it.
func CloseWithItems(dst []byte, items []json.RawMessage) []byte {
	for _, it := range items {
		dst = append(dst, it...)
		dst = append(dst, ',')
	}
	if dst[len(dst)-1] == ',' {
		dst = dst[:len(dst)-1]
	}
	return append(dst, ']')
}
