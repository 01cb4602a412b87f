package metrics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(got), math.Abs(want))
}

// Digests of four parts, merged (through their JSON form), give the
// statistics of the whole: count, min, max exact, sum, mean and std to
// 1e-9, every percentile within α of numpy's linear interpolation.
func TestDigestMergeMatchesExactStats(t *testing.T) {
	for _, c := range []struct {
		name string
		gen  func(r *rand.Rand) float64
		n    int
	}{
		{"lognormal latencies (ns)", func(r *rand.Rand) float64 { return math.Exp(16 + r.NormFloat64()) }, 5000},
		{"few integers with ties and zeros", func(r *rand.Rand) float64 { return float64(r.IntN(5)) }, 37},
		{"one value", func(*rand.Rand) float64 { return 42 }, 1},
		{"mean far from zero (cancellation)", func(r *rand.Rand) float64 { return 1e9 + r.Float64() }, 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 9))
			all := make([]float64, c.n)
			parts := make([][]float64, 4)
			for i := range all {
				all[i] = c.gen(r)
				parts[i%4] = append(parts[i%4], all[i])
			}
			var merged *Digest
			for _, p := range parts {
				d, err := NewDigest(p, DefaultRelativeAccuracy)
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(d)
				if err != nil {
					t.Fatal(err)
				}
				var back Digest
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				if merged == nil {
					merged = &back
				} else if err := merged.Merge(&back); err != nil {
					t.Fatal(err)
				}
			}
			got, want := merged.Stats(), ComputeStats(all)
			if got.Count != want.Count || got.Min != want.Min || got.Max != want.Max {
				t.Errorf("count/min/max = %d %v %v, want %d %v %v", got.Count, got.Min, got.Max, want.Count, want.Min, want.Max)
			}
			for _, s := range []struct {
				name      string
				got, want float64
				tol       float64
			}{
				{"sum", got.Sum, want.Sum, 1e-12}, {"avg", got.Avg, want.Avg, 1e-12}, {"std", got.Std, want.Std, 1e-9},
				{"p1", got.P1, want.P1, DefaultRelativeAccuracy}, {"p5", got.P5, want.P5, DefaultRelativeAccuracy},
				{"p10", got.P10, want.P10, DefaultRelativeAccuracy}, {"p25", got.P25, want.P25, DefaultRelativeAccuracy},
				{"p50", got.P50, want.P50, DefaultRelativeAccuracy}, {"p75", got.P75, want.P75, DefaultRelativeAccuracy},
				{"p90", got.P90, want.P90, DefaultRelativeAccuracy}, {"p95", got.P95, want.P95, DefaultRelativeAccuracy},
				{"p99", got.P99, want.P99, DefaultRelativeAccuracy},
			} {
				if e := relErr(s.got, s.want); e > s.tol+1e-15 {
					t.Errorf("%s = %v, exact %v (relative error %.3g > %g)", s.name, s.got, s.want, e, s.tol)
				}
			}
		})
	}
}

// Accumulators over two halves of a run, as partials merged and
// summarized, give what one accumulator over the whole run summarizes:
// counts, error groups, totals and throughputs exactly.
func TestSummarizePartialMatchesSummarize(t *testing.T) {
	info := streamingInfo()
	cat := newCatalog(t, info)
	whole, _ := NewAccumulator(cat, info)
	halves := [2]*Accumulator{}
	for i := range halves {
		halves[i], _ = NewAccumulator(cat, info)
	}
	for i := range 200 {
		var rm *sdk.RecordMetrics
		if i%17 == 0 {
			rm = errorRecord(int64(1e9+i*1e6), 500+i%2, "server", "boom")
		} else {
			rm = timedRecord(int64(1e9+i*1e6), int64(5e6+(i*7919)%3000000), 10+i%5)
		}
		whole.Add(rm)
		halves[i%2].Add(rm)
	}
	const w0, w1 = int64(1e9), int64(1e9 + 210e6)
	whole.SetPhaseStart(w0)
	whole.SetPhaseEnd(w1)
	want := whole.Summarize()
	p, err := halves[0].Partial(DefaultRelativeAccuracy)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := halves[1].Partial(DefaultRelativeAccuracy)
	if err := p.Merge(q); err != nil {
		t.Fatal(err)
	}
	got, err := SummarizePartial(cat, info, p, w0, w1)
	if err != nil {
		t.Fatal(err)
	}
	if got.CompletedRecords != want.CompletedRecords || len(got.ErrorSummary) != 2 ||
		got.ErrorSummary[0] != want.ErrorSummary[0] || got.ErrorSummary[1] != want.ErrorSummary[1] {
		t.Errorf("records %d errors %v, want %d %v", got.CompletedRecords, got.ErrorSummary, want.CompletedRecords, want.ErrorSummary)
	}
	if !near(got.BenchmarkDurationS, want.BenchmarkDurationS) {
		t.Errorf("benchmark duration %v, want %v", got.BenchmarkDurationS, want.BenchmarkDurationS)
	}
	gm := map[string]sdk.MetricResult{}
	for _, m := range got.Metrics {
		gm[m.Tag] = m
	}
	n := 0
	for _, w := range want.Metrics {
		g, ok := gm[w.Tag]
		if IsSweep(w.Tag) {
			if ok {
				t.Errorf("sweep metric %s in a partial summary", w.Tag)
			}
			continue
		}
		if !ok {
			t.Errorf("%s missing", w.Tag)
			continue
		}
		pairs := [][2]*float64{{g.Avg, w.Avg}, {g.Min, w.Min}, {g.Max, w.Max}, {g.Std, w.Std}, {g.Sum, w.Sum}}
		for _, pq := range [][2]*float64{{g.P50, w.P50}, {g.P99, w.P99}, {g.P1, w.P1}} {
			if (pq[0] == nil) != (pq[1] == nil) {
				t.Errorf("%s: percentile presence differs", w.Tag)
			} else if pq[0] != nil && relErr(*pq[0], *pq[1]) > DefaultRelativeAccuracy+1e-12 {
				t.Errorf("%s percentile %v, exact %v", w.Tag, *pq[0], *pq[1])
			}
		}
		for _, pr := range pairs {
			if (pr[0] == nil) != (pr[1] == nil) {
				t.Errorf("%s: statistic presence differs", w.Tag)
			} else if pr[0] != nil && !near(*pr[0], *pr[1]) {
				t.Errorf("%s = %v, want %v", w.Tag, *pr[0], *pr[1])
			}
		}
		n++
	}
	if n < 8 || gm["request_throughput"].Avg == nil || gm["error_request_count"].Avg == nil || *gm["error_request_count"].Avg != 12 {
		t.Errorf("compared %d metrics; request_throughput %v, error_request_count %v", n, gm["request_throughput"].Avg, gm["error_request_count"].Avg)
	}
	// Counters of another build's partial are refused.
	p.Counters = p.Counters[:1]
	if _, err := SummarizePartial(cat, info, p, w0, w1); err == nil {
		t.Error("a partial with too few family counters was summarized")
	}
}
