package gate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// adjPrefix names AIPerf's error-adjusted views of a metric (adj_*), built
// at summary time for metrics whose percentiles include failed requests.
const adjPrefix = "adj_"

// hidden are the flags of metrics no summary export carries.
const hidden = sdk.FlagInternal | sdk.FlagExperimental

// Statistics by kind of metric, as profile_export_aiperf.json has them.
var (
	statsScalar = []string{"avg"}
	statsSweep  = []string{"avg", "min", "max", "p50", "p90", "p95", "p99", "std"}
	statsAdj    = []string{"min", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "count"}
)

// statsOf lists the statistics a metric's result carries.
func statsOf(kind metrics.Kind, adj bool) []string {
	switch {
	case adj:
		return statsAdj
	case kind == metrics.KindRecord || kind == metrics.KindRecordTiming:
		return Stats
	case kind == metrics.KindSweep:
		return statsSweep
	}
	return statsScalar
}

// Check rejects, before anything is sent, thresholds the run could never
// evaluate: a metric tag the run's catalog lacks (the record processors'
// metrics, the core's run-level ones and the adj_* views), a metric that
// does not apply to the run (time_to_first_token without --streaming) or is
// never exported, and a statistic that metric's result has no field for
// (run-level metrics have only avg). All problems are joined, each naming
// the flag and its expression.
func Check(ts []Threshold, cat *metrics.Catalog) error {
	if len(ts) == 0 {
		return nil
	}
	if cat == nil {
		return errors.New("no metric catalog to check thresholds against")
	}
	var errs []error
	for _, t := range ts {
		if err := checkOne(t, cat); err != nil {
			errs = append(errs, fmt.Errorf("--threshold %q: %w", t.String(), err))
		}
	}
	return errors.Join(errs...)
}

func checkOne(t Threshold, cat *metrics.Catalog) error {
	def, adj, ok := lookup(t.Metric, cat)
	if !ok {
		return fmt.Errorf("unknown metric %q; the metrics of this run are: %s", t.Metric, strings.Join(tags(cat), ", "))
	}
	if def.Flags.HasAny(hidden) {
		return fmt.Errorf("%s is an internal or experimental metric, not exported to profile_export_aiperf.json", t.Metric)
	}
	if !cat.Applies(def.Tag) {
		return fmt.Errorf("%s does not apply to this run (its endpoint type, --streaming or other settings leave it out; `aiperf plugins endpoint TYPE` lists what a run reports)", def.Tag)
	}
	if stats := statsOf(def.Kind, adj); !slices.Contains(stats, t.Stat) {
		return fmt.Errorf("%s has no %q statistic; it has: %s", t.Metric, t.Stat, strings.Join(stats, ", "))
	}
	return nil
}

// lookup finds a tag in the catalog; adj_<tag> resolves to its metric when
// that metric gets error-adjusted statistics.
func lookup(tag string, cat *metrics.Catalog) (def metrics.Def, adj, ok bool) {
	if def, ok = cat.Lookup(tag); ok {
		return def, false, true
	}
	base, isAdj := strings.CutPrefix(tag, adjPrefix)
	if !isAdj {
		return metrics.Def{}, false, false
	}
	def, ok = cat.Lookup(base)
	if !ok || def.Kind != metrics.KindRecord || !def.Flags.Has(sdk.FlagPercentileIncludesFailedRequests) {
		return metrics.Def{}, false, false
	}
	return def, true, true
}

// tags are the exported metrics that apply to the run, and their adj_*
// views, sorted.
func tags(cat *metrics.Catalog) []string {
	var out []string
	for _, d := range cat.Applicable() {
		if d.Flags.HasAny(hidden) {
			continue
		}
		out = append(out, d.Tag)
		if d.Kind == metrics.KindRecord && d.Flags.Has(sdk.FlagPercentileIncludesFailedRequests) {
			out = append(out, adjPrefix+d.Tag)
		}
	}
	slices.Sort(out)
	return out
}

// Outcome is one threshold checked against a run's results.
type Outcome struct {
	Threshold
	// Measured is the statistic in the metric's display unit (Unit);
	// meaningful only when Measurable.
	Measured   float64
	Unit       string
	Measurable bool
	// Passed: measurable and within the threshold. A threshold that could
	// not be measured fails: a gate must not pass on missing data.
	Passed bool
	// Note says how an absent value was read, or why there is none.
	Note string
}

// Evaluate checks every threshold against the results, in order.
//
// Absent values follow the export's rules: error_request_count is absent,
// not 0, when no request failed (read as 0); adj_<tag> is absent when no
// request failed (read as <tag>, which it then equals); an adj_* percentile
// (or min) that reached a failed request is absent because it is +inf (read
// as +inf). Any other absent value — a metric without a single value, e.g.
// time_to_first_token when every request failed — cannot be measured, and
// its threshold fails.
func Evaluate(ts []Threshold, res *sdk.Results) []Outcome {
	out := make([]Outcome, len(ts))
	for i, t := range ts {
		out[i] = evaluate(t, res)
	}
	return out
}

func evaluate(t Threshold, res *sdk.Results) Outcome {
	o := Outcome{Threshold: t}
	if res == nil {
		o.Note = "the run produced no results"
		return o
	}
	m, ok := res.Metric(t.Metric)
	switch {
	case !ok && t.Metric == metrics.TagErrorRequestCount:
		o.Measured, o.Unit, o.Measurable = 0, metrics.UnitRequests, true
		o.Note = "no request failed (the export leaves error_request_count out)"
	case !ok && strings.HasPrefix(t.Metric, adjPrefix):
		base := strings.TrimPrefix(t.Metric, adjPrefix)
		bm, found := res.Metric(base)
		if v, has := stat(&bm, t.Stat); found && has {
			o.Measured, o.Unit, o.Measurable = v, bm.Unit, true
			o.Note = "no request failed, so " + t.Metric + " equals " + base
		} else {
			o.Note = "no value in this run's results"
		}
	case !ok:
		o.Note = "no value in this run's results (no request produced it)"
	default:
		o.Unit = m.Unit
		if v, has := stat(&m, t.Stat); has {
			o.Measured, o.Measurable = v, true
		} else if strings.HasPrefix(t.Metric, adjPrefix) {
			o.Measured, o.Measurable = math.Inf(1), true
			o.Note = "the statistic reaches a failed request (+inf)"
		} else {
			o.Note = "the result has no " + t.Stat + " statistic"
		}
	}
	o.Passed = o.Measurable && t.Op.holds(o.Measured, t.Value)
	return o
}

// stat reads one statistic of a result.
func stat(m *sdk.MetricResult, name string) (float64, bool) {
	var p *float64
	switch name {
	case "avg":
		p = m.Avg
	case "min":
		p = m.Min
	case "max":
		p = m.Max
	case "p1":
		p = m.P1
	case "p5":
		p = m.P5
	case "p10":
		p = m.P10
	case "p25":
		p = m.P25
	case "p50":
		p = m.P50
	case "p75":
		p = m.P75
	case "p90":
		p = m.P90
	case "p95":
		p = m.P95
	case "p99":
		p = m.P99
	case "std":
		p = m.Std
	case "sum":
		p = m.Sum
	case "count":
		if m.Count == nil {
			return 0, false
		}
		return float64(*m.Count), true
	}
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Mark fails the outcome of the threshold that stopped the run: it was
// breached while the run executed, whatever the final value says (the
// exit status already reports the breach).
func (a *Abort) Mark(outs []Outcome) {
	if a == nil || a.Threshold == nil {
		return
	}
	for i := range outs {
		if outs[i].Threshold == *a.Threshold && outs[i].Passed {
			outs[i].Passed = false
			outs[i].Note = fmt.Sprintf("breached during the run at %d of %d requests failed; the run was stopped", a.Errors, a.Records)
		}
	}
}
