// Package jsonl streams JSON Lines files for the dataset loaders (custom and
// public):
// one line at a time through a large reusable buffer (traces can be
// gigabytes), with 1-based line numbers for error messages, and a cheap peek
// at the first record for format detection.
package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// MaxLine is the longest line accepted (a variable so tests can lower it).
// Lines carrying whole chat histories can be megabytes; anything past this
// is almost surely not JSONL.
var MaxLine = 256 << 20

// cancelEvery is how many lines pass between context checks.
const cancelEvery = 1024

// Error is a problem with one line of an input file. Its message names the
// file and the line, as in "trace.jsonl:12: input_length: must be >= 1".
type Error struct {
	Path string
	Line int
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// ErrStop, returned by fn, ends a Scan early without an error (a loader
// that has read all the records the run needs).
var ErrStop = errors.New("stop reading")

// Scan calls fn for every non-blank line of path, in order, with its 1-based
// line number. The line slice is only valid during the call. An error from
// fn is returned wrapped in *Error (naming path and line) unless it already
// is one; ErrStop ends the scan with no error.
func Scan(ctx context.Context, path string, fn func(line int, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, min(1<<20, MaxLine)), MaxLine) // the limit is the larger of the two
	n := 0
	for sc.Scan() {
		n++
		if n%cancelEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("reading %s: %w", path, ctx.Err())
		}
		data := bytes.TrimSpace(sc.Bytes())
		if len(data) == 0 {
			continue
		}
		if err := fn(n, data); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			var le *Error
			if errors.As(err, &le) {
				return err
			}
			return &Error{Path: path, Line: n, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &Error{Path: path, Line: n + 1, Err: fmt.Errorf("line longer than %d MiB", MaxLine>>20)}
		}
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return ctx.Err()
}

// FirstObject returns the keys of the first non-blank line of path when it
// is a JSON object, and false when the file cannot be read, has no such line
// or the line is not an object.
func FirstObject(path string) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	found := false
	errStop := errors.New("stop")
	err := Scan(context.Background(), path, func(_ int, data []byte) error {
		found = json.Unmarshal(data, &obj) == nil && obj != nil
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, false
	}
	return obj, found
}

// KnownTypes are AIPerf's --custom-dataset-type names. A record whose "type"
// field holds one of them declares its format explicitly (AIPerf honours it
// before structural detection); other "type" values (Bailian's "text") are
// ordinary data.
var KnownTypes = map[string]bool{
	"single_turn": true, "multi_turn": true, "random_pool": true, "mooncake_trace": true,
	"bailian_trace": true, "burst_gpt_trace": true,
}

// DeclaredType returns the record's "type" field when it names a known
// format.
func DeclaredType(obj map[string]json.RawMessage) (string, bool) {
	var t string
	if raw, ok := obj["type"]; !ok || json.Unmarshal(raw, &t) != nil || !KnownTypes[t] {
		return "", false
	}
	return t, true
}

// Present reports whether key is in obj with a non-null value.
func Present(obj map[string]json.RawMessage, key string) bool {
	raw, ok := obj[key]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// Decode unmarshals one line into v with an error that says what was wrong,
// prefixed "invalid JSON".
func Decode(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("%s: got JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	return nil
}
