package app

import (
	"bytes"
	"strings"
	"testing"
)

func TestLogGateHoldsLinesWhileAFullScreenUIRuns(t *testing.T) {
	var out bytes.Buffer
	g := NewLogGate(&out)
	g.Write([]byte("before\n"))
	g.Hold()
	g.Write([]byte("during 1\n"))
	g.Write([]byte("during 2\n"))
	if out.String() != "before\n" {
		t.Fatalf("held gate wrote %q", out.String())
	}
	g.Release("logs/aiperf.log")
	g.Write([]byte("after\n"))
	if want := "before\nduring 1\nduring 2\nafter\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	g.Release("logs/aiperf.log") // not held: nothing happens
	if strings.Count(out.String(), "during") != 2 {
		t.Error("a second Release wrote the lines again")
	}
}

func TestLogGateBoundsWhatItHolds(t *testing.T) {
	var out bytes.Buffer
	g := NewLogGate(&out)
	g.Hold()
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range 1100 { // 1.1 MB of 1 KB lines: 1024 fit
		if n, err := g.Write(line); n != len(line) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	g.Release("artifacts/run/logs/aiperf.log")
	got := out.String()
	if kept := strings.Count(got, "x\n"); kept != maxHeldBytes/len(line) {
		t.Errorf("kept %d lines, want %d", kept, maxHeldBytes/len(line))
	}
	if !strings.Contains(got, "(76 more log lines while the dashboard ran are in artifacts/run/logs/aiperf.log)") {
		t.Errorf("no line naming the dropped lines and the log file: %q", got[len(got)-120:])
	}
}
