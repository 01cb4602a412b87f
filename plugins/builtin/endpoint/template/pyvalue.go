package template

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// pyNoneType is the type of pyNone.
type pyNoneType struct{}

// pyNone is Python's None in the template variables: a typed nil pointer,
// which gonja treats as nil (false in if, printed by nothing of gonja's),
// while this package can still tell it from an undefined value (gonja's
// invalid reflect.Value): Jinja prints None as "None" and an undefined
// variable as "", keeps None in default, and says None is defined.
var pyNone *pyNoneType

// isUndefined reports whether v is an undefined value.
func isUndefined(v *exec.Value) bool { return v == nil || !v.Val.IsValid() }

// isNone reports whether v is None: pyNone, or any typed nil pointer.
func isNone(v *exec.Value) bool {
	return !isUndefined(v) && v.Val.Kind() == reflect.Pointer && v.Val.IsNil()
}

// pyStr is Python's str() of a template value, as Jinja prints it: None,
// True/False, float repr, and list/dict reprs. An undefined value prints
// as "".
func pyStr(v *exec.Value) string {
	if isUndefined(v) {
		return ""
	}
	if !v.Val.CanInterface() {
		return v.String()
	}
	if s, ok := v.Val.Interface().(string); ok {
		return s
	}
	var b strings.Builder
	writePy(&b, v.Val.Interface(), false)
	return b.String()
}

// writePy writes x as Python's str() (repr=false) or repr() would.
func writePy(b *strings.Builder, x any, repr bool) {
	switch t := x.(type) {
	case nil, *pyNoneType:
		b.WriteString("None")
	case *exec.Value:
		if t == nil || !t.Val.IsValid() {
			// gonja's nil: an undefined element of a literal list.
			b.WriteString("None")
			return
		}
		if t.Val.CanInterface() {
			writePy(b, t.Val.Interface(), repr)
			return
		}
		b.WriteString(t.String())
	case string:
		if repr {
			writePyRepr(b, t)
		} else {
			b.WriteString(t)
		}
	case bool:
		if t {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case float64:
		b.WriteString(pyfmt.Float(t))
	case float32:
		b.WriteString(pyfmt.Float(float64(t)))
	case exec.Dict:
		writePyDict(b, t.Pairs)
	case *exec.Dict:
		writePyDict(b, t.Pairs)
	case map[string]any:
		b.WriteByte('{')
		for i, k := range sortedKeys(t) {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyRepr(b, k)
			b.WriteString(": ")
			writePy(b, t[k], true)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writePy(b, e, true)
		}
		b.WriteByte(']')
	default:
		rv := reflect.ValueOf(x)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			b.WriteString(strconv.FormatInt(rv.Int(), 10))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			b.WriteString(strconv.FormatUint(rv.Uint(), 10))
		case reflect.Slice, reflect.Array:
			b.WriteByte('[')
			for i := range rv.Len() {
				if i > 0 {
					b.WriteString(", ")
				}
				writePy(b, rv.Index(i).Interface(), true)
			}
			b.WriteByte(']')
		default:
			b.WriteString(exec.ToValue(x).String())
		}
	}
}

func writePyDict(b *strings.Builder, pairs []*exec.Pair) {
	b.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		writePy(b, p.Key, true)
		b.WriteString(": ")
		writePy(b, p.Value, true)
	}
	b.WriteByte('}')
}

// writePyRepr writes Python's repr() of a str.
func writePyRepr(b *strings.Builder, s string) { b.Write(pyfmt.AppendStr(nil, s)) }

// formatShortest formats a finite float with the shortest digits that
// round-trip: fixed notation when minFixed <= exponent < 16, else
// "<mantissa>e<sign><exponent>" with the exponent zero-padded to expDigits.
// Python's repr uses (-4, 2), orjson (-5, 1).
func formatShortest(f float64, minFixed, expDigits int) string {
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±dd
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)

	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if exp >= minFixed && exp < 16 {
		switch {
		case exp < 0:
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
		case len(digits) <= exp+1:
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", exp+1-len(digits)))
			b.WriteString(".0")
		default:
			b.WriteString(digits[:exp+1])
			b.WriteByte('.')
			b.WriteString(digits[exp+1:])
		}
		return b.String()
	}
	b.WriteString(mant)
	b.WriteByte('e')
	if exp < 0 {
		b.WriteByte('-')
		exp = -exp
	} else {
		b.WriteByte('+')
	}
	e := strconv.Itoa(exp)
	if len(e) < expDigits {
		b.WriteString(strings.Repeat("0", expDigits-len(e)))
	}
	b.WriteString(e)
	return b.String()
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
