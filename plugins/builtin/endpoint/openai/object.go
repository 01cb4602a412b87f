package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Appender is a value that writes its own JSON. Endpoints use it for the
// messages array so prompt text is escaped straight into the request body
// without an intermediate tree.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

type field struct {
	key string
	val any
}

// Object is a JSON object that keeps insertion order, like a Python dict:
// Set on an existing key replaces its value in place, so an --extra-inputs
// "model" overrides the model where AIPerf puts it instead of moving it.
type Object struct {
	fields []field
}

var (
	_ Appender       = (*Object)(nil)
	_ json.Marshaler = (*Object)(nil)
)

// NewObject returns an empty object with room for capacity keys.
func NewObject(capacity int) *Object {
	return &Object{fields: make([]field, 0, capacity)}
}

// Set stores val under key, in place when the key exists, else appended.
func (o *Object) Set(key string, val any) {
	for i := range o.fields {
		if o.fields[i].key == key {
			o.fields[i].val = val
			return
		}
	}
	o.fields = append(o.fields, field{key: key, val: val})
}

// Get returns the value stored under key.
func (o *Object) Get(key string) (any, bool) {
	for i := range o.fields {
		if o.fields[i].key == key {
			return o.fields[i].val, true
		}
	}
	return nil, false
}

// Keys returns the keys in order.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.fields))
	for i, f := range o.fields {
		keys[i] = f.key
	}
	return keys
}

// Update merges m into o like Python's dict.update. A Go map has no order,
// so keys new to o are appended in sorted order to keep bodies reproducible.
func (o *Object) Update(m map[string]any) {
	if len(m) == 0 {
		return
	}
	for _, k := range sortedKeys(m) {
		o.Set(k, m[k])
	}
}

// AppendJSON implements Appender.
func (o *Object) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	for i, f := range o.fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, f.key)
		dst = append(dst, ':')
		if dst, err = AppendValue(dst, f.val); err != nil {
			return dst, fmt.Errorf("field %q: %w", f.key, err)
		}
	}
	return append(dst, '}'), nil
}

// MarshalJSON implements json.Marshaler.
func (o *Object) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil) }

// AppendValue appends v as JSON. The common types of payloads and parsed
// --extra-inputs are written directly; anything else goes through
// encoding/json (without HTML escaping).
func AppendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case *int:
		if x == nil {
			return append(dst, "null"...), nil
		}
		return strconv.AppendInt(dst, int64(*x), 10), nil
	case float64:
		return appendFloat(dst, x)
	case json.RawMessage:
		if len(x) == 0 {
			return append(dst, "null"...), nil
		}
		return append(dst, x...), nil
	case Appender:
		return x.AppendJSON(dst)
	case map[string]any:
		return appendMap(dst, x)
	case []any:
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = AppendValue(dst, e); err != nil {
				return dst, fmt.Errorf("index %d: %w", i, err)
			}
		}
		return append(dst, ']'), nil
	case []string:
		dst = append(dst, '[')
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, s)
		}
		return append(dst, ']'), nil
	default:
		return appendViaEncoding(dst, v)
	}
}

func appendMap(dst []byte, m map[string]any) ([]byte, error) {
	dst = append(dst, '{')
	var err error
	for i, k := range sortedKeys(m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		if dst, err = AppendValue(dst, m[k]); err != nil {
			return dst, fmt.Errorf("field %q: %w", k, err)
		}
	}
	return append(dst, '}'), nil
}

// appendFloat formats like encoding/json: shortest representation, exponent
// form only for very small or very large magnitudes.
func appendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, fmt.Errorf("unsupported number %v", f)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(dst) - start; n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst, nil
}

func appendViaEncoding(dst []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
