package base

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// PyStr is Python's str() of a row value, for the scalars datasets hold:
// strings as they are, numbers as Python prints them, True/False, None.
// Lists and structs print in Python's repr style.
func PyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	default:
		return pyRepr(v)
	}
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return string(pyfmt.AppendStr(nil, x))
	case []byte:
		return "b" + string(pyfmt.AppendStr(nil, string(x)))
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float32:
		return pyfmt.Float(float64(x))
	case float64:
		return pyfmt.Float(x)
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := SortedKeys(x)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// Truthy is Python's bool() of a row value.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case []byte:
		return len(x) > 0
	case bool:
		return x
	case float32:
		return x != 0
	case float64:
		return x != 0
	case int:
		return x != 0
	case int32:
		return x != 0
	case int64:
		return x != 0
	case uint32:
		return x != 0
	case uint64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

// SortedKeys lists a struct value's keys in order. Parquet rows come back
// as Go maps, which keep no field order; the datasets read here name their
// fields so that sorted order is the schema's (MMVU's choices A..E).
func SortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// FormatTemplate is Python's str.format(**row) for templates of plain
// fields ("{code}"), with "{{" and "}}" as literal braces. A field the row
// lacks, or a conversion or format spec, is an error naming it.
func FormatTemplate(tmpl string, row map[string]any) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("prompt_template: '{' at byte %d is never closed", i)
			}
			field := tmpl[i+1 : i+end]
			if field == "" || strings.ContainsAny(field, "!:[].{") {
				return "", fmt.Errorf("prompt_template: field {%s} is not a plain column name", field)
			}
			v, ok := row[field]
			if !ok {
				return "", fmt.Errorf("prompt_template: the row has no column %q (columns: %s)", field, strings.Join(SortedKeys(row), ", "))
			}
			b.WriteString(PyStr(v))
			i += end
		case c == '}':
			return "", fmt.Errorf("prompt_template: single '}' at byte %d", i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
