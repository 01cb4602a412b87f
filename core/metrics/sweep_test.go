package metrics

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// sweepTags are the sweep metrics in AIPerf's result order.
var sweepTags = []string{
	TagEffectiveConcurrency, TagEffectiveDecodeThroughput, TagEffectivePrefillThroughput,
	TagEffectiveDecodeConcurrency, TagEffectivePrefillConcurrency, TagEffectiveTotalThroughput,
	TagEffectiveDecodeThroughputPerUser, TagEffectivePrefillThroughputPerUser, TagTokensInFlight,
	TagActiveDecodeThroughput, TagActivePrefillThroughput, TagActiveDecodeThroughputPerUser,
	TagActivePrefillThroughputPerUser, TagActiveTotalThroughput,
}

// sweepStatKeys are the stats of a sweep metric (GAPS' "sweep8" shape).
var sweepStatKeys = []string{"avg", "p50", "p90", "p95", "p99", "min", "max", "std"}

func sweepStat(m *sdk.MetricResult, key string) *float64 {
	switch key {
	case "avg":
		return m.Avg
	case "p50":
		return m.P50
	case "p90":
		return m.P90
	case "p95":
		return m.P95
	case "p99":
		return m.P99
	case "min":
		return m.Min
	case "max":
		return m.Max
	case "std":
		return m.Std
	}
	return nil
}

// fixturePerfBase is the monotonic reading the fixture records start at
// (any nonzero value: 0 means "never").
const fixturePerfBase = int64(1_000_000_000)

// readSweepFixture turns AIPerf's JSONL records of the profiling phase into
// what our record processor hands the accumulator: wall start, monotonic
// start/end, TTFT and ICL in ns (AIPerf writes ms with ns precision), ISL,
// OSL and the error.
func readSweepFixture(t *testing.T, path string, streaming bool) []*sdk.RecordMetrics {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*sdk.RecordMetrics
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Metadata struct {
				Start int64  `json:"request_start_ns"`
				End   int64  `json:"request_end_ns"`
				Phase string `json:"benchmark_phase"`
			} `json:"metadata"`
			Metrics map[string]struct {
				Value json.RawMessage `json:"value"`
				Unit  string          `json:"unit"`
			} `json:"metrics"`
			Error *sdk.ErrorDetails `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Metadata.Phase != sdk.PhaseProfiling {
			continue // AIPerf's export masks the phase's records
		}
		md := line.Metadata
		rec := &sdk.RequestRecord{TimestampNs: md.Start, StartPerfNs: fixturePerfBase, EndPerfNs: fixturePerfBase + md.End - md.Start,
			Streaming: streaming, Phase: sdk.PhaseProfiling, Status: 200, Error: line.Error}
		values := map[string]sdk.MetricValue{}
		for tag, m := range line.Metrics {
			toBase := func(x float64) float64 {
				if m.Unit == "ms" {
					return math.Round(x * 1e6)
				}
				return x
			}
			var list []float64
			if json.Unmarshal(m.Value, &list) == nil {
				for i := range list {
					list[i] = toBase(list[i])
				}
				values[tag] = sdk.MetricValue{List: list, IsList: true}
				continue
			}
			var x float64
			if err := json.Unmarshal(m.Value, &x); err != nil {
				t.Fatalf("%s: %v", tag, err)
			}
			values[tag] = sdk.MetricValue{Scalar: toBase(x)}
		}
		out = append(out, &sdk.RecordMetrics{Record: rec, Values: values})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

type sweepExpected struct {
	Streaming  bool                      `json:"streaming"`
	PhaseStart int64                     `json:"phase_start_ns"`
	PhaseEnd   int64                     `json:"phase_end_ns"`
	Metrics    map[string]map[string]any `json:"metrics"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// resultsByTag indexes Summarize's metrics.
func resultsByTag(res *sdk.Results) map[string]*sdk.MetricResult {
	m := make(map[string]*sdk.MetricResult, len(res.Metrics))
	for i := range res.Metrics {
		m[res.Metrics[i].Tag] = &res.Metrics[i]
	}
	return m
}

// AIPerf 0.13's own runs, recomputed from their records: every stat of
// every sweep metric comes out bit for bit as AIPerf wrote it (float64
// epoch-ns timestamps, the same event order and numpy's summation order).
// Streaming chat and completions, non-streaming (only the concurrency is
// nonzero), multi-turn, a warmup phase (its records left out) and failed
// requests (zero-length, with no first token).
func TestSweepMatchesAIPerf(t *testing.T) {
	for _, name := range []string{"a_chat_stream", "b_chat_nostream", "c_completions_stream", "d_chat_multiturn", "g_chat_warmup", "h_chat_errors_raw"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "sweep", name)
			var want sweepExpected
			readJSON(t, filepath.Join(dir, "expected.json"), &want)
			info := testfixtures.StreamingRun()
			info.Streaming = want.Streaming
			acc, err := NewAccumulator(newCatalog(t, info), info)
			if err != nil {
				t.Fatal(err)
			}
			acc.SetPhaseStart(want.PhaseStart)
			acc.SetPhaseEnd(want.PhaseEnd)
			for _, rm := range readSweepFixture(t, filepath.Join(dir, "profile_export.jsonl"), want.Streaming) {
				acc.Add(rm)
			}
			got := resultsByTag(acc.Summarize())
			for _, tag := range sweepTags {
				m := got[tag]
				if m == nil {
					t.Errorf("%s: missing", tag)
					continue
				}
				w := want.Metrics[tag]
				if m.Unit != w["unit"] {
					t.Errorf("%s: unit %q, AIPerf %q", tag, m.Unit, w["unit"])
				}
				for _, k := range sweepStatKeys {
					g := sweepStat(m, k)
					if g == nil || *g != w[k] {
						t.Errorf("%s.%s = %v, AIPerf %v", tag, k, fmtPtr(g), w[k])
					}
				}
				if m.Count != nil || m.Sum != nil || m.P1 != nil || m.P5 != nil || m.P10 != nil || m.P25 != nil || m.P75 != nil {
					t.Errorf("%s carries stats beyond sweep8: %+v", tag, m)
				}
			}
		})
	}
}

func fmtPtr(p *float64) string {
	if p == nil {
		return "<nil>"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// The copies under testdata/sweep hold AIPerf's values: the summary files
// of testdata/aiperf013 match them (a's exactly; b's are rounded to about
// four significant digits).
func TestSweepFixturesMatchAIPerf013(t *testing.T) {
	for name, tol := range map[string]float64{"a_chat_stream": 0, "b_chat_nostream": 1e-3} {
		var want sweepExpected
		readJSON(t, filepath.Join("testdata", "sweep", name, "expected.json"), &want)
		var full map[string]json.RawMessage
		readJSON(t, filepath.Join("..", "..", "testdata", "aiperf013", name, "profile_export_aiperf.json"), &full)
		for _, tag := range sweepTags {
			var m map[string]any
			if err := json.Unmarshal(full[tag], &m); err != nil {
				t.Fatalf("%s %s: %v", name, tag, err)
			}
			for _, k := range sweepStatKeys {
				g, _ := m[k].(float64)
				w, _ := want.Metrics[tag][k].(float64)
				if math.Abs(g-w) > tol*math.Abs(w) {
					t.Errorf("%s %s.%s: %v in testdata/aiperf013, %v here", name, tag, k, m[k], want.Metrics[tag][k])
				}
			}
		}
	}
}

// The sweep metrics' catalog entries: AIPerf's tags, headers and units,
// no flags of AIPerf's (NO_CONSOLE: its Effective and Active console tables
// are not ours), no display order, applicable to every run.
func TestSweepDefinitions(t *testing.T) {
	headers := []string{"Effective Concurrency", "Effective Decode Throughput", "Effective Prefill Throughput",
		"Effective Decode Concurrency", "Effective Prefill Concurrency", "Effective Total Throughput",
		"Effective Decode Throughput Per User", "Effective Prefill Throughput Per User", "Tokens In Flight",
		"Active Decode Throughput", "Active Prefill Throughput", "Active Decode Throughput Per User",
		"Active Prefill Throughput Per User", "Active Total Throughput"}
	units := []string{"requests", "tokens/sec", "tokens/sec", "requests", "requests", "tokens/sec",
		"tokens/sec/user", "tokens/sec/user", "tokens", "tokens/sec", "tokens/sec", "tokens/sec/user",
		"tokens/sec/user", "tokens/sec"}
	nonStreaming := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{}}
	for _, info := range []sdk.RunInfo{streamingInfo(), nonStreaming} {
		cat := newCatalog(t, info)
		for i, tag := range sweepTags {
			d, ok := cat.Lookup(tag)
			if !ok || d.Header != headers[i] || d.Unit != units[i] || d.DisplayUnit != units[i] || d.Kind != KindSweep ||
				d.Flags != 0 || d.DisplayOrder != SweepDisplayOrder+i || d.ShortHeader != "" || len(d.Requires) != 0 ||
				d.ConsoleGroup != map[bool]string{true: sdk.ConsoleGroupActive, false: sdk.ConsoleGroupEffective}[strings.HasPrefix(tag, "active_")] {
				t.Errorf("Lookup(%s) = %+v", tag, d)
			}
			if !cat.Applies(tag) || !IsRunLevel(tag) {
				t.Errorf("%s: applies %v, run-level %v", tag, cat.Applies(tag), IsRunLevel(tag))
			}
			if r := notSLOReason(&d); r == "" {
				t.Errorf("%s may be a goodput target", tag)
			}
		}
	}
	if KindSweep.String() != "sweep" {
		t.Errorf("KindSweep = %q", KindSweep)
	}
	// A record processor may not declare one.
	_, err := NewCatalog([]Declared{{Plugin: "p", Specs: []sdk.MetricSpec{{Tag: TagTokensInFlight, Unit: "tokens"}}}}, streamingInfo())
	if err == nil {
		t.Error("a record processor declared tokens_in_flight")
	}
}

// sweepAcc is an accumulator over AIPerf's record metrics with a phase
// window.
func sweepAcc(t *testing.T, info sdk.RunInfo, w0, w1 int64) *Accumulator {
	t.Helper()
	acc, err := NewAccumulator(newCatalog(t, info), info)
	if err != nil {
		t.Fatal(err)
	}
	acc.SetPhaseStart(w0)
	acc.SetPhaseEnd(w1)
	return acc
}

// streamRec is a successful streaming record: wall start, first token and
// end (ns), ISL, OSL and ICL gaps.
func streamRec(start, ttft, end int64, isl, osl float64, icl ...float64) *sdk.RecordMetrics {
	v := map[string]sdk.MetricValue{
		TagRequestLatency: {Scalar: float64(end - start)}, TagTTFT: {Scalar: float64(ttft)},
		TagISL: {Scalar: isl}, TagOSL: {Scalar: osl},
	}
	if len(icl) > 0 {
		v[TagICL] = list(icl...)
	}
	rm := processed(start, v)
	rm.Record.StartPerfNs, rm.Record.EndPerfNs = fixturePerfBase, fixturePerfBase+end-start
	return rm
}

func wantSweep(t *testing.T, got map[string]*sdk.MetricResult, tag string, want map[string]float64) {
	t.Helper()
	m := got[tag]
	if m == nil {
		t.Errorf("%s: missing", tag)
		return
	}
	for _, k := range sweepStatKeys {
		w, ok := want[k]
		if !ok {
			continue
		}
		if g := sweepStat(m, k); g == nil || !near(*g, w) {
			t.Errorf("%s.%s = %s, want %v", tag, k, fmtPtr(g), w)
		}
	}
}

// One streaming record worked by hand: it starts at 10, its first token
// arrives at 30 and four more chunks 10 ns apart (the last one at its end,
// 70, is counted just before it), with 40 input and 5 output tokens; the
// phase is [0, 100].
func TestSweepOneRecord(t *testing.T) {
	acc := sweepAcc(t, streamingInfo(), 0, 100)
	acc.Add(streamRec(10, 20, 70, 40, 5, 10, 10, 10, 10))
	got := resultsByTag(acc.Summarize())

	// In flight over [10, 70): 60 % of the window.
	wantSweep(t, got, TagEffectiveConcurrency, map[string]float64{
		"avg": 0.6, "min": 0, "max": 1, "p50": 1, "p90": 1, "std": math.Sqrt(0.24)})
	// Prefill [10, 30), decode [30, 70).
	wantSweep(t, got, TagEffectivePrefillConcurrency, map[string]float64{"avg": 0.2, "p50": 0, "p90": 1})
	wantSweep(t, got, TagEffectiveDecodeConcurrency, map[string]float64{"avg": 0.4, "p50": 0, "p90": 1})
	// Prefill: 40 tokens in 20 ns = 2 tokens/ns over 20 % of the window.
	wantSweep(t, got, TagEffectivePrefillThroughput, map[string]float64{"avg": 0.4e9, "max": 2e9, "min": 0})
	wantSweep(t, got, TagActivePrefillThroughput, map[string]float64{"avg": 2e9, "min": 2e9, "max": 2e9, "std": 0})
	// Decode: (OSL - 1) / 4 gaps = 1 token per 10 ns gap.
	wantSweep(t, got, TagEffectiveDecodeThroughput, map[string]float64{"avg": 0.04e9, "max": 0.1e9})
	wantSweep(t, got, TagActiveDecodeThroughput, map[string]float64{"avg": 0.1e9, "min": 0.1e9, "p99": 0.1e9})
	wantSweep(t, got, TagActiveDecodeThroughputPerUser, map[string]float64{"avg": 0.1e9, "min": 0.1e9})
	wantSweep(t, got, TagActivePrefillThroughputPerUser, map[string]float64{"avg": 2e9})
	// Total: the uniform decode rate (OSL - 1) / 40 ns = 0.1 tokens/ns.
	wantSweep(t, got, TagEffectiveTotalThroughput, map[string]float64{"avg": (2*20 + 0.1*40) / 100 * 1e9})
	wantSweep(t, got, TagActiveTotalThroughput, map[string]float64{"avg": (2*20 + 0.1*40) / 60 * 1e9, "min": 0.1e9})
	// Tokens: 40 from 10, +1 at 30, 40, 50, 60 and (just before) 70.
	wantSweep(t, got, TagTokensInFlight, map[string]float64{
		"avg": (40*20 + 41*10 + 42*10 + 43*10 + 44*10) / 100.0, "min": 0, "max": 45, "p50": 40, "p90": 43})
}

// Without inter-chunk latencies the decode rate is uniform over
// [first token, end) and tokens in flight take the whole OSL at the first
// token (AIPerf's request-level fallback).
func TestSweepWithoutICL(t *testing.T) {
	acc := sweepAcc(t, streamingInfo(), 0, 100)
	acc.Add(streamRec(10, 20, 70, 40, 5))
	got := resultsByTag(acc.Summarize())
	wantSweep(t, got, TagActiveDecodeThroughput, map[string]float64{"avg": 0.1e9, "min": 0.1e9, "max": 0.1e9})
	wantSweep(t, got, TagTokensInFlight, map[string]float64{"avg": (40*20 + 45*40) / 100.0, "max": 45})
}

// Edge cases: what is present, and zero where AIPerf's curves are empty.
func TestSweepEdges(t *testing.T) {
	zero := map[string]float64{"avg": 0, "min": 0, "max": 0, "p50": 0, "p90": 0, "p95": 0, "p99": 0, "std": 0}
	t.Run("no records", func(t *testing.T) {
		got := resultsByTag(sweepAcc(t, streamingInfo(), 0, 100).Summarize())
		for _, tag := range sweepTags {
			if got[tag] != nil {
				t.Errorf("%s without records", tag)
			}
		}
	})
	t.Run("non-streaming", func(t *testing.T) {
		info := streamingInfo()
		info.Streaming = false
		acc := sweepAcc(t, info, 0, 100)
		rm := streamRec(10, 20, 70, 40, 5, 10, 10, 10, 10)
		rm.Record.Streaming = false
		acc.Add(rm) // TTFT and ICL do not apply: no first token
		got := resultsByTag(acc.Summarize())
		wantSweep(t, got, TagEffectiveConcurrency, map[string]float64{"avg": 0.6, "max": 1})
		for _, tag := range sweepTags[1:] {
			wantSweep(t, got, tag, zero)
		}
	})
	t.Run("zero-length window", func(t *testing.T) {
		acc := sweepAcc(t, streamingInfo(), 50, 50)
		acc.Add(streamRec(10, 20, 70, 40, 5, 10, 10, 10, 10))
		got := resultsByTag(acc.Summarize())
		for _, tag := range sweepTags {
			wantSweep(t, got, tag, zero)
		}
	})
	t.Run("failed requests only", func(t *testing.T) {
		acc := sweepAcc(t, streamingInfo(), 0, 100)
		rm := errorRecord(20, 500, "Internal Server Error", "boom")
		rm.Record.StartPerfNs, rm.Record.EndPerfNs = fixturePerfBase, fixturePerfBase+30
		acc.Add(rm)
		got := resultsByTag(acc.Summarize())
		wantSweep(t, got, TagEffectiveConcurrency, map[string]float64{"avg": 0.3, "max": 1})
		for _, tag := range sweepTags[1:] {
			wantSweep(t, got, tag, zero)
		}
	})
	t.Run("no phase bounds", func(t *testing.T) {
		// The window falls back to the concurrency curve's first and last
		// events: the record fills it.
		acc, err := NewAccumulator(newCatalog(t, streamingInfo()), streamingInfo())
		if err != nil {
			t.Fatal(err)
		}
		acc.Add(streamRec(10, 20, 70, 40, 5, 10, 10, 10, 10))
		got := resultsByTag(acc.Summarize())
		wantSweep(t, got, TagEffectiveConcurrency, map[string]float64{"avg": 1, "min": 1, "max": 1, "std": 0})
	})
	t.Run("record without an end", func(t *testing.T) {
		acc := sweepAcc(t, streamingInfo(), 0, 100)
		rm := streamRec(10, 20, 70, 40, 5)
		rm.Record.EndPerfNs = 0
		acc.Add(rm)
		if got := resultsByTag(acc.Summarize()); got[TagEffectiveConcurrency] != nil {
			t.Error("sweep metrics without a record that ended")
		}
	})
}

// Only the applicable sweep metrics of a catalog are reported, after the
// other results, in AIPerf's order, in its console groups EFFECTIVE and
// ACTIVE.
func TestSweepResultsOrder(t *testing.T) {
	acc := sweepAcc(t, streamingInfo(), 0, 100)
	acc.Add(streamRec(10, 20, 70, 40, 5, 10, 10, 10, 10))
	res := acc.Summarize()
	var tags []string
	for _, m := range res.Metrics {
		if i, ok := sweepByTag[m.Tag]; ok {
			tags = append(tags, m.Tag)
			group := sdk.ConsoleGroupEffective
			if strings.HasPrefix(m.Tag, "active_") {
				group = sdk.ConsoleGroupActive
			}
			if m.DisplayOrder != SweepDisplayOrder+int(i) || m.Flags != 0 || m.ConsoleGroup != group {
				t.Errorf("%s: order %d, flags %v, group %q; want %d, none, %q", m.Tag, m.DisplayOrder, m.Flags, m.ConsoleGroup,
					SweepDisplayOrder+int(i), group)
			}
		}
	}
	if !slices.Equal(tags, sweepTags) {
		t.Errorf("sweep tags %v, want %v", tags, sweepTags)
	}
}

// numpy's float64 sum (pairwise) for arrays of 7, 100, 1000 and 12345
// values x_i = 1e6/(i+1) + 0.1 i + 1e-3 (i mod 7), as numpy 2.4 prints
// them with float.hex; a plain loop differs from all but the first.
func TestPairwiseSumMatchesNumpy(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{7, "0x1.3c82da1c61224p+21"}, {100, "0x1.3ca483402499dp+22"}, {1000, "0x1.cbecff6e21ad9p+22"}, {12345, "0x1.0cd2e198ecb11p+24"}} {
		x := make([]float64, tc.n)
		for i := range x {
			x[i] = 1.0/float64(i+1)*1e6 + float64(i)*0.1 + float64(i%7)*1e-3
		}
		want, err := strconv.ParseFloat(tc.want, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := pairwiseSum(x); got != want {
			t.Errorf("n=%d: %x, numpy %x", tc.n, got, want)
		}
	}
}

// The event sort is stable by (timestamp, ends first), whatever its size.
func TestSweepLineOrder(t *testing.T) {
	for _, n := range []int{10, 1000} {
		ev := make([]sweepEvent, 0, 2*n)
		for i := range n {
			// Starts and ends collide on a coarse grid of timestamps.
			ev = append(ev, sweepEvent{float64(i % 7), 1})
		}
		for i := range n {
			ev = append(ev, sweepEvent{float64(i%7 + 3), -1})
		}
		want := slices.Clone(ev)
		slices.SortStableFunc(want, func(x, y sweepEvent) int {
			if x.ts != y.ts {
				if x.ts < y.ts {
					return -1
				}
				return 1
			}
			tx, ty := x.d > 0, y.d > 0
			switch {
			case tx == ty:
				return 0
			case !tx:
				return -1
			}
			return 1
		})
		var buf []sweepEvent
		f := sweepLine(ev, &buf)
		acc := 0.0
		for i, e := range want {
			acc += e.d
			if f.ts[i] != e.ts || f.vals[i] != acc {
				t.Fatalf("n=%d: event %d = (%v, %v), want (%v, %v)", n, i, f.ts[i], f.vals[i], e.ts, acc)
			}
		}
	}
}
