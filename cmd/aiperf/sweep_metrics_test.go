package main

// End-to-end checks of AIPerf 0.13's time-weighted sweep metrics
// (docs/METRICS.md §2.5) against the mock server: every tag is exported
// with AIPerf's unit and "sweep8" stats (avg, p50, p90, p95, p99, min, max,
// std: no count, no sum), and the values agree with the concurrency used
// and with the run-level throughputs measured over the same phase window.
// Bit-exact agreement with AIPerf's own numbers is core/metrics'
// TestSweepMatchesAIPerf.

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

var sweepMetricTags = []string{
	"effective_concurrency", "effective_decode_throughput", "effective_prefill_throughput",
	"effective_decode_concurrency", "effective_prefill_concurrency", "effective_total_throughput",
	"effective_decode_throughput_per_user", "effective_prefill_throughput_per_user", "tokens_in_flight",
	"active_decode_throughput", "active_prefill_throughput", "active_decode_throughput_per_user",
	"active_prefill_throughput_per_user", "active_total_throughput",
}

// sweepStats is one sweep metric of our JSON.
type sweepStats struct {
	Unit                                   string
	Avg, P50, P90, P95, P99, Min, Max, Std float64
}

func (r *profileRun) sweep(t *testing.T, tag string) sweepStats {
	t.Helper()
	raw, ok := r.summary[tag]
	if !ok {
		t.Fatalf("%s missing from profile_export_aiperf.json", tag)
	}
	var s sweepStats
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %v", tag, err)
	}
	return s
}

func (r *profileRun) scalar(t *testing.T, tag string) float64 {
	t.Helper()
	var m struct{ Avg float64 }
	if err := json.Unmarshal(r.summary[tag], &m); err != nil {
		t.Fatalf("%s: %v", tag, err)
	}
	return m.Avg
}

// ordered checks min <= p50 <= p90 <= p95 <= p99 <= max and std >= 0.
func (s sweepStats) ordered() bool {
	return s.Min <= s.P50 && s.P50 <= s.P90 && s.P90 <= s.P95 && s.P95 <= s.P99 && s.P99 <= s.Max && s.Std >= 0
}

// relClose compares values computed along different float paths.
func relClose(a, b, tol float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	m := max(a, b, -a, -b, 1)
	return d <= tol*m
}

func TestSweepMetricsStreaming(t *testing.T) {
	const concurrency = 4
	url := startMock(t, mockserver.Config{TTFT: 20 * time.Millisecond, ITL: 2 * time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", strconv.Itoa(concurrency), "--request-count", "16", "--isl", "64", "--osl", "16",
		"--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// AIPerf's units and stats keys, in its order.
	ref := fixtureSummary(t, "a_chat_stream", "profile_export_aiperf.json")
	for _, tag := range sweepMetricTags {
		sameShape(t, r, ref, tag)
		if s := r.sweep(t, tag); !s.ordered() || s.Min < 0 {
			t.Errorf("%s: stats out of order or negative: %+v", tag, s)
		}
	}

	// Time-weighted concurrency over the phase: close to the concurrency
	// used (ramp-up and the last wave's tail pull it below), never above.
	conc := r.sweep(t, "effective_concurrency")
	t.Logf("effective_concurrency %+v", conc)
	if conc.Max != concurrency || conc.P50 != concurrency || conc.Avg < 0.6*concurrency || conc.Avg > concurrency {
		t.Errorf("effective_concurrency %+v with --concurrency %d", conc, concurrency)
	}
	// A request in flight is in prefill or in decode.
	pre, dec := r.sweep(t, "effective_prefill_concurrency"), r.sweep(t, "effective_decode_concurrency")
	if !relClose(pre.Avg+dec.Avg, conc.Avg, 1e-9) || pre.Avg <= 0 || dec.Avg <= 0 {
		t.Errorf("prefill %v + decode %v concurrency != %v", pre.Avg, dec.Avg, conc.Avg)
	}

	// Averages of rate curves over the phase window are tokens / window:
	// the prefill rate is input_token_throughput, the decode rate carries
	// every output token but each request's first, and the total adds both
	// (with the decode rate uniform per request). The per-chunk decode rate
	// is held over chunk intervals whose float64 epoch-ns ends round to 256
	// ns (as in AIPerf), hence its looser tolerance.
	requests := r.scalar(t, "request_count")
	window := requests / r.scalar(t, "request_throughput")
	inputTPS := r.scalar(t, "input_token_throughput")
	decodeTPS := (r.scalar(t, "total_osl") - requests) / window
	if prefill := r.sweep(t, "effective_prefill_throughput"); !relClose(prefill.Avg, inputTPS, 1e-6) {
		t.Errorf("effective_prefill_throughput avg %v, input_token_throughput %v", prefill.Avg, inputTPS)
	}
	if decode := r.sweep(t, "effective_decode_throughput"); !relClose(decode.Avg, decodeTPS, 1e-3) {
		t.Errorf("effective_decode_throughput avg %v, (total OSL - requests) / window %v", decode.Avg, decodeTPS)
	}
	if total := r.sweep(t, "effective_total_throughput"); !relClose(total.Avg, inputTPS+decodeTPS, 1e-6) {
		t.Errorf("effective_total_throughput avg %v, input_token_throughput + decode %v", total.Avg, inputTPS+decodeTPS)
	}
	// The active variants leave idle time out: never below the effective.
	for _, p := range [][2]string{{"active_decode_throughput", "effective_decode_throughput"},
		{"active_prefill_throughput", "effective_prefill_throughput"},
		{"active_total_throughput", "effective_total_throughput"},
		{"active_decode_throughput_per_user", "effective_decode_throughput_per_user"},
		{"active_prefill_throughput_per_user", "effective_prefill_throughput_per_user"}} {
		if a, e := r.sweep(t, p[0]), r.sweep(t, p[1]); a.Avg < e.Avg || a.Avg <= 0 {
			t.Errorf("%s avg %v < %s avg %v", p[0], a.Avg, p[1], e.Avg)
		}
	}
	// Tokens in flight: at most every slot's ISL + OSL.
	if tif := r.sweep(t, "tokens_in_flight"); tif.Max <= 0 || tif.Max > concurrency*(64+16) || tif.Avg <= 0 {
		t.Errorf("tokens_in_flight %+v", tif)
	}

	// CSV: in the stats section, sweep8 cells filled, the others empty; the
	// unit is left out of the requests metrics' names, as AIPerf does.
	path := filepath.Join(r.dir, "profile_export_aiperf.csv")
	header := csvRow(t, path, "Metric")
	for name, unit := range map[string]string{"Effective Concurrency": "", "Tokens In Flight": " (tokens)",
		"Active Decode Throughput Per User": " (tokens/sec/user)", "Effective Total Throughput": " (tokens/sec)"} {
		row := csvRow(t, path, name+unit)
		if row == nil || len(row) != len(header) {
			t.Errorf("CSV row %q: %v (header %v)", name+unit, row, header)
			continue
		}
		for i, col := range header[1:] {
			filled := row[i+1] != ""
			if want := slices.Contains([]string{"avg", "min", "max", "p50", "p90", "p95", "p99", "std"}, col); filled != want {
				t.Errorf("CSV %s.%s = %q", name, col, row[i+1])
			}
		}
	}
}

// Without streaming there is no first token: every sweep metric is there,
// and only the request concurrency is nonzero (AIPerf's b_chat_nostream).
func TestSweepMetricsNonStreaming(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 10 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--endpoint-type", "chat",
		"--concurrency", "2", "--request-count", "8", "--isl", "64", "--osl", "16")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	ref := fixtureSummary(t, "b_chat_nostream", "profile_export_aiperf.json")
	for _, tag := range sweepMetricTags {
		sameShape(t, r, ref, tag)
		s := r.sweep(t, tag)
		if tag == "effective_concurrency" {
			if s.Max != 2 || s.Avg <= 1 || s.Avg > 2 {
				t.Errorf("effective_concurrency %+v with --concurrency 2", s)
			}
			continue
		}
		if s != (sweepStats{Unit: s.Unit}) {
			t.Errorf("%s = %+v, want zeros", tag, s)
		}
	}
}
