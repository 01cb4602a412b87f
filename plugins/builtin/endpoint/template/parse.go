package template

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jmespath-community/go-jmespath"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ParseResponse implements sdk.Endpoint, as AIPerf's TemplateEndpoint
// parses a body or one SSE event:
//   - the SSE end marker "[DONE]" carries nothing (AIPerf counts it as
//     the text "[DONE]", one token too many; docs/METRICS.md §9);
//   - any other unit that is not JSON, or is JSON null/false/0/""/{}/[],
//     is text as received (a plain-text API);
//   - with a response_field other than "text", the JMESPath result decides:
//     a list of number lists or of numbers is embeddings, a list of objects
//     rankings, a string text; anything else, or no match, is no content;
//   - otherwise the body is auto-detected (autoDetect).
//
// The template endpoint reads no usage.
func (e *Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if len(data) == 0 || string(data) == "[DONE]" {
		return sdk.ParsedResponse{}, nil
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil || !truthy(v) {
		return sdk.ParsedResponse{Text: string(data)}, nil
	}
	if s := e.last.Load(); s != nil && s.query != nil {
		return searchResponse(s.query, v), nil
	}
	return autoDetect(v)
}

// searchResponse applies response_field. A failed search is no content,
// as a non-matching path is: AIPerf never falls back to auto-detection
// once a field was given.
func searchResponse(q jmespath.JMESPath, v any) sdk.ParsedResponse {
	found, err := q.Search(v)
	if err != nil || !truthy(found) {
		return sdk.ParsedResponse{}
	}
	return convert(found)
}

// convert is AIPerf's convert_to_response_data.
func convert(v any) sdk.ParsedResponse {
	switch t := v.(type) {
	case []any:
		if len(t) == 0 {
			return sdk.ParsedResponse{}
		}
		switch first := t[0].(type) {
		case []any:
			if len(first) > 0 && isNumber(first[0]) {
				return result(sdk.ResultEmbeddings, len(t))
			}
		case map[string]any:
			return result(sdk.ResultRankings, len(t))
		default:
			if isNumber(first) {
				return result(sdk.ResultEmbeddings, 1)
			}
		}
	case string:
		return sdk.ParsedResponse{Text: t}
	}
	return sdk.ParsedResponse{}
}

// autoDetect is AIPerf's auto_detect_and_extract: embeddings, then
// rankings, then text. A JSON value that is not an object goes through
// convert.
func autoDetect(v any) (sdk.ParsedResponse, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return convert(v), nil
	}
	if p, ok, err := embeddings(obj); ok || err != nil {
		return p, err
	}
	for _, field := range [...]string{"rankings", "results"} {
		if list, ok := obj[field].([]any); ok {
			return result(sdk.ResultRankings, len(list)), nil
		}
	}
	return text(obj)
}

// embeddings recognises {"data":[{"object":"embedding","embedding":[...]}]}
// (counting the items with an "embedding"), {"embeddings":[[...],...]} and
// {"embedding":[...]}.
func embeddings(obj map[string]any) (sdk.ParsedResponse, bool, error) {
	if data, ok := obj["data"].([]any); ok && len(data) > 0 {
		if item, ok := data[0].(map[string]any); ok && item["object"] == "embedding" {
			n := 0
			for i, it := range data {
				has, err := pyContains(it, "embedding")
				if err != nil {
					return sdk.ParsedResponse{}, false, fmt.Errorf("embeddings data[%d]: %w", i, err)
				}
				if has {
					n++
				}
			}
			if n > 0 {
				return result(sdk.ResultEmbeddings, n), true, nil
			}
		}
	}
	for _, field := range [...]string{"embeddings", "embedding"} {
		list, ok := obj[field].([]any)
		if !ok || len(list) == 0 {
			continue
		}
		if isNumber(list[0]) {
			return result(sdk.ResultEmbeddings, 1), true, nil
		}
		if _, ok := list[0].([]any); ok {
			return result(sdk.ResultEmbeddings, len(list)), true, nil
		}
	}
	return sdk.ParsedResponse{}, false, nil
}

// pyContains is Python's `"embedding" in item` followed by
// item["embedding"]: true for an object with the key; an error where
// Python raises TypeError (a number, bool or null item, or a string or list
// that contains the word and cannot be indexed by it).
func pyContains(item any, key string) (bool, error) {
	switch t := item.(type) {
	case map[string]any:
		_, ok := t[key]
		return ok, nil
	case string:
		if strings.Contains(t, key) {
			return false, fmt.Errorf("string indices must be integers, not 'str'")
		}
		return false, nil
	case []any:
		for _, e := range t {
			if e == key {
				return false, fmt.Errorf("list indices must be integers or slices, not str")
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", pyType(item))
}

// text is AIPerf's try_extract_text: the first of text, content, response,
// output, result that is a string (an empty one ends the search with no
// content) or a list of strings (joined), else choices[0]'s text,
// message.content or delta.content.
func text(obj map[string]any) (sdk.ParsedResponse, error) {
	for _, field := range [...]string{"text", "content", "response", "output", "result"} {
		switch t := obj[field].(type) {
		case string:
			return sdk.ParsedResponse{Text: t}, nil
		case []any:
			if joined, ok := joinStrings(t); ok {
				return sdk.ParsedResponse{Text: joined}, nil
			}
		}
	}
	choices, ok := obj["choices"].([]any)
	if !ok || len(choices) == 0 {
		return sdk.ParsedResponse{}, nil
	}
	choice, ok := choices[0].(map[string]any)
	if !ok {
		return sdk.ParsedResponse{}, fmt.Errorf("choices[0]: '%s' object has no attribute 'get'", pyType(choices[0]))
	}
	if t := choice["text"]; truthy(t) {
		return textValue("choices[0].text", t)
	}
	for _, field := range [...]string{"message", "delta"} {
		m := choice[field]
		if !truthy(m) {
			continue
		}
		mo, ok := m.(map[string]any)
		if !ok {
			return sdk.ParsedResponse{}, fmt.Errorf("choices[0].%s: '%s' object has no attribute 'get'", field, pyType(m))
		}
		if c := mo["content"]; truthy(c) {
			return textValue("choices[0]."+field+".content", c)
		}
	}
	return sdk.ParsedResponse{}, nil
}

// textValue is a truthy text field. AIPerf would keep a non-string one as
// "text" and fail later when counting tokens; here it fails now.
func textValue(where string, v any) (sdk.ParsedResponse, error) {
	s, ok := v.(string)
	if !ok {
		return sdk.ParsedResponse{}, fmt.Errorf("%s is a %s, not a string", where, pyType(v))
	}
	return sdk.ParsedResponse{Text: s}, nil
}

func joinStrings(list []any) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

func result(kind string, n int) sdk.ParsedResponse {
	return sdk.ParsedResponse{Result: &sdk.Result{Kind: kind, Count: n}}
}

// isNumber is Python's isinstance(x, int | float); bool is an int there.
func isNumber(v any) bool {
	switch v.(type) {
	case float64, bool:
		return true
	}
	return false
}

// truthy is Python's truth value of a decoded JSON value.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case float64:
		return t != 0
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// pyType names a decoded JSON value's Python type, for error messages.
func pyType(v any) string {
	switch t := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case float64:
		if t == float64(int64(t)) {
			return "int"
		}
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	}
	return "dict"
}
