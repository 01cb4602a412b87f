package grpcloader

import (
	"fmt"
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
		{"go-plugin's own info is demoted, its plugin key renamed", func() { root.Info("plugin process exited", "plugin", "/bin/x") },
			`level=DEBUG msg="plugin process exited" plugin=endpoint.x binary=/bin/x`},
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

func TestPrefixLevel(t *testing.T) {
	tests := []struct {
		line string
		want slog.Level
	}{
		{"hello", slog.LevelInfo},
		{"[DEBUG] frame", slog.LevelDebug},
		{"[TRACE] x", slog.LevelDebug - 4},
		{"[WARN] grpcplugin: recovered panic", slog.LevelWarn},
		{"[ERROR] bad", slog.LevelError},
		{" [ERROR] not a prefix", slog.LevelInfo},
	}
	for _, tc := range tests {
		if got := prefixLevel(tc.line); got != tc.want {
			t.Errorf("prefixLevel(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestPluginEnvKeepsOnlyWhatAPluginNeeds(t *testing.T) {
	got := pluginEnv([]string{"PATH=/bin", "AIPERF_API_KEY=sk-secret", "HF_TOKEN=hf_x", "AWS_SECRET_ACCESS_KEY=a",
		"LANG=C.UTF-8", "AIPERF_PLUGIN_ENV_MY_SETTING=on", "AIPERF_PLUGIN_ENV_=x", "MALFORMED"})
	want := []string{"PATH=/bin", "LANG=C.UTF-8", "MY_SETTING=on"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pluginEnv = %v, want %v", got, want)
	}
}
