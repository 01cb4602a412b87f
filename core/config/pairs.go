package config

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// pair is one parsed "key:value" item of -H or --extra-inputs.
type pair struct {
	key string
	val any
}

// valueFunc converts the text after the colon of a "key:value" item, or a
// value from a JSON object, into the stored value.
type valueFunc func(raw string, fromJSON any, isJSON bool) (any, error)

// parsePairs parses one -H / --extra-inputs item. An item starting with "{"
// is a JSON object; otherwise it is one or more comma-separated "key:value"
// pairs (AIPerf splits on commas too). A comma segment without a colon
// belongs to the previous value, so "Accept-Language:en-US,en" stays one
// header, and commas inside brackets, braces or quotes never split.
func parsePairs(item string, conv valueFunc) ([]pair, error) {
	s := strings.TrimSpace(item)
	if s == "" {
		return nil, errors.New("empty value")
	}
	if strings.HasPrefix(s, "{") {
		return parseJSONObject(s, conv)
	}
	var out []pair
	for _, seg := range splitTopLevel(s) {
		name, value, ok := strings.Cut(seg, ":")
		if !ok || isContinuation(seg, len(out)) {
			if len(out) == 0 {
				return nil, errors.New(`expected "key:value" or a JSON object`)
			}
			// No colon: a comma inside the previous value.
			prev := &out[len(out)-1]
			raw := prev.val.(string) + "," + seg
			prev.val = raw
			continue
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("empty key in %q", seg)
		}
		out = append(out, pair{key: name, val: strings.TrimSpace(value)})
	}
	for i := range out {
		v, err := conv(out[i].val.(string), nil, false)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", out[i].key, err)
		}
		out[i].val = v
	}
	return out, nil
}

// isContinuation reports whether a segment that contains a colon still
// belongs to the previous value: a key must not contain whitespace or
// quotes, so "a:1, b" is not a new key but "b:2" is.
func isContinuation(seg string, have int) bool {
	if have == 0 {
		return false
	}
	name, _, _ := strings.Cut(seg, ":")
	name = strings.TrimSpace(name)
	return name == "" || strings.ContainsAny(name, " \t\"'{}[]")
}

// splitTopLevel splits s on commas that are outside quotes, brackets and
// braces, so JSON values such as stop:["a","b"] stay whole.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote:
			if c == '\\' {
				i++
			} else if c == '"' {
				inQuote = false
			}
		case c == '"':
			inQuote = true
		case c == '[' || c == '{':
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

func parseJSONObject(s string, conv valueFunc) ([]pair, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("invalid JSON object: %w", err)
	}
	if dec.More() {
		return nil, errors.New("invalid JSON object: trailing data")
	}
	out := make([]pair, 0, len(obj))
	for k, v := range obj {
		cv, err := conv("", normalizeNumbers(v), true)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		out = append(out, pair{key: k, val: cv})
	}
	sortPairs(out)
	return out, nil
}

// sortPairs orders pairs by key so parsing is deterministic (maps are not).
func sortPairs(ps []pair) {
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.key, b.key) })
}

// jsonScalar is the --extra-inputs value rule: the text is parsed as JSON
// when it parses (0.7 -> float64, 5 -> int, true -> bool, null -> nil,
// ["a"] -> list), else it is kept as a plain string.
func jsonScalar(raw string, fromJSON any, isJSON bool) (any, error) {
	if isJSON {
		return fromJSON, finite(fromJSON)
	}
	// Fast paths: most values are bare numbers, booleans or words, and a
	// json.Decoder per value costs a buffer allocation.
	switch raw {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if isJSONNumber(raw) {
		v := normalizeNumbers(json.Number(raw))
		return v, finite(v)
	}
	if raw == "" || !strings.ContainsAny(raw[:1], `["{`) {
		return raw, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return raw, nil
	}
	v = normalizeNumbers(v)
	return v, finite(v)
}

// finite rejects numbers beyond float64 (1e400 reads as +Inf), which no
// request body can carry: encoding it would fail every request of the run.
func finite(v any) error {
	switch t := v.(type) {
	case float64:
		if math.IsInf(t, 0) {
			return errors.New("a number is out of the 64-bit float range")
		}
	case map[string]any:
		for _, e := range t {
			if err := finite(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := finite(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// headerValue is the -H value rule: strings stay strings; JSON numbers and
// booleans are written back as text; nested JSON is rejected.
func headerValue(raw string, fromJSON any, isJSON bool) (any, error) {
	if !isJSON {
		return raw, nil
	}
	switch v := fromJSON.(type) {
	case string:
		return v, nil
	case int, int64, float64, bool:
		return fmt.Sprint(v), nil
	}
	return nil, errors.New("header values must be strings, numbers or booleans")
}

// normalizeNumbers turns json.Number into int (when integral) or float64,
// recursively, so 5 stays an int in the request body.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil && !strings.ContainsAny(string(t), ".eE") {
			return int(i)
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeNumbers(e)
		}
	}
	return v
}

// isJSONNumber reports whether s matches JSON's number grammar
// (-?int frac? exp?), which strconv alone does not enforce ("inf", "0x1").
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	start := i
	if n := digits(); n == 0 || (n > 1 && s[start] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
