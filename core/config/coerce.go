package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// coerce converts a raw value from any source (typed flag value, YAML value,
// environment string) into the Go type the option stores, so every layer
// reaches koanf already typed and type errors name their source.
func coerce(o *option, v any) (any, error) {
	switch o.kind {
	case kindString:
		return coerceString(v)
	case kindInt:
		return coerceInt(v)
	case kindFloat:
		return coerceFloat(v)
	case kindBool, kindCount:
		return coerceBool(v)
	case kindList:
		return coerceList(v)
	case kindPairs:
		return coercePairs(v)
	case kindItems:
		return coerceItems(v)
	}
	return nil, fmt.Errorf("internal: unknown kind for %s", o.key)
}

func coerceString(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case int, int64, uint64, float64, bool:
		// YAML turns `tokenizer: 123` into a number; the user meant text.
		return fmt.Sprint(t), nil
	}
	return nil, fmt.Errorf("expected a string, got %s", describe(v))
}

func coerceInt(v any) (any, error) {
	switch t := v.(type) {
	case int:
		return t, nil
	case int64:
		return int(t), nil
	case uint64:
		if t > math.MaxInt64 {
			return nil, fmt.Errorf("expected an integer, got %d (too large)", t)
		}
		return int(t), nil
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int(t), nil
		}
	case string:
		if i, err := strconv.Atoi(strings.TrimSpace(t)); err == nil {
			return i, nil
		}
	}
	return nil, fmt.Errorf("expected an integer, got %s", describe(v))
}

func coerceFloat(v any) (any, error) {
	switch t := v.(type) {
	case float64:
		return t, nil
	case int:
		return float64(t), nil
	case int64:
		return float64(t), nil
	case uint64:
		return float64(t), nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err == nil {
			return f, nil
		}
	}
	return nil, fmt.Errorf("expected a number, got %s", describe(v))
}

func coerceBool(v any) (any, error) {
	switch t := v.(type) {
	case bool:
		return t, nil
	case int:
		// -v counts: 1 is verbose, 2+ is handled by the flag layer.
		return t > 0, nil
	case string:
		if b, err := strconv.ParseBool(strings.TrimSpace(t)); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("expected true or false, got %s", describe(v))
}

// coerceList accepts a comma-separated string or a list of scalars; every
// element is split on commas too (AIPerf's parse_str_or_list).
func coerceList(v any) (any, error) {
	var items []string
	switch t := v.(type) {
	case string:
		items = []string{t}
	case []string:
		items = t
	case []any:
		for _, e := range t {
			s, err := coerceString(e)
			if err != nil {
				return nil, fmt.Errorf("list element: %w", err)
			}
			items = append(items, s.(string))
		}
	default:
		return nil, fmt.Errorf("expected a list or a comma-separated string, got %s", describe(v))
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		for _, part := range strings.Split(it, ",") {
			if p := strings.TrimSpace(part); p != "" {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// coercePairs accepts one item string, a list of item strings, or a mapping
// (YAML `header: {X-A: "1"}`), which is kept as one JSON object item.
func coercePairs(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return []string{t}, nil
	case []string:
		return append([]string(nil), t...), nil
	case map[string]any:
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("mapping cannot be encoded: %w", err)
		}
		return []string{string(b)}, nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			items, err := coercePairs(e)
			if err != nil {
				return nil, fmt.Errorf("list element: %w", err)
			}
			out = append(out, items.([]string)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf(`expected "key:value" text, a list of them, or a mapping, got %s`, describe(v))
}

// describe renders a bad value for an error message.
func describe(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case nil:
		return "nothing (null)"
	case map[string]any:
		return "a mapping"
	case []any, []string:
		return "a list"
	}
	return fmt.Sprintf("%v", v)
}

// coerceItems takes one value or a list of them, each kept whole (a comma
// inside one is part of it).
func coerceItems(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return []string{t}, nil
	case []string:
		return append([]string(nil), t...), nil
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			s, err := coerceString(e)
			if err != nil {
				return nil, fmt.Errorf("list element: %w", err)
			}
			out = append(out, s.(string))
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a string or a list of strings, got %s", describe(v))
}
