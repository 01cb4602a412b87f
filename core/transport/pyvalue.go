package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyfmt"
)

// The job API and the multipart form reproduce text AIPerf builds with
// Python's str() of decoded JSON (form field values, "No job ID returned:
// {...}"), so JSON is decoded here keeping what Python keeps: object key
// order and the int/float distinction.

// pyDict is a decoded JSON object in key order (a Python dict).
type pyDict []pyItem

type pyItem struct {
	key string
	val any
}

// get returns the value under key and whether it is present.
func (d pyDict) get(key string) (any, bool) {
	for _, it := range d {
		if it.key == key {
			return it.val, true
		}
	}
	return nil, false
}

// decodePy decodes one JSON document into nil, bool, string, json.Number,
// []any and pyDict values. A repeated key keeps its first position and the
// last value, as a Python dict does.
func decodePy(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodePyValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	return v, nil
}

func decodePyValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // nil, bool, string or json.Number
	}
	switch d {
	case '{':
		var obj pyDict
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := kt.(string)
			val, err := decodePyValue(dec)
			if err != nil {
				return nil, err
			}
			obj = obj.set(key, val)
		}
		_, err = dec.Token()
		return obj, err
	case '[':
		list := []any{}
		for dec.More() {
			val, err := decodePyValue(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, val)
		}
		_, err = dec.Token()
		return list, err
	}
	return nil, fmt.Errorf("invalid JSON: unexpected %v", d)
}

func (d pyDict) set(key string, val any) pyDict {
	for i := range d {
		if d[i].key == key {
			d[i].val = val
			return d
		}
	}
	return append(d, pyItem{key, val})
}

// pyTruthy is Python's truth value of a decoded JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case []any:
		return len(x) > 0
	case pyDict:
		return len(x) > 0
	}
	return true
}

// pyTypeName is Python's type name of a decoded JSON value.
func pyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if isPyFloat(x) {
			return "float"
		}
		return "int"
	case []any:
		return "list"
	}
	return "dict"
}

// pyStr is Python's str() of a decoded JSON value: a string as is,
// anything else as its repr.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr() of a decoded JSON value.
func pyRepr(v any) string {
	var b strings.Builder
	appendPyRepr(&b, v)
	return b.String()
}

func appendPyRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(pyQuote(x))
	case json.Number:
		b.WriteString(pyNumber(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			appendPyRepr(b, e)
		}
		b.WriteByte(']')
	case pyDict:
		b.WriteByte('{')
		for i, it := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyQuote(it.key))
			b.WriteString(": ")
			appendPyRepr(b, it.val)
		}
		b.WriteByte('}')
	default:
		fmt.Fprint(b, x)
	}
}

// isPyFloat reports whether a JSON number decodes to a Python float
// (orjson: a fraction or an exponent) rather than an int.
func isPyFloat(n json.Number) bool { return strings.ContainsAny(string(n), ".eE") }

// pyNumber formats a JSON number as Python prints it.
func pyNumber(n json.Number) string {
	if !isPyFloat(n) {
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return string(n) // a big int: Python keeps every digit
	}
	f, err := n.Float64()
	if err != nil && !math.IsInf(f, 0) {
		return string(n)
	}
	return pyfmt.Float(f)
}

// pyQuote is Python's repr of a str.
func pyQuote(s string) string { return string(pyfmt.AppendStr(nil, s)) }
