package messages

import (
	"encoding/json"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/payload"
)

var _ sdk.InputExtractor = (*Endpoint)(nil)

// partTypes are Anthropic's content block types: "text" and a bare "image"
// (no audio or video input).
var partTypes = payload.PartTypes{Text: []string{"text"}, Image: []string{"image"}}

// ExtractInputs is AIPerf's Anthropic extraction (anthropic_messages.py):
// the generic walk over messages with Anthropic's block types, the
// top-level system prompt first, then the tools' input schemas and the
// replayed tool_use / tool_result blocks.
func (*Endpoint) ExtractInputs(body []byte) (payload.Inputs, error) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return payload.Inputs{}, err
	}
	in := payload.ExtractObject(obj, partTypes)
	in.Texts = append(systemTexts(obj["system"]), in.Texts...)
	if tools, ok := obj["tools"].([]any); ok {
		for _, t := range tools {
			if tool, ok := t.(map[string]any); ok {
				in.Texts = appendJSON(in.Texts, tool["input_schema"])
			}
		}
	}
	if msgs, ok := obj["messages"].([]any); ok {
		for _, m := range msgs {
			msg, _ := m.(map[string]any)
			blocks, _ := msg["content"].([]any)
			for _, b := range blocks {
				if block, ok := b.(map[string]any); ok {
					in.Texts = toolBlockTexts(in.Texts, block)
				}
			}
		}
	}
	return in, nil
}

// systemTexts are the non-empty texts of a string or text-block system.
func systemTexts(system any) []string {
	switch s := system.(type) {
	case string:
		if s != "" {
			return []string{s}
		}
	case []any:
		var out []string
		for _, p := range s {
			switch x := p.(type) {
			case map[string]any:
				if x["type"] == "text" {
					if t, ok := x["text"].(string); ok && t != "" {
						out = append(out, t)
					}
				}
			case string:
				if x != "" {
					out = append(out, x)
				}
			}
		}
		return out
	}
	return nil
}

// toolBlockTexts adds a tool_use block's name and input, or a tool_result
// block's text content.
func toolBlockTexts(texts []string, block map[string]any) []string {
	switch block["type"] {
	case "tool_use":
		if name, ok := block["name"].(string); ok && name != "" {
			texts = append(texts, name)
		}
		return appendJSON(texts, block["input"])
	case "tool_result":
		switch c := block["content"].(type) {
		case string:
			if c != "" {
				texts = append(texts, c)
			}
		case []any:
			for _, sub := range c {
				if s, ok := sub.(map[string]any); ok && s["type"] == "text" {
					if t, ok := s["text"].(string); ok && t != "" {
						texts = append(texts, t)
					}
				}
			}
		}
	}
	return texts
}

// appendJSON adds an object serialized compactly (a schema or tool input).
func appendJSON(texts []string, v any) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return texts
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return texts
	}
	return append(slices.Clip(texts), string(b))
}
