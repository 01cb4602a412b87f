package plotdata

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ParetoFrontier follows AIPerf's _compute_pareto_frontier: sorted by x, a
// point is kept when its y is at least as good as every point with a better x.
func TestParetoFrontier(t *testing.T) {
	for _, tc := range []struct {
		name         string
		xs, ys       []float64
		xHigh, yHigh bool
		want         []bool
	}{
		// The checked-in sweep (testdata/plot/sweep): per-user vs total output
		// token throughput at concurrency 1, 4, 8. c=1 is beaten by c=4 on both.
		{"sweep interactivity", []float64{500.08071902824884, 500.0809225966733, 499.86842495666406},
			[]float64{384.44824180834, 1529.145516584131, 2870.1719601744257}, true, true, []bool{false, true, true}},
		// Latency (lower better) vs throughput (higher better): 120 ms at 900
		// tok/s is beaten by 100 ms at 1000.
		{"latency vs throughput", []float64{100, 120, 150, 200}, []float64{1000, 900, 1500, 1400}, false, true,
			[]bool{true, false, true, false}},
		{"identical points all kept", []float64{5, 5}, []float64{7, 7}, true, true, []bool{true, true}},
		{"both lower better", []float64{3, 1, 2}, []float64{1, 3, 2}, false, false, []bool{true, true, true}},
		{"both lower better, one dominated", []float64{1, 2}, []float64{1, 2}, false, false, []bool{true, false}},
		{"one point", []float64{42}, []float64{7}, true, false, []bool{true}},
		{"none", nil, nil, true, true, []bool{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParetoFrontier(tc.xs, tc.ys, tc.xHigh, tc.yHigh); !slices.Equal(got, tc.want) {
				t.Errorf("ParetoFrontier(%v, %v) = %v, want %v", tc.xs, tc.ys, got, tc.want)
			}
		})
	}
}

func loadRun(model string, conc, rate float64) *sdk.PlotRun {
	return &sdk.PlotRun{Config: sdk.PlotRunConfig{Model: model, Concurrency: conc, RequestRate: rate}}
}

func TestLoadAxisPrefersConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name  string
		runs  []*sdk.PlotRun
		label string
		loads []float64
		ok    bool
	}{
		{"concurrency", []*sdk.PlotRun{loadRun("m", 1, 0), loadRun("m", 4, 0)}, "Concurrency", []float64{1, 4}, true},
		{"concurrency over rate", []*sdk.PlotRun{loadRun("m", 1, 5), loadRun("m", 4, 10)}, "Concurrency", []float64{1, 4}, true},
		{"request rate", []*sdk.PlotRun{loadRun("m", 0, 5), loadRun("m", 0, 10)}, "Request Rate (requests/sec)", []float64{5, 10}, true},
		{"mixed", []*sdk.PlotRun{loadRun("m", 4, 0), loadRun("m", 0, 10)}, "", nil, false},
		{"no runs", nil, "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			label, of, ok := LoadAxis(tc.runs)
			if label != tc.label || ok != tc.ok {
				t.Fatalf("LoadAxis = %q, %v; want %q, %v", label, ok, tc.label, tc.ok)
			}
			for i, want := range tc.loads {
				if got := of(tc.runs[i]); got != want {
					t.Errorf("run %d load %v, want %v", i, got, want)
				}
			}
		})
	}
}

// Runs group by model in first-seen order, each group in run order.
func TestByModel(t *testing.T) {
	runs := []*sdk.PlotRun{loadRun("b", 1, 0), loadRun("a", 1, 0), loadRun("b", 4, 0), loadRun("", 1, 0), loadRun("a", 8, 0)}
	models, groups := ByModel(runs)
	if !slices.Equal(models, []string{"b", "a", ""}) {
		t.Fatalf("models %q", models)
	}
	for m, want := range map[string][]int{"b": {0, 2}, "a": {1, 4}, "": {3}} {
		if !slices.Equal(groups[m], want) {
			t.Errorf("model %q: runs %v, want %v", m, groups[m], want)
		}
	}
}

// output_token_throughput_per_gpu is each output_token_throughput statistic
// over the run's GPU count, and absent without GPUs; other metrics read
// straight from the summary.
func TestSummaryStatPerGPU(t *testing.T) {
	run := func(gpus int) *sdk.PlotRun {
		return &sdk.PlotRun{GPUCount: gpus, Summary: map[string]sdk.PlotStat{
			"output_token_throughput": {Unit: "tokens/sec", Stats: map[string]float64{"avg": 1529.145516584131, "p99": 900}},
			"request_latency":         {Unit: "ms", Stats: map[string]float64{"avg": 42.5}},
		}}
	}
	for _, tc := range []struct {
		name         string
		gpus         int
		metric, stat string
		want         float64
		ok           bool
	}{
		{"two GPUs avg", 2, MetricThroughputPerGPU, "avg", 1529.145516584131 / 2, true},
		{"eight GPUs p99", 8, MetricThroughputPerGPU, "p99", 112.5, true},
		{"one GPU is the total", 1, MetricThroughputPerGPU, "avg", 1529.145516584131, true},
		{"no GPUs", 0, MetricThroughputPerGPU, "avg", 0, false},
		{"stat the total lacks", 2, MetricThroughputPerGPU, "p50", 0, false},
		{"plain metric", 0, "request_latency", "avg", 42.5, true},
		{"missing metric", 2, "time_to_first_token", "avg", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := SummaryStat(run(tc.gpus), tc.metric, tc.stat)
			if got != tc.want || ok != tc.ok {
				t.Errorf("SummaryStat(%s, %s) = %v, %v; want %v, %v", tc.metric, tc.stat, got, ok, tc.want, tc.ok)
			}
		})
	}
	r := run(2)
	r.Summary = nil
	if _, ok := SummaryStat(r, MetricThroughputPerGPU, "avg"); ok {
		t.Error("per-GPU throughput without a total throughput")
	}
}
