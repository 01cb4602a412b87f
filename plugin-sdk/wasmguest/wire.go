package wasmguest

// A small protobuf wire codec for the plugin messages. The guest does not
// import pluginpb: that package also holds the gRPC stubs, and linking gRPC
// into a wasip1 module makes it ~20 MB (vs ~3 MB) and slow to compile. The
// field numbers below follow proto/aiperf/plugin/v1/plugin.proto exactly;
// codec_test.go checks every message against pluginpb.

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// fields iterates the fields of one encoded message.
type fields struct {
	b   []byte
	err error

	num protowire.Number
	typ protowire.Type
	v   uint64 // varint / fixed value
	buf []byte // length-delimited value (aliases the input)
}

func newFields(b []byte) fields { return fields{b: b} }

// next advances to the next field; it returns false at the end or on error.
func (f *fields) next() bool {
	if f.err != nil || len(f.b) == 0 {
		return false
	}
	num, typ, n := protowire.ConsumeTag(f.b)
	if n < 0 {
		f.err = protowire.ParseError(n)
		return false
	}
	f.b = f.b[n:]
	f.num, f.typ, f.buf = num, typ, nil
	switch typ {
	case protowire.VarintType:
		f.v, n = protowire.ConsumeVarint(f.b)
	case protowire.Fixed64Type:
		f.v, n = protowire.ConsumeFixed64(f.b)
	case protowire.Fixed32Type:
		var v uint32
		v, n = protowire.ConsumeFixed32(f.b)
		f.v = uint64(v)
	case protowire.BytesType:
		f.buf, n = protowire.ConsumeBytes(f.b)
	default:
		n = protowire.ConsumeFieldValue(num, typ, f.b)
	}
	if n < 0 {
		f.err = fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		return false
	}
	f.b = f.b[n:]
	return true
}

func (f *fields) want(typ protowire.Type) bool {
	if f.typ != typ {
		if f.err == nil {
			f.err = fmt.Errorf("field %d: wire type %d, want %d", f.num, f.typ, typ)
		}
		return false
	}
	return true
}

func (f *fields) uint() uint64 {
	if !f.want(protowire.VarintType) {
		return 0
	}
	return f.v
}

func (f *fields) int64() int64      { return int64(f.uint()) }
func (f *fields) int() int          { return int(int32(f.uint())) } // int32 fields
func (f *fields) bool() bool        { return f.uint() != 0 }
func (f *fields) str() string       { return string(f.bytes()) }
func (f *fields) intp() *int        { v := int(f.int64()); return &v }
func (f *fields) doublep() *float64 { v := f.double(); return &v }

func (f *fields) bytes() []byte {
	if !f.want(protowire.BytesType) {
		return nil
	}
	return f.buf
}

func (f *fields) double() float64 {
	if !f.want(protowire.Fixed64Type) {
		return 0
	}
	return math.Float64frombits(f.v)
}

// Append helpers. Proto3 omits fields holding their default value; fields
// declared `optional` (pointers here) are written whenever set.

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte { return appendUint(b, num, uint64(v)) }

func appendBool(b []byte, num protowire.Number, v bool) []byte {
	if !v {
		return b
	}
	return appendUint(b, num, 1)
}

func appendOptInt(b []byte, num protowire.Number, p *int) []byte {
	if p == nil {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(*p)))
}

func appendDouble(b []byte, num protowire.Number, v float64) []byte {
	if math.Float64bits(v) == 0 {
		return b
	}
	return appendFixedDouble(b, num, v)
}

func appendOptDouble(b []byte, num protowire.Number, p *float64) []byte {
	if p == nil {
		return b
	}
	return appendFixedDouble(b, num, *p)
}

func appendFixedDouble(b []byte, num protowire.Number, v float64) []byte {
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

// appendMessage writes a length-delimited sub-message produced by enc. It
// encodes in place behind a one-byte length and shifts the body only when
// the length needs more bytes, so nested messages cost no extra buffer.
func appendMessage(b []byte, num protowire.Number, enc func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	start := len(b)
	b = append(b, 0)
	b = enc(b)
	n := len(b) - start - 1
	size := protowire.SizeVarint(uint64(n))
	if size > 1 {
		for range size - 1 {
			b = append(b, 0)
		}
		copy(b[start+size:], b[start+1:start+1+n])
	}
	protowire.AppendVarint(b[:start], uint64(n))
	return b
}

// appendRepeatedString writes one element of a repeated string field; unlike
// a singular field, an empty element is still written.
func appendRepeatedString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}
