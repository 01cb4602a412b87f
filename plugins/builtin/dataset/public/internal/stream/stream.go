// Package stream reads public dataset files one record at a time, so a
// dataset of any size never sits in memory whole: a JSON array element by
// element, JSON Lines line by line, and Parquet row by row (with
// github.com/parquet-go/parquet-go). Errors name the file and the record.
package stream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrStop, returned by a callback, ends the read early without an error.
var ErrStop = errors.New("stop reading")

// cancelEvery is how many records pass between context checks.
const cancelEvery = 256

// MaxLine is the longest JSON Lines line accepted.
const MaxLine = 256 << 20

// JSONArray calls fn with each element of the top-level JSON array in path,
// in order, with its 0-based index. The raw element is valid only during
// the call.
func JSONArray(ctx context.Context, path string, fn func(i int, elem json.RawMessage) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: not a JSON array: %w", path, eofAsUnexpected(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("%s: not a JSON array (it starts with %v)", path, tok)
	}
	var elem json.RawMessage
	for i := 0; dec.More(); i++ {
		if i%cancelEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("reading %s: %w", path, ctx.Err())
		}
		off := dec.InputOffset()
		elem = elem[:0]
		if err := dec.Decode(&elem); err != nil {
			return fmt.Errorf("%s: element %d (byte %d): %w", path, i, off, eofAsUnexpected(err))
		}
		if err := fn(i, elem); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return fmt.Errorf("%s: element %d: %w", path, i, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: the JSON array does not end: %w", path, eofAsUnexpected(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: data after the JSON array", path)
	}
	return nil
}

func eofAsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// JSONL calls fn with every non-blank line of path, in order, with its
// 1-based line number; errors name path:line. The line is valid only
// during the call.
func JSONL(ctx context.Context, path string, fn func(line int, data []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), MaxLine)
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
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d MiB", path, n+1, MaxLine>>20)
		}
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}
