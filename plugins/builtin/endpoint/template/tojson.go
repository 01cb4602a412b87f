package template

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// filterToJSON is Jinja2's tojson: json.dumps(value, sort_keys=True) with
// <, >, & and ' escaped as \u003c, \u003e, \u0026, \u0027, marked safe.
// gonja's own tojson uses encoding/json, which writes the float 5.0 as 5
// (an int once the body is re-parsed) and null for an undefined value
// (Jinja raises); this one follows Python: 5.0, "NaN"/"Infinity" for
// non-finite floats (the body then fails to parse, as in AIPerf), an error
// for undefined values, ASCII-only output, and the indent keyword.
func filterToJSON(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	indent := -1
	if v, ok := params.KwArgs["indent"]; ok && !v.IsNil() {
		if !v.IsInteger() {
			return exec.AsValue(fmt.Errorf("indent must be an integer, got %s", v.String()))
		}
		indent = v.Integer()
	}
	if len(params.Args) > 0 {
		if v := params.Args[0]; !v.IsNil() {
			if !v.IsInteger() {
				return exec.AsValue(fmt.Errorf("indent must be an integer, got %s", v.String()))
			}
			indent = v.Integer()
		}
	}
	if isUndefined(in) {
		return exec.AsValue(errors.New("object of type Undefined is not JSON serializable"))
	}
	w := pyJSONWriter{indent: indent}
	if err := w.value(in.Val.Interface(), 0); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsSafeValue(w.b.String())
}

// pyJSONWriter writes Python's json.dumps(sort_keys=True, ensure_ascii=True)
// output, HTML-safe as Jinja's htmlsafe_json_dumps makes it.
type pyJSONWriter struct {
	b      strings.Builder
	indent int // -1: one line with ", " and ": " separators
}

func (w *pyJSONWriter) newline(depth int) {
	if w.indent < 0 {
		return
	}
	w.b.WriteByte('\n')
	w.b.WriteString(strings.Repeat(" ", w.indent*depth))
}

func (w *pyJSONWriter) sep(depth int) {
	if w.indent < 0 {
		w.b.WriteString(", ")
		return
	}
	w.b.WriteByte(',')
	w.newline(depth)
}

func (w *pyJSONWriter) value(x any, depth int) error {
	switch t := x.(type) {
	case nil, *pyNoneType:
		w.b.WriteString("null")
	case *exec.Value:
		if t == nil || !t.Val.IsValid() {
			return errors.New("object of type Undefined is not JSON serializable")
		}
		if !t.Val.CanInterface() {
			return fmt.Errorf("object of type %s is not JSON serializable", t.Val.Type())
		}
		return w.value(t.Val.Interface(), depth)
	case string:
		w.str(t)
	case bool:
		w.b.WriteString(strconv.FormatBool(t))
	case float64:
		w.float(t)
	case float32:
		w.float(float64(t))
	case exec.Dict:
		return w.pairs(t.Pairs, depth)
	case *exec.Dict:
		return w.pairs(t.Pairs, depth)
	case map[string]any:
		keys := sortedKeys(t)
		vals := make([]any, len(keys))
		for i, k := range keys {
			vals[i] = t[k]
		}
		return w.object(keys, vals, depth)
	default:
		rv := reflect.ValueOf(x)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			w.b.WriteString(strconv.FormatInt(rv.Int(), 10))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			w.b.WriteString(strconv.FormatUint(rv.Uint(), 10))
		case reflect.Slice, reflect.Array:
			if rv.Len() == 0 {
				w.b.WriteString("[]")
				return nil
			}
			w.b.WriteByte('[')
			for i := range rv.Len() {
				if i > 0 {
					w.sep(depth + 1)
				} else {
					w.newline(depth + 1)
				}
				if err := w.value(rv.Index(i).Interface(), depth+1); err != nil {
					return err
				}
			}
			w.newline(depth)
			w.b.WriteByte(']')
		case reflect.Pointer:
			if rv.IsNil() {
				w.b.WriteString("null")
				return nil
			}
			return w.value(rv.Elem().Interface(), depth)
		default:
			return fmt.Errorf("object of type %T is not JSON serializable", x)
		}
	}
	return nil
}

// pairs writes a gonja dict literal, its keys sorted as sort_keys does.
func (w *pyJSONWriter) pairs(pairs []*exec.Pair, depth int) error {
	keys := make([]string, len(pairs))
	byKey := make(map[string]any, len(pairs))
	for i, p := range pairs {
		k := pyStr(p.Key)
		if p.Key == nil || !p.Key.IsString() {
			// json.dumps turns int, float, bool and None keys into strings.
			k = pyJSONKey(p.Key)
		}
		keys[i] = k
		byKey[k] = p.Value
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = byKey[k]
	}
	return w.object(keys, vals, depth)
}

func pyJSONKey(k *exec.Value) string {
	switch {
	case k == nil || k.IsNil():
		return "null"
	case k.IsBool():
		return strconv.FormatBool(k.Bool())
	case k.IsFloat():
		return pyfmt.Float(k.Float())
	}
	return pyStr(k)
}

func (w *pyJSONWriter) object(keys []string, vals []any, depth int) error {
	if len(keys) == 0 {
		w.b.WriteString("{}")
		return nil
	}
	w.b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			w.sep(depth + 1)
		} else {
			w.newline(depth + 1)
		}
		w.str(k)
		w.b.WriteString(": ")
		if err := w.value(vals[i], depth+1); err != nil {
			return err
		}
	}
	w.newline(depth)
	w.b.WriteByte('}')
	return nil
}

// float writes float.__repr__, with json's NaN/Infinity for non-finite
// values.
func (w *pyJSONWriter) float(f float64) {
	switch {
	case math.IsNaN(f):
		w.b.WriteString("NaN")
	case math.IsInf(f, 1):
		w.b.WriteString("Infinity")
	case math.IsInf(f, -1):
		w.b.WriteString("-Infinity")
	default:
		w.b.WriteString(pyfmt.Float(f))
	}
}

const hexDigits = "0123456789abcdef"

// str writes an ensure_ascii JSON string, HTML-safe: everything outside
// printable ASCII as \uXXXX (surrogate pairs above U+FFFF), plus <, >, &
// and ' as Jinja's htmlsafe_json_dumps escapes them.
func (w *pyJSONWriter) str(s string) {
	w.b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			w.b.WriteString(`\"`)
		case '\\':
			w.b.WriteString(`\\`)
		case '\n':
			w.b.WriteString(`\n`)
		case '\r':
			w.b.WriteString(`\r`)
		case '\t':
			w.b.WriteString(`\t`)
		case '\b':
			w.b.WriteString(`\b`)
		case '\f':
			w.b.WriteString(`\f`)
		case '<', '>', '&', '\'':
			w.u4(r)
		default:
			switch {
			case r >= 0x20 && r < 0x7f:
				w.b.WriteRune(r)
			case r > 0xFFFF:
				r -= 0x10000
				w.u4(0xD800 + (r>>10)&0x3FF)
				w.u4(0xDC00 + r&0x3FF)
			case r == utf8.RuneError:
				w.u4(0xFFFD)
			default:
				w.u4(r)
			}
		}
	}
	w.b.WriteByte('"')
}

func (w *pyJSONWriter) u4(r rune) {
	w.b.WriteString(`\u`)
	w.b.WriteByte(hexDigits[(r>>12)&0xF])
	w.b.WriteByte(hexDigits[(r>>8)&0xF])
	w.b.WriteByte(hexDigits[(r>>4)&0xF])
	w.b.WriteByte(hexDigits[r&0xF])
}
