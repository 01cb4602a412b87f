package openai

import "reflect"

// includeUsageOnly is the stream_options AIPerf adds when none were given.
var includeUsageOnly = []byte(`{"include_usage":true}`)

// ApplyExtras merges --extra-inputs and then the turn's extra fields over the
// body, the order AIPerf uses (the per-turn value wins).
func ApplyExtras(body *Object, extraInputs, turnExtra map[string]any) {
	body.Update(extraInputs)
	body.Update(turnExtra)
}

// EnsureIncludeUsage makes stream_options.include_usage true unless the
// author set it already, keeping their other stream_options keys (AIPerf's
// _ensure_include_usage). A stream_options that is not an object is left
// alone; a missing or null one becomes {"include_usage":true}.
func EnsureIncludeUsage(body *Object) {
	cur, _ := body.Get("stream_options")
	switch so := cur.(type) {
	case nil:
		body.Set("stream_options", rawJSON(includeUsageOnly))
	case map[string]any:
		if _, set := so["include_usage"]; set {
			return
		}
		// Copy, never mutate: the map belongs to the long-lived config.
		merged := NewObject(len(so) + 1)
		merged.Update(so)
		merged.Set("include_usage", true)
		body.Set("stream_options", merged)
	case *Object:
		if _, set := so.Get("include_usage"); set {
			return
		}
		merged := NewObject(len(so.fields) + 1)
		merged.fields = append(merged.fields, so.fields...)
		merged.Set("include_usage", true)
		body.Set("stream_options", merged)
	}
}

// Truthy reports whether v is true by Python's rules. AIPerf decides whether
// to add stream_options from the merged body's "stream" value, so an
// --extra-inputs stream:false must switch it off.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case map[string]any:
		return len(x) != 0
	case []any:
		return len(x) != 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array, reflect.String:
		return rv.Len() != 0
	case reflect.Pointer, reflect.Interface:
		return !rv.IsNil()
	}
	return !rv.IsZero()
}

type rawJSON []byte

func (r rawJSON) AppendJSON(dst []byte) ([]byte, error) { return append(dst, r...), nil }
