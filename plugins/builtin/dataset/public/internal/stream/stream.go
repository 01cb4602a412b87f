// Package stream reads public dataset files one record at a time, so a
// dataset of any size never sits in memory whole: a JSON array element by
// element, JSON Lines line by line, and Parquet row by row (with
// github.com/parquet-go/parquet-go). Errors name the file and the record.
package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// ErrStop, returned by a callback, ends the read early without an error.
var ErrStop = jsonl.ErrStop

// cancelEvery is how many records pass between context checks.
const cancelEvery = 256

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
// during the call. It is the custom loaders' scanner (jsonl.Scan).
func JSONL(ctx context.Context, path string, fn func(line int, data []byte) error) error {
	return jsonl.Scan(ctx, path, fn)
}
