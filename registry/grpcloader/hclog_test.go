package grpcloader

import (
	"log/slog"
	"strings"
	"testing"
)

func TestHCLogAdapterLevels(t *testing.T) {
	logs := &logBuffer{}
	root := newHCLogAdapter(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})).With("plugin", "endpoint.x"))
	stderr := root.Named("x-bin")
	tests := []struct {
		name string
		emit func()
		want string
	}{
		{"plain stderr line is promoted", func() { stderr.Debug("hello user") }, `level=INFO msg="hello user" plugin=endpoint.x logger=x-bin`},
		{"explicit [DEBUG] line stays debug", func() { stderr.Debug("[DEBUG] detail") }, `level=DEBUG msg="[DEBUG] detail"`},
		{"structured debug stays debug", func() { stderr.Debug("plugin address", "network", "unix", "timestamp", "T") },
			`level=DEBUG msg="plugin address" plugin=endpoint.x network=unix logger=x-bin`},
		{"go-plugin's own debug stays debug", func() { root.Debug("starting plugin", "path", "/p") }, `level=DEBUG msg="starting plugin" plugin=endpoint.x path=/p`},
		{"errors keep their level", func() { root.Error("plugin process exited", "error", "exit status 3") },
			`level=ERROR msg="plugin process exited" plugin=endpoint.x error="exit status 3"`},
		{"odd args are kept", func() { root.Info("odd", "k") }, `msg=odd plugin=endpoint.x extra=k`},
	}
	for _, tc := range tests {
		tc.emit()
		if !strings.Contains(logs.String(), tc.want) {
			t.Errorf("%s: log lacks %q:\n%s", tc.name, tc.want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "timestamp=") {
		t.Error("the plugin's timestamp was forwarded")
	}
	if !root.IsDebug() || root.IsTrace() {
		t.Errorf("IsDebug %v IsTrace %v at slog debug level", root.IsDebug(), root.IsTrace())
	}
}

func TestLineWriterSplitsLines(t *testing.T) {
	var got []string
	w := &lineWriter{emit: func(s string) { got = append(got, s) }}
	for _, chunk := range []string{"par", "tial\nsecond\r\n", "\n", "third", "\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"partial", "second", "third"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", got, want)
	}
	big := strings.Repeat("x", maxLine+1)
	_, _ = w.Write([]byte(big))
	if len(got) != 4 || len(got[3]) != maxLine+1 {
		t.Errorf("an overlong unterminated line was not flushed (%d lines)", len(got))
	}
}
