package jsonl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScanNumbersLinesAndSkipsBlanks(t *testing.T) {
	path := write(t, "{\"a\":1}\n\n   \r\n{\"b\":2}\r\n{\"c\":3}")
	var got []string
	err := Scan(context.Background(), path, func(line int, data []byte) error {
		got = append(got, string(rune('0'+line))+"="+string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(got, " "); s != `1={"a":1} 4={"b":2} 5={"c":3}` {
		t.Errorf("lines = %s", s)
	}
}

func TestScanWrapsErrorsWithFileAndLine(t *testing.T) {
	path := write(t, "x\ny\nz\n")
	err := Scan(context.Background(), path, func(line int, _ []byte) error {
		if line == 2 {
			return errors.New("boom")
		}
		return nil
	})
	var le *Error
	if !errors.As(err, &le) || le.Line != 2 || err.Error() != path+":2: boom" {
		t.Errorf("err = %v", err)
	}
}

func TestScanRejectsOverlongLine(t *testing.T) {
	defer func(old int) { MaxLine = old }(MaxLine)
	MaxLine = 64
	path := write(t, "{}\n"+strings.Repeat("x", 100)+"\n")
	err := Scan(context.Background(), path, func(int, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path+":2: line longer than") {
		t.Errorf("err = %v", err)
	}
}

func TestFirstObjectAndDeclaredType(t *testing.T) {
	obj, ok := FirstObject(write(t, "\n\n{\"type\": \"mooncake_trace\", \"x\": null}\n[1]\n"))
	if !ok {
		t.Fatal("first object not found")
	}
	if typ, declared := DeclaredType(obj); !declared || typ != "mooncake_trace" {
		t.Errorf("declared type = %q, %v", typ, declared)
	}
	if Present(obj, "x") || Present(obj, "missing") || !Present(obj, "type") {
		t.Error("Present must treat null and missing keys as absent")
	}
	if obj, _ := FirstObject(write(t, `{"type": "text"}`)); func() bool { _, d := DeclaredType(obj); return d }() {
		t.Error(`a "type" that names no format (Bailian's "text") is data, not a declaration`)
	}
	if _, ok := FirstObject(write(t, "[1, 2]\n{}\n")); ok {
		t.Error("a first record that is not an object must not count")
	}
}

// ErrStop ends a scan early with no error: the lines after it are not read.
func TestScanStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var seen []int
	err := Scan(context.Background(), path, func(line int, _ []byte) error {
		seen = append(seen, line)
		if line == 2 {
			return ErrStop
		}
		return nil
	})
	if err != nil || len(seen) != 2 {
		t.Fatalf("err %v, lines %v; want nil and [1 2]", err, seen)
	}
}
