package oslmismatch

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func results(kv map[string]float64) *sdk.Results {
	res := &sdk.Results{}
	for tag, v := range kv {
		res.Metrics = append(res.Metrics, sdk.MetricResult{Tag: tag, Avg: &v})
	}
	return res
}

func render(t *testing.T, res *sdk.Results, opts ...Option) string {
	t.Helper()
	var buf bytes.Buffer
	opts = append([]Option{WithColor(false), WithGetenv(func(string) string { return "" })}, opts...)
	if err := New(opts...).Render(context.Background(), &buf, &sdk.ExportContext{Results: res}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The panel AIPerf 0.13 prints (console_osl_mismatch_exporter.py) as Rich
// lays it out without colour: a blank line, then a rounded box as wide as
// its longest line plus two spaces of padding each side, the title centred.
func TestGolden(t *testing.T) {
	got := render(t, results(map[string]float64{
		metrics.TagOSLMismatchCount: 6, metrics.TagRequestCount: 8, metrics.TagOSLMismatchDiff: -43.75,
	}))
	want := `
╭───────────────────────────── Output Sequence Length Mismatch Warning ─────────────────────────────╮
│  6 of 8 requests (75.0%) have output length differing from requested by more than the threshold.  │
│  Threshold (tokens): min(requested x 5%, 50)                                                      │
│  Average mismatch: -43.8%                                                                         │
│                                                                                                   │
│  Why: Server hit EOS token before reaching requested output length.                               │
│                                                                                                   │
│  Fix Options:                                                                                     │
│    - --extra-inputs ignore_eos:true - Generate until max_tokens (vLLM, TensorRT-LLM)              │
│    - --extra-inputs min_tokens:<N> - Set minimum output length (vLLM, TensorRT-LLM, SGLang)       │
│    - --use-server-token-count - Use server-reported token counts if tokenizer mismatch suspected  │
│                                                                                                   │
│  Diagnostics:                                                                                     │
│    - Review profile_export.jsonl -> osl_mismatch_diff_pct for per-request values                  │
│    - Adjust: AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD=5                                          │
│    - Adjust: AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD=50                                   │
╰───────────────────────────────────────────────────────────────────────────────────────────────────╯
`
	if got != want {
		t.Errorf("panel:\n%s\nwant:\n%s", got, want)
	}
	lines := strings.Split(strings.TrimPrefix(got, "\n"), "\n")
	for i, l := range lines[:len(lines)-1] {
		if n := len([]rune(l)); n != len([]rune(lines[0])) {
			t.Errorf("line %d is %d wide, the border %d", i, n, len([]rune(lines[0])))
		}
	}
}

func TestPrintedOnlyOnMismatch(t *testing.T) {
	for name, res := range map[string]*sdk.Results{
		"nil results":       nil,
		"no mismatch count": results(map[string]float64{metrics.TagRequestCount: 8}),
		"zero mismatches":   results(map[string]float64{metrics.TagOSLMismatchCount: 0, metrics.TagRequestCount: 8}),
		"no valid requests": results(map[string]float64{metrics.TagOSLMismatchCount: 2}),
	} {
		if out := render(t, res); out != "" {
			t.Errorf("%s: printed %q", name, out)
		}
	}
	if err := New().Render(context.Background(), &bytes.Buffer{}, nil); err == nil {
		t.Error("nil context accepted")
	}
}

func TestTextVariants(t *testing.T) {
	// Thousands separators, no average, thresholds from the environment.
	env := map[string]string{metrics.EnvOSLMismatchPct: "12.5", metrics.EnvOSLMismatchMaxTokens: "20"}
	out := render(t, results(map[string]float64{metrics.TagOSLMismatchCount: 1234, metrics.TagRequestCount: 100000}),
		WithGetenv(func(k string) string { return env[k] }))
	for _, want := range []string{
		"1,234 of 100,000 requests (1.2%) have output length",
		"Average mismatch: N/A",
		"min(requested x 12.5%, 20)",
		"AIPERF_METRICS_OSL_MISMATCH_PCT_THRESHOLD=12.5",
		"AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD=20",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	colored := render(t, results(map[string]float64{metrics.TagOSLMismatchCount: 1, metrics.TagRequestCount: 2}), WithColor(true))
	if !strings.Contains(colored, "\x1b[1;33m╭─") || !strings.Contains(colored, "\x1b[32m--extra-inputs ignore_eos:true\x1b[0m") {
		t.Errorf("colour missing:\n%q", colored)
	}
	if pyG(5) != "5" || pyG(0.5) != "0.5" || pyG(1e-5) != "1e-05" || pyG(1234567) != "1.23457e+06" {
		t.Errorf("pyG: %s %s %s %s", pyG(5), pyG(0.5), pyG(1e-5), pyG(1234567))
	}
}
