package artifacts

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// MaxLine is the longest JSONL line the readers accept (a record with
// thousands of inter-chunk latencies stays far below it).
const MaxLine = 64 << 20

// ScanJSONL calls fn with every non-blank line of r, a JSONL file named
// name; an error of fn or of reading comes back as "name:line: err", so
// every reader of our per-line exports names the line it could not use.
func ScanJSONL(r io.Reader, name string, fn func(line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := fn(b); err != nil {
			return fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}
