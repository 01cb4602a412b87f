// Package shardresult is what one shard of a sharded run hands back to the
// CLI that merges: the result payload, and the framing that carries it
// through a container log (Kubernetes keeps no files of a finished pod).
package shardresult

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Frame line prefixes. A shard's log holds its ordinary log lines too; the
// reader keeps only lines that start with these.
const (
	framePrefix = "AIPERF-RESULT "
	endPrefix   = "AIPERF-RESULT-END "
	// chunkChars keeps each log line well under the line limits of
	// container runtimes and log shippers (16 KiB is common).
	chunkChars = 3072
)

// WriteFrames writes payload to w as framed log lines: gzip, base64, split
// into lines "AIPERF-RESULT <i>/<n> <chunk>", then one line
// "AIPERF-RESULT-END sha256:<hex> <bytes>" with the checksum and length of
// the payload. It returns the checksum ("sha256:<hex>").
func WriteFrames(w io.Writer, payload []byte) (string, error) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(payload); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	enc := base64.StdEncoding.EncodeToString(z.Bytes())
	n := (len(enc) + chunkChars - 1) / chunkChars
	if n == 0 {
		n = 1
	}
	bw := bufio.NewWriter(w)
	for i := 0; i < n; i++ {
		chunk := enc[min(i*chunkChars, len(enc)):min((i+1)*chunkChars, len(enc))]
		fmt.Fprintf(bw, "%s%d/%d %s\n", framePrefix, i+1, n, chunk)
	}
	sum := Checksum(payload)
	fmt.Fprintf(bw, "%s%s %d\n", endPrefix, sum, len(payload))
	return sum, bw.Flush()
}

// Checksum is the payload's "sha256:<hex>".
func Checksum(payload []byte) string {
	h := sha256.Sum256(payload)
	return "sha256:" + hex.EncodeToString(h[:])
}

// ErrNoFrames says a log held no result frames (the shard ended before it
// emitted its result).
var ErrNoFrames = errors.New("no result frames in the log")

// ReadFrames reads a shard's log, keeps its result frames and returns the
// payload and its checksum, after checking that every frame arrived once,
// in order, and that the payload matches the end line's length and
// checksum. Other lines are skipped. A log with frames from two results
// (a restarted container) keeps the last complete one.
func ReadFrames(r io.Reader) ([]byte, string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var (
		parts    []string
		total    int
		payload  []byte
		sum      string
		line     int
		sawFrame bool
	)
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		// kubectl-style timestamps or runtime prefixes may precede the
		// frame; find it anywhere on the line.
		if i := strings.Index(text, endPrefix); i >= 0 {
			sawFrame = true
			fields := strings.Fields(text[i+len(endPrefix):])
			if len(fields) != 2 {
				return nil, "", fmt.Errorf("log line %d: malformed result end line", line)
			}
			if total == 0 || len(parts) != total {
				return nil, "", fmt.Errorf("log line %d: result ends after %d of %d frames", line, len(parts), total)
			}
			p, err := decodeFrames(parts)
			if err != nil {
				return nil, "", fmt.Errorf("log line %d: %w", line, err)
			}
			size, err := strconv.Atoi(fields[1])
			if err != nil || size != len(p) {
				return nil, "", fmt.Errorf("log line %d: result is %d bytes, the end line says %s", line, len(p), fields[1])
			}
			if got := Checksum(p); got != fields[0] {
				return nil, "", fmt.Errorf("log line %d: result checksum %s, the end line says %s", line, got, fields[0])
			}
			payload, sum = p, fields[0]
			parts, total = nil, 0
			continue
		}
		i := strings.Index(text, framePrefix)
		if i < 0 {
			continue
		}
		sawFrame = true
		fields := strings.Fields(text[i+len(framePrefix):])
		if len(fields) != 2 {
			return nil, "", fmt.Errorf("log line %d: malformed result frame", line)
		}
		k, n, ok := parseSeq(fields[0])
		if !ok {
			return nil, "", fmt.Errorf("log line %d: malformed frame number %q", line, fields[0])
		}
		if k == 1 {
			parts, total = nil, n // a new result starts (a restart re-emits)
		}
		if n != total || k != len(parts)+1 {
			return nil, "", fmt.Errorf("log line %d: frame %d/%d out of order (have %d of %d)", line, k, n, len(parts), total)
		}
		parts = append(parts, fields[1])
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("read log: %w", err)
	}
	if payload == nil {
		if sawFrame {
			return nil, "", fmt.Errorf("result incomplete: %d of %d frames and no end line (log truncated?)", len(parts), total)
		}
		return nil, "", ErrNoFrames
	}
	return payload, sum, nil
}

func parseSeq(s string) (k, n int, ok bool) {
	a, b, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	return k, n, err1 == nil && err2 == nil && k >= 1 && n >= 1 && k <= n
}

func decodeFrames(parts []string) ([]byte, error) {
	z, err := base64.StdEncoding.DecodeString(strings.Join(parts, ""))
	if err != nil {
		return nil, fmt.Errorf("result frames: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("result frames: %w", err)
	}
	p, err := io.ReadAll(io.LimitReader(zr, 4<<30))
	if err != nil {
		return nil, fmt.Errorf("result frames: %w", err)
	}
	return p, nil
}

// Termination is the shard's termination message (a pod's
// terminationMessagePath, at most 4096 bytes): its status and the checksum
// of the result it emitted, so the CLI can tell a shard that failed from a
// log that lost lines.
type Termination struct {
	// Status is "ok" or "failed".
	Status   string `json:"status"`
	Checksum string `json:"checksum,omitempty"`
	ExitCode int    `json:"exit_code"`
	Reason   string `json:"reason,omitempty"`
}

// MarshalTermination renders t within Kubernetes' 4096-byte limit (a long
// reason is cut).
func MarshalTermination(t Termination) []byte {
	for {
		b, _ := json.Marshal(t)
		if len(b) <= 4096 || t.Reason == "" {
			return b
		}
		t.Reason = t.Reason[:len(t.Reason)/2] + "…"
	}
}

// ParseTermination reads a termination message.
func ParseTermination(b []byte) (Termination, error) {
	var t Termination
	if err := json.Unmarshal(bytes.TrimSpace(b), &t); err != nil {
		return t, fmt.Errorf("termination message: %w", err)
	}
	if t.Status != "ok" && t.Status != "failed" {
		return t, fmt.Errorf("termination message: status %q, want ok or failed", t.Status)
	}
	return t, nil
}

// IsFrameLine reports whether a log line is one of the result's frames.
func IsFrameLine(line string) bool {
	line = strings.TrimSpace(line)
	return strings.HasPrefix(line, framePrefix) || strings.HasPrefix(line, endPrefix)
}
