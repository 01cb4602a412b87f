package template

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// parseRendered parses the rendered template as orjson.loads does and
// returns it ready to be written back compactly: objects keep their key
// order (a repeated key keeps its first place and its last value, like a
// Python dict), integers that fit 64 bits stay integers, other numbers
// become floats.
func parseRendered(rendered string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(rendered))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("unexpected content after document")
		}
	}
	if err != nil {
		return nil, jsonError(rendered, dec.InputOffset(), err)
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("unexpected end of data")
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := openai.NewObject(8)
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				obj.Set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("unexpected %q", t)
	case json.Number:
		return number(string(t))
	}
	return tok, nil // string, bool or nil
}

// number converts a JSON number as orjson does: an integer in the int64 or
// uint64 range stays an integer, anything else is a float.
func number(s string) (any, error) {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, err
	}
	if math.IsInf(f, 0) {
		return nil, errors.New("number is infinity when parsed as double")
	}
	return pyFloat(f), nil
}

// pyFloat is a float written as orjson writes it: 1.0, 100000.0, 1e-6,
// 1e+16 (Go's encoders would write 1, 100000, 1e-06, 1e+16).
type pyFloat float64

var _ openai.Appender = pyFloat(0)

func (f pyFloat) AppendJSON(dst []byte) ([]byte, error) {
	return append(dst, formatShortest(float64(f), -5, 1)...), nil
}

// jsonError places a parse error in the rendered text as orjson's
// JSONDecodeError does: line, column and character index of the offending
// byte. The token decoder's own offsets lag behind, so the position comes
// from a plain decode of the text when that fails too.
func jsonError(rendered string, offset int64, err error) error {
	var v any
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch uerr := json.Unmarshal([]byte(rendered), &v); {
	case errors.As(uerr, &se):
		offset = se.Offset - 1 // Offset counts the offending byte
		err = uerr
	case errors.As(uerr, &te):
		offset = te.Offset - int64(len(te.Value))
	}
	offset = max(0, min(offset, int64(len(rendered))))
	before := rendered[:offset]
	line := strings.Count(before, "\n") + 1
	col := int(offset) - (strings.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Errorf("%v: line %d column %d (char %d)", err, line, col, offset)
}

// firstChars is the start of the rendered text AIPerf quotes in the error.
func firstChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
