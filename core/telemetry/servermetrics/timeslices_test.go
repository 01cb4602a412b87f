package servermetrics

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// AIPerf's own docstring example: 10 s in 3 s slices.
func TestTimesliceBoundariesMatchAIPerf(t *testing.T) {
	g, ok := timesliceBoundaries(0, 10e9, 3)
	if !ok {
		t.Fatal("no slices")
	}
	if !slices.Equal(g.starts, []int64{0, 3e9, 6e9, 9e9}) || !slices.Equal(g.ends, []int64{3e9, 6e9, 9e9, 10e9}) ||
		!slices.Equal(g.complete, []bool{true, true, true, false}) {
		t.Errorf("grid = %+v", g)
	}
	if _, ok := timesliceBoundaries(5, 5, 1); ok {
		t.Error("an empty range has slices")
	}
	if _, ok := timesliceBoundaries(0, 10, 0); ok {
		t.Error("a zero width has slices")
	}
}

type wantSlice struct {
	start, end float64 // seconds
	partial    bool
	a, b, c    float64 // counter: total, rate; gauge: avg, min, max; histogram: count, sum, avg
}

func checkSlices(t *testing.T, what string, got []sdk.ServerMetricTimeslice, want []wantSlice, pick func(sdk.ServerMetricTimeslice) [3]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d slices, want %d: %+v", what, len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		v := pick(g)
		if g.StartNs != int64(w.start*1e9) || g.EndNs != int64(w.end*1e9) || g.Partial != w.partial ||
			!near(v[0], w.a) || !near(v[1], w.b) || !near(v[2], w.c) {
			t.Errorf("%s slice %d = %+v, want %+v", what, i, g, w)
		}
	}
}

// Expected numbers are AIPerf 0.13's compute_stats(..., slice_duration=1)
// on the same samples (run in /tmp/aiperf-venv).
func TestTimeslicesMatchAIPerf(t *testing.T) {
	type row struct {
		name            string
		at              []float64
		reqs, running   []float64
		buckets         [][4]float64
		sums            []float64
		w               Window
		counter         []wantSlice
		avg, lo, hi, sd float64 // counter rate_avg/min/max/std
		gauge           []wantSlice
		hist            []wantSlice // nil: no observations, no slices
	}
	at1 := []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5}
	flat := make([][4]float64, len(at1))
	for _, r := range []row{{
		name: "counter rising 10/s over 3.5 s", at: at1,
		reqs: []float64{0, 5, 10, 15, 20, 25, 30, 35}, running: []float64{1, 1, 1, 1, 1, 1, 1, 1},
		buckets: flat, sums: make([]float64, len(at1)), w: Window{0, 3.5e9},
		counter: []wantSlice{{0, 1, false, 10, 10, 0}, {1, 2, false, 10, 10, 0}, {2, 3, false, 10, 10, 0}, {3, 3.5, true, 5, 10, 0}},
		avg:     10, lo: 10, hi: 10, sd: 0,
		gauge: []wantSlice{{0, 1, false, 1, 1, 1}, {1, 2, false, 1, 1, 1}, {2, 3, false, 1, 1, 1}, {3, 3.5, true, 1, 1, 1}},
	}, {
		name: "uneven counter with a baseline before the window", at: []float64{1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5},
		reqs:    []float64{0, 5, 10, 20, 20, 40, 50, 55, 70},
		running: []float64{1, 2, 4, 3, 3, 0, 1, 2, 5},
		buckets: [][4]float64{{0, 0, 0, 0}, {1, 2, 2, 2}, {1, 3, 4, 5}, {2, 5, 6, 6}, {2, 5, 6, 6}, {3, 7, 9, 10}, {3, 8, 10, 12}, {4, 9, 12, 14}, {4, 9, 13, 15}},
		sums:    []float64{0, 0.4, 1.9, 2.4, 2.4, 5.1, 6.3, 7.5, 8.2},
		w:       Window{1.5e9, 5e9},
		counter: []wantSlice{{1.5, 2.5, false, 15, 15, 0}, {2.5, 3.5, false, 20, 20, 0}, {3.5, 4.5, false, 15, 15, 0}, {4.5, 5, true, 15, 30, 0}},
		avg:     16.666666666666668, lo: 15, hi: 20, sd: 2.886751345948129,
		gauge: []wantSlice{{1.5, 2.5, false, 3, 2, 4}, {2.5, 3.5, false, 3, 3, 3}, {3.5, 4.5, false, 0.5, 0, 1}, {4.5, 5, true, 3.5, 2, 5}},
		hist: []wantSlice{{1.5, 2.5, false, 4, 2.0, 0.5}, {2.5, 3.5, false, 4, 2.6999999999999997, 0.6749999999999999},
			{3.5, 4.5, false, 4, 2.4000000000000004, 0.6000000000000001}, {4.5, 5, true, 1, 0.6999999999999993, 0.6999999999999993}},
	}} {
		t.Run(r.name, func(t *testing.T) {
			s := NewStore("http://h:1/metrics")
			for i, a := range r.at {
				add(t, s, a, page(r.reqs[i], r.running[i], r.buckets[i], r.sums[i]))
			}
			ms := s.MetricsSliced(r.w, 1)
			c := metric(t, ms, "vllm:request_success").Series[0]
			checkSlices(t, "counter", c.Timeslices, r.counter, func(x sdk.ServerMetricTimeslice) [3]float64 { return [3]float64{x.Total, x.Rate, 0} })
			st := c.Counter
			if st.RateAvg == nil || !near(*st.RateAvg, r.avg) || !near(*st.RateMin, r.lo) || !near(*st.RateMax, r.hi) || !near(*st.RateStd, r.sd) {
				t.Errorf("counter rate stats = %+v", st)
			}
			g := metric(t, ms, "vllm:num_requests_running").Series[0]
			checkSlices(t, "gauge", g.Timeslices, r.gauge, func(x sdk.ServerMetricTimeslice) [3]float64 { return [3]float64{x.Avg, x.Min, x.Max} })
			h := metric(t, ms, "vllm:e2e_request_latency_seconds").Series[0]
			checkSlices(t, "histogram", h.Timeslices, r.hist, func(x sdk.ServerMetricTimeslice) [3]float64 { return [3]float64{float64(x.Count), x.Sum, x.Avg} })
			if len(r.hist) > 0 {
				var les []string
				var counts []float64
				for _, b := range h.Timeslices[3].Buckets {
					les, counts = append(les, b.Le), append(counts, b.Count)
				}
				if !slices.Equal(les, []string{"0.1", "0.5", "1", "+Inf"}) || !slices.Equal(counts, []float64{0, 0, 1, 1}) {
					t.Errorf("partial slice buckets = %v %v, want 0.1:0 0.5:0 1:1 +Inf:1", les, counts)
				}
			}
			// Without a slice duration there are none, and no rate_* stats.
			plain := metric(t, s.Metrics(r.w), "vllm:request_success").Series[0]
			if plain.Timeslices != nil || plain.Counter.RateAvg != nil {
				t.Errorf("no --slice-duration: %+v", plain)
			}
		})
	}
}

// Build passes the slice duration to both phases' metrics.
func TestBuildWithSliceDuration(t *testing.T) {
	s := NewStore("http://h:1/metrics")
	for i := range 8 {
		add(t, s, float64(i)*0.5, page(float64(i*5), 1, [4]float64{}, 0))
	}
	ep := Build([]*Store{s}, []string{s.URL}, Window{StartNs: 1.5e9, EndNs: 3.5e9}, &Window{StartNs: 0, EndNs: 1e9}, nil,
		WithSliceDuration(1)).Endpoints[0]
	prof := metric(t, ep.Metrics, "vllm:request_success").Series[0]
	if len(prof.Timeslices) != 2 || prof.Timeslices[0].StartNs != 1.5e9 || prof.Timeslices[1].EndNs != 3.5e9 || prof.Timeslices[1].Partial {
		t.Errorf("profiling slices = %+v", prof.Timeslices)
	}
	warm := metric(t, ep.WarmupMetrics, "vllm:request_success").Series[0]
	if len(warm.Timeslices) != 1 || warm.Timeslices[0].Rate != 10 || warm.Timeslices[0].Partial {
		t.Errorf("warmup slices = %+v", warm.Timeslices)
	}
	if none := Build([]*Store{s}, []string{s.URL}, Window{StartNs: 1.5e9, EndNs: 3.5e9}, nil, nil, WithSliceDuration(-1)); metric(t, none.Endpoints[0].Metrics, "vllm:request_success").Series[0].Timeslices != nil {
		t.Error("a negative slice duration made slices")
	}
}
