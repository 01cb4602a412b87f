package streamfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines reach the disk by count before Close, and Close flushes the rest.
func TestWriteFlushesByCountAndOnClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.jsonl")
	w, err := Open("test", path, time.Hour, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"a\n", "b\n", "c\n"} {
		if err := w.Write([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Errorf("after 3 writes with a flush every 2: %q", b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\nc\n" {
		t.Errorf("after Close: %q", b)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// The timer flushes lines that never reach the count.
func TestTimerFlushes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	w, err := Open("test", path, 5*time.Millisecond, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for b, _ := os.ReadFile(path); string(b) != "x\n"; b, _ = os.ReadFile(path) {
		if time.Now().After(deadline) {
			t.Fatalf("not flushed by the timer: %q", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOpenNamesTheExporter(t *testing.T) {
	_, err := Open("rawexport", filepath.Join(t.TempDir(), "missing-dir-is-made", "\x00bad"), time.Second, 1)
	if err == nil || !strings.HasPrefix(err.Error(), "rawexport: ") {
		t.Errorf("Open error = %v, want it prefixed with the exporter", err)
	}
}
