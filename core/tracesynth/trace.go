package tracesynth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
)

// Trace is one trace record: a JSON object whose fields keep their order
// and, unless the synthesis rewrites them, their values (compacted).
type Trace struct {
	// Line is the record's 1-based line in its file (0 when not from one).
	Line int
	keys []string
	vals []json.RawMessage
}

// ParseTrace reads one JSON object. A repeated key keeps its first
// position and its last value, as Python's json does. The fields the
// synthesis reads (input_length, output_length, hash_ids, timestamp,
// session_id) must have their JSON types; null counts as absent.
func ParseTrace(data []byte) (*Trace, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	t := &Trace{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		t.set(key, buf.Bytes())
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: more than one value on the line")
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	return t, nil
}

// check decodes every field the synthesis reads, so a bad one fails here,
// naming the field, rather than midway through the synthesis.
func (t *Trace) check() error {
	for _, k := range []string{"input_length", "output_length"} {
		if _, _, err := t.int(k); err != nil {
			return err
		}
	}
	if _, _, err := t.number("timestamp"); err != nil {
		return err
	}
	if _, err := t.hashIDs(); err != nil {
		return err
	}
	_, err := t.SessionID()
	return err
}

func (t *Trace) index(key string) int {
	for i, k := range t.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (t *Trace) set(key string, raw json.RawMessage) {
	if i := t.index(key); i >= 0 {
		t.vals[i] = raw
		return
	}
	t.keys = append(t.keys, key)
	t.vals = append(t.vals, raw)
}

func (t *Trace) del(key string) {
	if i := t.index(key); i >= 0 {
		t.keys = append(t.keys[:i:i], t.keys[i+1:]...)
		t.vals = append(t.vals[:i:i], t.vals[i+1:]...)
	}
}

// Raw returns a field's JSON value; ok is false when it is absent or null.
func (t *Trace) Raw(key string) (json.RawMessage, bool) {
	i := t.index(key)
	if i < 0 || string(t.vals[i]) == "null" {
		return nil, false
	}
	return t.vals[i], true
}

// Keys returns the field names in order.
func (t *Trace) Keys() []string { return append([]string(nil), t.keys...) }

func (t *Trace) clone() *Trace {
	return &Trace{Line: t.Line, keys: append([]string(nil), t.keys...), vals: append([]json.RawMessage(nil), t.vals...)}
}

// number returns a numeric field as float64.
func (t *Trace) number(key string) (float64, bool, error) {
	raw, ok := t.Raw(key)
	if !ok {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false, fmt.Errorf("%s: got %s, want a number", key, raw)
	}
	return f, true, nil
}

// int returns an integer field; an integral float (600.0) is accepted, as
// AIPerf's model accepts it.
func (t *Trace) int(key string) (int64, bool, error) {
	raw, ok := t.Raw(key)
	if !ok {
		return 0, false, nil
	}
	v, err := parseInt(raw)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", key, err)
	}
	return v, true, nil
}

func parseInt(raw json.RawMessage) (int64, error) {
	s := string(raw)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
		return 0, fmt.Errorf("got %s, want an integer", raw)
	}
	return int64(f), nil
}

// hashIDs returns hash_ids (nil when absent, null or empty).
func (t *Trace) hashIDs() ([]int64, error) {
	raw, ok := t.Raw("hash_ids")
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("hash_ids: got %s, want a list of integers", abbreviate(raw))
	}
	ids := make([]int64, len(items))
	for i, it := range items {
		v, err := parseInt(it)
		if err != nil {
			return nil, fmt.Errorf("hash_ids[%d]: %w", i, err)
		}
		ids[i] = v
	}
	return ids, nil
}

// SessionID returns session_id ("" when absent or null).
func (t *Trace) SessionID() (string, error) {
	raw, ok := t.Raw("session_id")
	if !ok {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("session_id: got %s, want a string", abbreviate(raw))
	}
	return s, nil
}

func abbreviate(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}

// MarshalJSON writes the record compactly, fields in order.
func (t *Trace) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range t.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, k)
		b.WriteByte(':')
		b.Write(t.vals[i])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeString writes a JSON string without Go's HTML escaping.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// ReadFile reads a JSONL trace; blank lines are skipped as AIPerf skips
// them. Errors name the file and line.
func ReadFile(ctx context.Context, path string) ([]*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("input file: %w", err)
	}
	defer f.Close()
	return Read(ctx, f, path)
}

// Read reads JSONL trace records from r; name labels errors ("name:line: …").
func Read(ctx context.Context, r io.Reader, name string) ([]*Trace, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out []*Trace
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if s := bytes.TrimSpace(data); len(s) > 0 {
			if line%1024 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			t, perr := ParseTrace(s)
			if perr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, perr)
			}
			t.Line = line
			out = append(out, t)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
}

// Write writes traces as JSONL, one compact object a line.
func Write(w io.Writer, traces []*Trace) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, t := range traces {
		b, _ := t.MarshalJSON()
		bw.Write(b)
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// lineRef names a record in errors ("line 12" or "record 3").
func lineRef(t *Trace, i int) string {
	if t.Line > 0 {
		return "line " + strconv.Itoa(t.Line)
	}
	return "record " + strconv.Itoa(i+1)
}
