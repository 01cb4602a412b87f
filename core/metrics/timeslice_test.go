package metrics

import (
	"reflect"
	"slices"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// slicedAcc is an accumulator of catalog cat slicing by d, with the phase
// [w0, w1].
func slicedAcc(t *testing.T, cat *Catalog, info sdk.RunInfo, d time.Duration, w0, w1 int64) *Accumulator {
	t.Helper()
	acc, err := NewAccumulator(cat, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetSliceDuration(d); err != nil {
		t.Fatal(err)
	}
	acc.SetPhaseStart(w0)
	acc.SetPhaseEnd(w1)
	return acc
}

// at moves a record to wall start ts.
func at(ts int64, rm *sdk.RecordMetrics) *sdk.RecordMetrics {
	rm.Record.TimestampNs = ts
	return rm
}

func sliceMetrics(s *sdk.TimesliceResult) map[string]*sdk.MetricResult {
	return resultsByTag(&sdk.Results{Metrics: s.Metrics})
}

type window struct {
	start, end int64
	partial    bool
}

// AIPerf's grid: edges from the first start every duration, each record in
// the window it starts in, empty windows dropped, the last one clipped to
// the last end.
func TestSliceGrid(t *testing.T) {
	type rec struct{ start, end int64 }
	cases := []struct {
		name    string
		dur     int64
		recs    []rec
		windows []window
		of      []int32
	}{
		{"one record in one window", 100, []rec{{1000, 1050}},
			[]window{{1000, 1050, true}}, []int32{0}},
		{"a record ending in the next window stays in the one it started in", 100,
			[]rec{{1000, 1150}, {1050, 1080}},
			[]window{{1000, 1100, false}}, []int32{0, 0}},
		{"an empty window is dropped", 100,
			[]rec{{1000, 1010}, {1250, 1260}},
			[]window{{1000, 1100, false}, {1200, 1260, true}}, []int32{0, 1}},
		{"a start on an edge opens the next window", 100,
			[]rec{{1000, 1010}, {1100, 1190}},
			[]window{{1000, 1100, false}, {1100, 1190, true}}, []int32{0, 1}},
		// AIPerf 0.13's e_chat_goodput_slices: the last end lies in a window
		// nothing starts in, so the last kept window is complete.
		{"the run ends in an empty window", 100,
			[]rec{{1000, 1090}, {1150, 1230}},
			[]window{{1000, 1100, false}, {1100, 1200, false}}, []int32{0, 1}},
		{"a record without a start is in no window", 100,
			[]rec{{0, 0}, {1000, 1010}},
			[]window{{1000, 1010, true}}, []int32{-1, 0}},
		{"a record without an end", 100,
			[]rec{{1000, 0}, {1030, 1040}},
			[]window{{1000, 1040, true}}, []int32{0, 0}},
		{"no record with a start", 100, []rec{{0, 0}}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := make([]sliceRec, len(tc.recs))
			for i, r := range tc.recs {
				recs[i] = sliceRec{start: r.start, end: r.end}
			}
			g := buildSliceGrid(recs, tc.dur)
			var got []window
			for _, w := range g.windows {
				got = append(got, window{w.startNs, w.endNs, w.partial})
				if int64(w.w0) != w.startNs || int64(w.w1) != w.endNs {
					t.Errorf("float bounds [%v, %v] for [%d, %d]", w.w0, w.w1, w.startNs, w.endNs)
				}
			}
			if !reflect.DeepEqual(got, tc.windows) {
				t.Errorf("windows %v, want %v", got, tc.windows)
			}
			if tc.of != nil && !slices.Equal(g.of, tc.of) {
				t.Errorf("records' windows %v, want %v", g.of, tc.of)
			}
		})
	}
}

// The grid is computed in float64 epoch ns, as AIPerf's numpy columns: at
// today's epoch a start rounds to 256 ns, and so do the bounds.
func TestSliceGridRoundsLikeNumpy(t *testing.T) {
	const start = int64(1_795_668_205_076_578_644) // e_chat_goodput_slices' first record
	g := buildSliceGrid([]sliceRec{{start: start, end: start + 80_000_000}}, 50_000_000)
	want := int64(float64(start))
	if len(g.windows) != 1 || g.windows[0].startNs != want || g.windows[0].endNs != int64(float64(start)+5e7) {
		t.Errorf("windows %+v, want one from %d", g.windows, want)
	}
	if want == start {
		t.Fatal("the start is exact in float64: the test checks nothing")
	}
}

// partition hands every slice the values its records added, in order,
// across the series' chunks, for scalar and list metrics and records
// without values.
func TestPartition(t *testing.T) {
	long := make([]float64, firstChunk+10) // spans the first chunk
	for i := range long {
		long[i] = float64(100 + i)
	}
	cases := []struct {
		name  string
		added [][]float64 // per record; nil: the record added nothing
		of    []int32
		want  [][]float64
	}{
		{"scalars", [][]float64{{1}, {2}, nil, {4}}, []int32{0, 1, 1, 0}, [][]float64{{1, 4}, {2}}},
		{"lists and an empty list", [][]float64{{1, 2, 3}, {}, {4}, {5, 6}}, []int32{1, 0, 0, 1}, [][]float64{{4}, {1, 2, 3, 5, 6}}},
		{"a record in no slice", [][]float64{{1}, {2, 3}, {4}}, []int32{0, -1, 0}, [][]float64{{1, 4}}},
		{"across chunks", [][]float64{{7}, long, {8}}, []int32{0, 1, 0}, [][]float64{{7, 8}, long}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s series
			var o valueOwners
			for rec, vs := range tc.added {
				if vs == nil {
					continue
				}
				mv := sdk.MetricValue{List: vs, IsList: true}
				if len(vs) == 1 {
					mv = sdk.MetricValue{Scalar: vs[0]}
				}
				s.addValue(mv)
				o.note(rec, valueCount(mv))
			}
			got := partition(&s, &o, tc.of, len(tc.want))
			for k := range tc.want {
				if !slices.Equal(got[k], tc.want[k]) {
					t.Errorf("slice %d = %v, want %v", k, got[k], tc.want[k])
				}
			}
		})
	}
}

// Three records against slices of 40 ns from 10: A [10, 70) in slice 0, B
// [60, 100) in slice 1, C [92, 98) in slice 2, clipped to 100. Every sweep
// metric is read over its slice's window of the phase's curves (which see
// every record), worked by hand below.
func TestTimesliceSweepWindows(t *testing.T) {
	acc := slicedAcc(t, newCatalog(t, streamingInfo()), streamingInfo(), 40, 0, 110)
	acc.Add(streamRec(10, 20, 70, 40, 5))  // prefill [10, 30) 2 tok/ns, decode [30, 70) 0.1 tok/ns
	acc.Add(streamRec(60, 10, 100, 20, 4)) // prefill [60, 70) 2 tok/ns, decode [70, 100) 0.1 tok/ns
	acc.Add(streamRec(92, 2, 98, 6, 1))    // prefill [92, 94) 3 tok/ns, decode [94, 98) 0 tok/ns
	res := acc.Summarize()

	wantWindows := []window{{10, 50, false}, {50, 90, false}, {90, 100, true}}
	if len(res.Timeslices) != len(wantWindows) {
		t.Fatalf("%d slices, want %d", len(res.Timeslices), len(wantWindows))
	}
	cases := []struct {
		tag  string
		want [3]map[string]float64
	}{
		{TagEffectiveConcurrency, [3]map[string]float64{
			{"avg": 1, "min": 1, "max": 1, "std": 0},
			{"avg": (10 + 2*10 + 20) / 40.0, "min": 1, "max": 2, "p50": 1, "p90": 2}, // B joins A over [60, 70)
			{"avg": (2 + 2*6 + 2) / 10.0, "min": 1, "max": 2}}},                      // C joins B over [92, 98)
		{TagEffectivePrefillConcurrency, [3]map[string]float64{
			{"avg": 0.5, "p50": 0, "p90": 1}, {"avg": 0.25}, {"avg": 0.2}}},
		{TagEffectiveDecodeConcurrency, [3]map[string]float64{
			{"avg": 0.5}, {"avg": 1, "min": 1}, {"avg": (4 + 2*4 + 2) / 10.0, "max": 2}}},
		{TagEffectivePrefillThroughput, [3]map[string]float64{
			{"avg": 1e9, "max": 2e9}, {"avg": 0.5e9}, {"avg": 0.6e9, "max": 3e9}}},
		{TagActivePrefillThroughput, [3]map[string]float64{
			{"avg": 2e9, "min": 2e9}, {"avg": 2e9}, {"avg": 3e9, "min": 3e9}}},
		{TagEffectiveDecodeThroughput, [3]map[string]float64{
			{"avg": 0.05e9, "max": 0.1e9}, {"avg": 0.1e9, "min": 0.1e9}, {"avg": (0.1*10 + 0) / 10 * 1e9}}},
		{TagTokensInFlight, [3]map[string]float64{
			{"avg": (40*20 + 45*20) / 40.0, "max": 45, "min": 40},
			{"avg": (45*10 + 65*10 + 24*20) / 40.0, "max": 65, "min": 24},
			{"avg": (24*2 + 30*2 + 31*4 + 24*2) / 10.0, "max": 31}}},
	}
	for k, w := range wantWindows {
		s := &res.Timeslices[k]
		if got := (window{s.StartNs, s.EndNs, s.Partial}); got != w {
			t.Errorf("slice %d is %+v, want %+v", k, got, w)
		}
		got := sliceMetrics(s)
		for _, c := range cases {
			wantSweep(t, got, c.tag, c.want[k])
		}
	}
	// The phase's own sweep metrics still span the phase [0, 110].
	wantSweep(t, resultsByTag(res), TagEffectiveConcurrency, map[string]float64{"avg": (60 + 40 + 6) / 110.0})
}

// A slice's scalars are the phase's derivation over its records: counts,
// totals, benchmark_duration over its own records, throughputs over its
// window, error aggregates only where a record failed.
func TestTimesliceScalars(t *testing.T) {
	acc := slicedAcc(t, familyCatalog(t, streamingInfo()), streamingInfo(), time.Second, 0, 5e9)
	acc.Add(ok(1e9, map[string]float64{TagOSL: 10, TagISL: 100}))
	acc.Add(ok(1.5e9, map[string]float64{TagOSL: 30, TagISL: 100}))
	acc.Add(errorRecord(3.2e9, 500, "E", "m"))
	acc.Add(ok(3.5e9, map[string]float64{TagOSL: 20, TagISL: 50}))
	res := acc.Summarize()
	if len(res.Timeslices) != 2 {
		t.Fatalf("%d slices, want 2", len(res.Timeslices))
	}
	want := []map[string]float64{
		{TagRequestCount: 2, TagCompletedRequestCount: 2, TagRequestErrorRate: 0, TagTotalOSL: 40, TagTotalISL: 200,
			TagBenchmarkDuration: 0.51, TagRequestThroughput: 2, TagOutputThroughput: 40, TagTotalThroughput: 240},
		// Slice 1 is [3e9, 3.51e9]: the last end clips it.
		{TagRequestCount: 1, TagErrorRequestCount: 1, TagCompletedRequestCount: 2, TagRequestErrorRate: 50,
			TagTotalOSL: 20, TagTotalErrorISL: 100, TagBenchmarkDuration: 0.01, TagRequestThroughput: 1 / 0.51},
	}
	for k := range want {
		got := sliceMetrics(&res.Timeslices[k])
		for tag, w := range want[k] {
			if m := got[tag]; m == nil || m.Avg == nil || !near(*m.Avg, w) {
				t.Errorf("slice %d %s = %v, want %v", k, tag, m, w)
			}
		}
	}
	s0 := sliceMetrics(&res.Timeslices[0])
	for _, tag := range []string{TagErrorRequestCount, TagTotalErrorISL, "error_isl"} {
		if s0[tag] != nil {
			t.Errorf("slice 0 has %s without a failed record", tag)
		}
	}
	if m := s0[TagRequestLatency]; m == nil || *m.Count != 2 || !near(*m.Avg, 10) {
		t.Errorf("slice 0 request_latency = %+v, want 2 values of 10 ms", m)
	}
}

// osl_mismatch_count and usage_discrepancy_count count the slice's records
// that contribute, by AIPerf's rules, and are absent from a slice where
// none does.
func TestTimesliceCounters(t *testing.T) {
	osl := func(ts int64, requested int, actual float64) *sdk.RecordMetrics {
		return at(ts, oslRecord(intp(requested), actual))
	}
	usage := func(ts int64, prompt, completion float64) *sdk.RecordMetrics {
		return at(ts, diffRecord(prompt, completion, -1))
	}
	cases := []struct {
		name         string
		recs         []*sdk.RecordMetrics
		mismatch     []float64 // per slice; -1: absent
		discrepancy  []float64
		sliceRecords []float64
	}{
		{"split by slice",
			[]*sdk.RecordMetrics{osl(1e9, 100, 100), osl(1.5e9, 100, 50), osl(3e9, 100, 130), osl(3.2e9, 100, 101)},
			[]float64{1, 1}, []float64{-1, -1}, []float64{2, 2}},
		{"absent where no record contributes",
			[]*sdk.RecordMetrics{osl(1e9, 100, 40), usage(2.1e9, 50, 0), usage(2.2e9, 5, 5), usage(2.3e9, 5, 20)},
			[]float64{1, -1}, []float64{-1, 2}, []float64{1, 3}},
		{"zero, not absent, when records contribute without counting",
			[]*sdk.RecordMetrics{osl(1e9, 100, 100), usage(1.1e9, 5, 5), usage(2.5e9, 11, -1)},
			[]float64{0, -1}, []float64{0, 1}, []float64{2, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			acc := slicedAcc(t, familyCatalog(t, streamingInfo()), streamingInfo(), time.Second, 0, 5e9)
			for _, r := range tc.recs {
				acc.Add(r)
			}
			res := acc.Summarize()
			if len(res.Timeslices) != len(tc.mismatch) {
				t.Fatalf("%d slices, want %d", len(res.Timeslices), len(tc.mismatch))
			}
			for k := range res.Timeslices {
				got := sliceMetrics(&res.Timeslices[k])
				for tag, w := range map[string]float64{TagOSLMismatchCount: tc.mismatch[k],
					TagUsageDiscrepancyCount: tc.discrepancy[k], TagRequestCount: tc.sliceRecords[k]} {
					m := got[tag]
					switch {
					case w < 0 && m != nil:
						t.Errorf("slice %d %s = %v, want absent", k, tag, *m.Avg)
					case w >= 0 && (m == nil || *m.Avg != w):
						t.Errorf("slice %d %s = %+v, want %v", k, tag, m, w)
					}
				}
			}
		})
	}
}

// One slice over the whole phase, with the phase bounds on the slice's
// window, gives the phase's results exactly, but for the derived latencies
// of every record, which AIPerf computes over the phase only: the slices
// are summarised by the phase's code.
func TestOneSliceIsThePhase(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{TagRequestLatency: 15}
	recs := []*sdk.RecordMetrics{
		streamRec(1000, 200, 9000, 40, 5, 1000, 2000, 3000, 2800),
		streamRec(2000, 300, 12000, 60, 3, 4000, 5700),
		streamRec(2500, 100, 4000, 10, 2, 1400),
		errorRecord(3000, 500, "E", "m"),
	}
	recs[3].Record.StartPerfNs, recs[3].Record.EndPerfNs = fixturePerfBase, fixturePerfBase+500
	recs[0].Values["undeclared_tag"] = sdk.MetricValue{Scalar: 7}
	for _, r := range recs {
		r.Record.CreditIssuedNs = r.Record.StartPerfNs - 10
	}
	acc := slicedAcc(t, familyCatalog(t, info), info, time.Hour, 1000, 12000)
	for _, r := range recs {
		acc.Add(r)
	}
	res := acc.Summarize()
	if len(res.Timeslices) != 1 {
		t.Fatalf("%d slices, want 1", len(res.Timeslices))
	}
	s := res.Timeslices[0]
	if s.StartNs != 1000 || s.EndNs != 12000 || !s.Partial {
		t.Errorf("slice [%d, %d] partial %v, want [1000, 12000] partial", s.StartNs, s.EndNs, s.Partial)
	}
	var want []sdk.MetricResult
	for _, m := range res.Metrics {
		if m.Tag != TagCreditToStartLatency && m.Tag != TagEffectiveLatency {
			want = append(want, m)
		}
	}
	if len(want) == len(res.Metrics) {
		t.Fatal("the phase has no derived latencies: the test checks nothing")
	}
	for _, tag := range []string{"adj_" + TagRequestLatency, TagGoodput, "undeclared_tag", TagTotalErrorISL, TagTokensInFlight} {
		if _, ok := res.Metric(tag); !ok {
			t.Errorf("the phase lacks %s: the test covers less than it should", tag)
		}
	}
	if !reflect.DeepEqual(s.Metrics, want) {
		for i := range max(len(s.Metrics), len(want)) {
			var g, w sdk.MetricResult
			if i < len(s.Metrics) {
				g = s.Metrics[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("result %d: slice %s %s, phase %s %s", i, g.Tag, fmtResult(g), w.Tag, fmtResult(w))
			}
		}
	}
}

func fmtResult(m sdk.MetricResult) string {
	return fmtPtr(m.Avg) + "/" + fmtPtr(m.P50) + "/" + fmtPtr(m.Max)
}

// Without a slice duration there are no timeslices; it must be set before
// the first record and not be negative.
func TestSetSliceDuration(t *testing.T) {
	cat := newCatalog(t, streamingInfo())
	acc, err := NewAccumulator(cat, streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.SetSliceDuration(-time.Second); err == nil {
		t.Error("a negative slice duration was accepted")
	}
	acc.Add(streamRec(10, 20, 70, 40, 5))
	if res := acc.Summarize(); res.Timeslices != nil {
		t.Errorf("timeslices without a slice duration: %+v", res.Timeslices)
	}
	if err := acc.SetSliceDuration(time.Second); err == nil {
		t.Error("a slice duration set after the first record was accepted")
	}
	sliced := slicedAcc(t, cat, streamingInfo(), time.Second, 0, 100)
	sliced.Add(streamRec(10, 20, 70, 40, 5))
	if res := sliced.Summarize(); len(res.Timeslices) != 1 {
		t.Errorf("%d timeslices, want 1", len(res.Timeslices))
	}
}
