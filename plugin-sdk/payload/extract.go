// Package payload finds what a request body carries for the input metrics:
// the texts ISL tokenizes and the media parts the image, audio and video
// metrics count. It is AIPerf 0.13's extract_inputs
// (endpoints/payload_extraction.py): one walk over the JSON that the
// endpoint produced, so ISL counts what was actually sent, whatever the
// endpoint (built-in or plugin) put in it.
package payload

import (
	"encoding/json"
	"fmt"
)

// Inputs is what one request body carries.
type Inputs struct {
	// Texts are the tokenizable texts in walk order; ISL is the token count
	// of strings.Join(Texts, " ") (AIPerf's bare-text path).
	Texts []string
	// Pretokenized counts token ids sent as such (embeddings input given as
	// []int or [][]int); they add to ISL without tokenizing.
	Pretokenized int
	// Media parts by kind.
	Images, Audios, Videos int
}

// HasInput reports whether ISL has anything to count. A body of no known
// shape has none, so it gets no ISL, as in AIPerf (rankings with a
// {"text"} query, TEI's "texts", Cohere's "documents", Solido's list query).
func (in Inputs) HasInput() bool { return len(in.Texts) > 0 || in.Pretokenized > 0 }

// PartTypes maps content-part "type" names to what they carry.
type PartTypes struct {
	Text, Image, Audio, Video []string
}

// OpenAI are the chat content-part types (AIPerf's BaseEndpoint.PART_TYPES).
var OpenAI = PartTypes{Text: []string{"text"}, Image: []string{"image_url"}, Audio: []string{"input_audio"},
	Video: []string{"video_url"}}

type kind int

const (
	kindNone kind = iota
	kindText
	kindImage
	kindAudio
	kindVideo
)

func (p PartTypes) index() map[string]kind {
	m := map[string]kind{}
	for _, g := range []struct {
		names []string
		k     kind
	}{{p.Text, kindText}, {p.Image, kindImage}, {p.Audio, kindAudio}, {p.Video, kindVideo}} {
		for _, n := range g.names {
			m[n] = g.k
		}
	}
	return m
}

// Extract walks a JSON request body with the given content-part types. A
// body that is not a JSON object yields no inputs (and an error when it is
// not JSON at all).
func Extract(body []byte, parts PartTypes) (Inputs, error) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return Inputs{}, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	return ExtractObject(obj, parts), nil
}

// ExtractObject is Extract over a decoded body.
func ExtractObject(obj map[string]any, parts PartTypes) Inputs {
	var in Inputs
	w := walker{in: &in, types: parts.index()}
	found := w.itemsArrays(obj)
	w.toolsSchema(obj)
	if !found {
		w.flatFallbacks(obj)
	}
	return in
}

type walker struct {
	in    *Inputs
	types map[string]kind
}

// itemsArrays walks chat "messages" and Responses "input" item arrays; it
// reports whether one was found (then the flat shapes are not consulted).
// An array counts only when some item is an object with "role" or "type",
// which tells it from an embeddings input list.
func (w walker) itemsArrays(obj map[string]any) bool {
	found := false
	for _, field := range []string{"messages", "input"} {
		items, ok := obj[field].([]any)
		if !ok || len(items) == 0 || !anyItemShape(items) {
			continue
		}
		found = true
		for _, it := range items {
			if item, ok := it.(map[string]any); ok {
				w.item(item)
			}
		}
	}
	return found
}

func anyItemShape(items []any) bool {
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			if _, r := m["role"]; r {
				return true
			}
			if _, t := m["type"]; t {
				return true
			}
		}
	}
	return false
}

// item walks one message: its content, replayed tool calls and Responses
// function call items.
func (w walker) item(item map[string]any) {
	switch c := item["content"].(type) {
	case string:
		w.in.Texts = append(w.in.Texts, c)
	case []any:
		for _, p := range c {
			if part, ok := p.(map[string]any); ok {
				w.part(part)
			}
		}
	}
	if calls, ok := item["tool_calls"].([]any); ok {
		for _, tc := range calls {
			call, ok := tc.(map[string]any)
			if !ok {
				continue
			}
			if fn, ok := call["function"].(map[string]any); ok {
				w.strings(fn, "name", "arguments")
			}
		}
	}
	switch item["type"] {
	case "function_call":
		w.strings(item, "name", "arguments")
	case "function_call_output":
		if s, ok := item["output"].(string); ok && s != "" {
			w.in.Texts = append(w.in.Texts, s)
		}
	}
}

func (w walker) part(part map[string]any) {
	name, _ := part["type"].(string)
	switch w.types[name] {
	case kindText:
		if s, ok := part["text"].(string); ok {
			w.in.Texts = append(w.in.Texts, s)
		}
	case kindImage:
		w.in.Images++
	case kindAudio:
		w.in.Audios++
	case kindVideo:
		w.in.Videos++
	}
}

// toolsSchema adds the top-level tool schemas the server tokenizes into
// every prompt: name, description and the serialized parameters, for the
// chat shape (under "function") and the Responses shape (top level).
func (w walker) toolsSchema(obj map[string]any) {
	tools, ok := obj["tools"].([]any)
	if !ok {
		return
	}
	for _, t := range tools {
		tool, ok := t.(map[string]any)
		if !ok {
			continue
		}
		fn, _ := tool["function"].(map[string]any)
		for _, src := range []map[string]any{fn, tool} {
			if src == nil {
				continue
			}
			w.strings(src, "name", "description")
			if params, ok := src["parameters"].(map[string]any); ok {
				if b, err := json.Marshal(params); err == nil {
					w.in.Texts = append(w.in.Texts, string(b))
				}
			}
		}
	}
}

// strings appends the non-empty string fields keys of src.
func (w walker) strings(src map[string]any, keys ...string) {
	for _, k := range keys {
		if s, ok := src[k].(string); ok && s != "" {
			w.in.Texts = append(w.in.Texts, s)
		}
	}
}

// flatFallbacks are the completions, embeddings, rankings and TGI shapes,
// tried in AIPerf's order; the first that matches wins.
func (w walker) flatFallbacks(obj map[string]any) {
	if w.stringOrList(obj["prompt"]) || w.stringOrList(obj["input"]) || w.queryPassages(obj) {
		return
	}
	if s, ok := obj["inputs"].(string); ok {
		w.in.Texts = append(w.in.Texts, s)
	}
}

// stringOrList takes a string, a list of strings, or pretokenized ids
// ([]int or [][]int, counted, not tokenized).
func (w walker) stringOrList(v any) bool {
	switch x := v.(type) {
	case string:
		w.in.Texts = append(w.in.Texts, x)
		return true
	case []any:
		if allStrings(x) {
			for _, s := range x {
				w.in.Texts = append(w.in.Texts, s.(string))
			}
			return true
		}
		if n, ok := tokenIDs(x); ok && len(x) > 0 {
			w.in.Pretokenized += n
			return true
		}
		if len(x) > 0 {
			total := 0
			for _, seq := range x {
				inner, ok := seq.([]any)
				if !ok {
					return false
				}
				n, ok := tokenIDs(inner)
				if !ok {
					return false
				}
				total += n
			}
			w.in.Pretokenized += total
			return true
		}
	}
	return false
}

func allStrings(xs []any) bool {
	for _, x := range xs {
		if _, ok := x.(string); !ok {
			return false
		}
	}
	return true
}

// tokenIDs reports whether xs are all integers (JSON numbers without a
// fraction) and how many.
func tokenIDs(xs []any) (int, bool) {
	for _, x := range xs {
		f, ok := x.(float64)
		if !ok || f != float64(int64(f)) {
			return 0, false
		}
	}
	return len(xs), true
}

// queryPassages is the rankings shape with a string query: query then
// every passage (a string or {"text": ...}).
func (w walker) queryPassages(obj map[string]any) bool {
	q, ok := obj["query"].(string)
	passages, ok2 := obj["passages"].([]any)
	if !ok || !ok2 {
		return false
	}
	w.in.Texts = append(w.in.Texts, q)
	for _, p := range passages {
		switch x := p.(type) {
		case string:
			w.in.Texts = append(w.in.Texts, x)
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				w.in.Texts = append(w.in.Texts, s)
			}
		}
	}
	return true
}
