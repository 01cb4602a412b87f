package config

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// --export-http-trace and --show-trace-timing (AIPerf 0.13's
// CLIConfig.export_http_trace and show_trace_timing): off by default, on
// from the flag, the environment or a config file.
func TestHTTPTraceFlags(t *testing.T) {
	pinTerminal(t, false)
	file := writeFile(t, "cfg.yaml", "model_names: [m]\nexport_http_trace: true\nshow_trace_timing: true\n")
	tests := []struct {
		name        string
		env, args   []string
		trace, show bool
	}{
		{"defaults", nil, []string{"-m", "m"}, false, false},
		{"export flag", nil, []string{"-m", "m", "--export-http-trace"}, true, false},
		{"show flag", nil, []string{"-m", "m", "--show-trace-timing"}, false, true},
		{"both flags", nil, []string{"-m", "m", "--export-http-trace", "--show-trace-timing"}, true, true},
		{"explicit false", nil, []string{"-m", "m", "--export-http-trace=false", "--show-trace-timing=false"}, false, false},
		{"env", []string{"AIPERF_EXPORT_HTTP_TRACE=true", "AIPERF_SHOW_TRACE_TIMING=1"}, []string{"-m", "m"}, true, true},
		{"config file", nil, []string{"--config", file}, true, true},
		{"flag over file", nil, []string{"--config", file, "--show-trace-timing=false"}, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := load(t, tc.env, tc.args...)
			if cfg.ExportHTTPTrace != tc.trace || cfg.ShowTraceTiming != tc.show {
				t.Errorf("ExportHTTPTrace=%v ShowTraceTiming=%v, want %v %v",
					cfg.ExportHTTPTrace, cfg.ShowTraceTiming, tc.trace, tc.show)
			}
		})
	}
}

// Both are value-less flags under Output (where the reference lists them),
// right after --export-level, with AIPerf's help text.
func TestHTTPTraceFlagsHelp(t *testing.T) {
	root := &cobra.Command{Use: "aiperf"}
	cmd := &cobra.Command{Use: "profile", RunE: func(*cobra.Command, []string) error { return nil }}
	RegisterProfileFlags(cmd)
	AnnotateChoices(cmd, testChoices)
	root.AddCommand(cmd)
	root.SetArgs([]string{"profile", "--help"})
	var buf bytes.Buffer
	root.SetOut(&buf)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	output, tokenizer := strings.Index(out, "\nOutput:\n"), strings.Index(out, "\nTokenizer:\n")
	level := strings.Index(out, "  --export-level, --profile-export-level <str>")
	trace := strings.Index(out, "  --export-http-trace\n")
	show := strings.Index(out, "  --show-trace-timing\n")
	if output < 0 || tokenizer < 0 || level < 0 || trace < 0 || show < 0 {
		t.Fatalf("help lacks the Output group or a flag:\n%s", out)
	}
	if !(output < level && level < trace && trace < show && show < tokenizer) {
		t.Errorf("flags out of place: Output@%d export-level@%d export-http-trace@%d show-trace-timing@%d Tokenizer@%d",
			output, level, trace, show, tokenizer)
	}
	// The help wraps lines; compare the words.
	words := strings.Join(strings.Fields(out[trace:tokenizer]), " ")
	for _, want := range []string{
		"Include HTTP trace data (timestamps, chunks, headers, socket info) in profile_export.jsonl. Computed metrics (http_req_duration, http_req_waiting, etc.) are always included regardless of this setting. See the HTTP Trace Metrics guide for details on trace data fields.",
		"Display HTTP trace timing metrics in the console at the end of the benchmark. Shows detailed timing breakdown: blocked, DNS, connecting, sending, waiting (TTFB), receiving, and total duration following k6 naming conventions.",
	} {
		if !strings.Contains(words, want) {
			t.Errorf("help lacks %q in:\n%s", want, out[trace:tokenizer])
		}
	}
	if strings.Contains(out, "--no-export-http-trace") || strings.Contains(out, "--no-show-trace-timing") {
		t.Error("AIPerf has no negative forms of the trace flags")
	}
}

// AIPerf's converter copies the flags into input_config.artifacts as
// "trace" and "show_trace_timing" (config/flags/_converter_runtime.py
// build_artifacts); its reference run with both flags differs from
// a_chat_stream in exactly those two keys (and the directory).
func TestInputConfigHTTPTraceMatchesAIPerf(t *testing.T) {
	pinTerminal(t, false)
	want := fixtureInputConfig(t, "a_chat_stream/profile_export_aiperf.json")
	a := want["artifacts"].(map[string]any)
	a["trace"] = true
	a["show_trace_timing"] = true
	args := append(append([]string(nil), fixtureFlags...), "--endpoint-type", "chat", "--streaming",
		"--export-http-trace", "--show-trace-timing", "--artifact-dir", a["dir"].(string))
	cfg, _ := load(t, nil, args...)
	for _, d := range sameJSON("input_config", cfg.InputConfig(), want) {
		t.Error(d)
	}

	// Off, they are left out (exclude_unset).
	cfg, _ = load(t, nil, "-m", "m")
	if got := cfg.InputConfig()["artifacts"]; !reflect.DeepEqual(got, map[string]any{"auto_plot": false, "plot_required": false}) {
		t.Errorf("artifacts = %#v", got)
	}
	cfg, _ = load(t, nil, "-m", "m", "--show-trace-timing")
	if got := cfg.InputConfig()["artifacts"]; !reflect.DeepEqual(got, map[string]any{"show_trace_timing": true, "auto_plot": false, "plot_required": false}) {
		t.Errorf("artifacts with --show-trace-timing only = %#v", got)
	}
}
