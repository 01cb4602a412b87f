package plotdata

import (
	"cmp"
	"math"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// LoadAxis picks the swept load as AIPerf's auto_select_label_by prefers
// concurrency: concurrency when every run sets it, else request rate when
// every run sets it; ok is false for runs that mix or lack both.
func LoadAxis(runs []*sdk.PlotRun) (label string, of func(*sdk.PlotRun) float64, ok bool) {
	all := func(f func(*sdk.PlotRun) float64) bool {
		return len(runs) > 0 && !slices.ContainsFunc(runs, func(r *sdk.PlotRun) bool { return f(r) <= 0 })
	}
	conc := func(r *sdk.PlotRun) float64 { return r.Config.Concurrency }
	rate := func(r *sdk.PlotRun) float64 { return r.Config.RequestRate }
	switch {
	case all(conc):
		return "Concurrency", conc, true
	case all(rate):
		return "Request Rate (requests/sec)", rate, true
	}
	return "", nil, false
}

// ByModel groups the indexes of runs by model, models in first-seen order,
// as AIPerf's groups: [model].
func ByModel(runs []*sdk.PlotRun) (models []string, groups map[string][]int) {
	groups = map[string][]int{}
	for i, r := range runs {
		m := r.Config.Model
		if _, ok := groups[m]; !ok {
			models = append(models, m)
		}
		groups[m] = append(groups[m], i)
	}
	return models, groups
}

// ParetoFrontier marks the points no other point beats on both axes, with
// AIPerf's sweep (plot_generator._compute_pareto_frontier): sorted by x, the
// scan keeps a point whose y is at least the best seen from the better-x
// side, so identical points are all on the frontier. The result is in input order.
func ParetoFrontier(xs, ys []float64, xHigherBetter, yHigherBetter bool) []bool {
	n := min(len(xs), len(ys))
	out := make([]bool, n)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	if xHigherBetter {
		slices.Reverse(idx) // scan from the best x down
	}
	best := math.Inf(1)
	better := func(y float64) bool { return y <= best }
	if yHigherBetter {
		best = math.Inf(-1)
		better = func(y float64) bool { return y >= best }
	}
	for _, i := range idx {
		if better(ys[i]) {
			out[i], best = true, ys[i]
		}
	}
	return out
}

// MetricThroughputPerGPU is AIPerf's derived output_token_throughput_per_gpu
// (data_loader.per_gpu_throughput): every statistic of the run's
// output_token_throughput divided by its GPU count (PlotRun.GPUCount), in
// UnitThroughputPerGPU. A run without GPU telemetry has none.
const (
	MetricThroughputPerGPU = "output_token_throughput_per_gpu"
	UnitThroughputPerGPU   = "tokens/sec/gpu"
)

// SummaryStat is a run's summary statistic, MetricThroughputPerGPU derived
// on the fly; ok is false when the run lacks it.
func SummaryStat(r *sdk.PlotRun, metric, stat string) (float64, bool) {
	if metric == MetricThroughputPerGPU {
		if r.GPUCount <= 0 {
			return 0, false
		}
		v, ok := SummaryStat(r, "output_token_throughput", stat)
		return v / float64(r.GPUCount), ok
	}
	s, ok := r.Summary[metric]
	if !ok {
		return 0, false
	}
	v, ok := s.Stats[stat]
	return v, ok
}
