// Package compare compares two runs' artifacts (`aiperf compare BASELINE
// CANDIDATE`): per metric the candidate's difference from the baseline
// with a confidence interval computed from the per-request records —
// Welch's t interval for the mean, a seeded percentile bootstrap for
// p50/p90/p99 — flagged significant only when the interval excludes zero,
// and regressions beyond a tolerance. Run-level metrics (throughputs) have
// no per-request distribution and get the difference alone.
package compare

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Stats compared for per-request metrics, in display order.
var Stats = []string{"avg", "p50", "p90", "p99"}

// Defaults of Options.
const (
	DefaultConfidenceLevel = 0.95
	DefaultResamples       = 2000
	// MinTail is how many records each run needs beyond a percentile (below
	// p50's, above p90's and p99's) for a bootstrap interval: with fewer, the
	// resampled percentile takes only a handful of distinct values and the
	// percentile interval does not hold its level.
	MinTail = 5
)

// Kinds of compared metrics.
const (
	KindPerRequest = "per_request"
	KindRunLevel   = "run_level"
)

// Methods of an interval.
const (
	MethodWelch     = "welch_t"
	MethodBootstrap = "percentile_bootstrap"
)

// Verdicts of one statistic.
const (
	VerdictBetter    = "better"    // significant, in the better direction
	VerdictWorse     = "worse"     // significant, in the worse direction
	VerdictChanged   = "changed"   // significant, direction of the metric unknown
	VerdictUnchanged = "unchanged" // the interval contains zero
	VerdictNoCI      = "no_interval"
)

// Options configure a comparison.
type Options struct {
	// ConfidenceLevel of every interval, in (0, 1); 0 means
	// DefaultConfidenceLevel.
	ConfidenceLevel float64
	// Resamples of the bootstrap; 0 means DefaultResamples.
	Resamples int
	// Seed of the bootstrap; each metric draws from its own stream of it.
	Seed uint64
	// Specs describe the known metrics by tag: header, display order,
	// console visibility and LARGER_IS_BETTER. A metric without a spec is
	// compared under its tag, with no known direction.
	Specs map[string]sdk.MetricSpec
	// Tolerances are the regression gates (--tolerance).
	Tolerances []Tolerance
}

// Side is one run as the result names it.
type Side struct {
	Dir          string `json:"dir"`
	Model        string `json:"model"`
	EndpointType string `json:"endpoint_type"`
	Streaming    bool   `json:"streaming"`
	Requests     int    `json:"request_count"`
}

// Result is a whole comparison.
type Result struct {
	Baseline        Side    `json:"baseline"`
	Candidate       Side    `json:"candidate"`
	ConfidenceLevel float64 `json:"confidence_level"`
	Methods         Methods `json:"methods"`
	// Metrics are ordered as the console table orders them (display order,
	// then tag).
	Metrics     []MetricDiff `json:"metrics"`
	Regressions []string     `json:"regressions"`
	Notes       []string     `json:"notes,omitempty"`
}

// Methods say how the intervals were computed.
type Methods struct {
	Mean        string `json:"mean"`
	Percentiles string `json:"percentiles"`
	Resamples   int    `json:"bootstrap_resamples"`
	Seed        uint64 `json:"bootstrap_seed"`
	MinTail     int    `json:"bootstrap_min_tail_records"`
}

// MetricDiff is one metric's comparison.
type MetricDiff struct {
	Tag    string `json:"tag"`
	Header string `json:"header"`
	Unit   string `json:"unit"`
	Kind   string `json:"kind"`
	// LargerIsBetter is nil when the metric's direction is unknown.
	LargerIsBetter *bool      `json:"larger_is_better"`
	BaselineCount  int        `json:"baseline_count,omitempty"`
	CandidateCount int        `json:"candidate_count,omitempty"`
	Stats          []StatDiff `json:"stats"`
	// Console is whether AIPerf's main metrics table shows the metric (or a
	// tolerance names it): the console comparison shows those rows.
	Console      bool `json:"-"`
	DisplayOrder int  `json:"-"`
}

// StatDiff is one statistic's difference, candidate − baseline.
type StatDiff struct {
	Stat      string  `json:"stat"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	Diff      float64 `json:"diff"`
	// DiffPct is Diff relative to the baseline, in %; nil when the
	// baseline is 0.
	DiffPct *float64 `json:"diff_pct"`
	// CILow/CIHigh bound the difference; nil without an interval (Note
	// says why).
	CILow       *float64 `json:"ci_low"`
	CIHigh      *float64 `json:"ci_high"`
	Method      string   `json:"method,omitempty"`
	Significant bool     `json:"significant"`
	Verdict     string   `json:"verdict"`
	Note        string   `json:"note,omitempty"`
	// Tolerance is the --tolerance that gates this statistic; Regression
	// whether it failed.
	Tolerance  string `json:"tolerance,omitempty"`
	Regression bool   `json:"regression"`
}

// footerOnly are the metrics AIPerf's console prints under the table, not
// in it (the metrics_table exporter's list).
var footerOnly = map[string]bool{
	"benchmark_duration": true, "min_request_timestamp": true, "max_response_timestamp": true,
	"total_isl": true, "total_osl": true, "total_output_tokens": true, "total_reasoning_tokens": true,
	"total_error_isl": true,
}

// notCompared are summary entries whose difference means nothing: the
// runs' clock readings.
var notCompared = map[string]bool{"min_request_timestamp": true, "max_response_timestamp": true}

const hiddenFlags = sdk.FlagErrorOnly | sdk.FlagNoConsole | sdk.FlagInternal | sdk.FlagExperimental

// CheckComparable refuses runs whose metrics do not mean the same thing: a
// different endpoint type, or streaming against non-streaming (TTFT and ITL
// exist only when streaming). Different models are compared.
func CheckComparable(base, cand *Run) error {
	if base.EndpointType != cand.EndpointType {
		return fmt.Errorf("compare: runs with different endpoint types cannot be compared: baseline %s is %q, candidate %s is %q",
			base.Dir, base.EndpointType, cand.Dir, cand.EndpointType)
	}
	if base.Streaming != cand.Streaming {
		return fmt.Errorf("compare: runs with different streaming settings cannot be compared: baseline %s has streaming=%t, candidate %s has streaming=%t",
			base.Dir, base.Streaming, cand.Dir, cand.Streaming)
	}
	return nil
}

// Compare compares candidate against baseline. The error names the flag or
// run at fault: runs that cannot be compared, a bad level, a tolerance on a
// metric or statistic the runs do not both have.
func Compare(base, cand *Run, o Options) (*Result, error) {
	if err := CheckComparable(base, cand); err != nil {
		return nil, err
	}
	if o.ConfidenceLevel == 0 {
		o.ConfidenceLevel = DefaultConfidenceLevel
	}
	if err := checkLevel(o.ConfidenceLevel); err != nil {
		return nil, fmt.Errorf("--confidence-level: %w", err)
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Resamples < 1 {
		return nil, fmt.Errorf("bootstrap resamples %d: want at least 1", o.Resamples)
	}
	res := &Result{
		Baseline:        side(base),
		Candidate:       side(cand),
		ConfidenceLevel: o.ConfidenceLevel,
		Methods:         Methods{Mean: MethodWelch, Percentiles: MethodBootstrap, Resamples: o.Resamples, Seed: o.Seed, MinTail: MinTail},
		Regressions:     []string{},
	}
	if base.Model != cand.Model {
		res.Notes = append(res.Notes, fmt.Sprintf("the runs profiled different models: baseline %q, candidate %q", base.Model, cand.Model))
	}
	for _, tag := range perRequestTags(base, cand) {
		if base.Units[tag] != cand.Units[tag] {
			res.Notes = append(res.Notes, fmt.Sprintf("%s skipped: baseline records are in %q, candidate records in %q", tag, base.Units[tag], cand.Units[tag]))
			continue
		}
		md, err := comparePerRequest(tag, base, cand, o)
		if err != nil {
			return nil, err
		}
		res.Metrics = append(res.Metrics, md)
	}
	for _, tag := range runLevelTags(base, cand) {
		b, c := base.Summary[tag], cand.Summary[tag]
		if b.Unit != c.Unit {
			res.Notes = append(res.Notes, fmt.Sprintf("%s skipped: baseline in %q, candidate in %q", tag, b.Unit, c.Unit))
			continue
		}
		md := newMetric(tag, b.Unit, KindRunLevel, o.Specs)
		sd := newStat("avg", b.Stats["avg"], c.Stats["avg"])
		sd.Verdict, sd.Note = VerdictNoCI, "run-level metric: one value per run, no per-request distribution"
		md.Stats = []StatDiff{sd}
		res.Metrics = append(res.Metrics, md)
	}
	slices.SortStableFunc(res.Metrics, func(a, b MetricDiff) int {
		return cmp.Or(cmp.Compare(sortKey(a.DisplayOrder), sortKey(b.DisplayOrder)), strings.Compare(a.Tag, b.Tag))
	})
	if err := applyTolerances(res, o.Tolerances); err != nil {
		return nil, err
	}
	return res, nil
}

func side(r *Run) Side {
	return Side{Dir: r.Dir, Model: r.Model, EndpointType: r.EndpointType, Streaming: r.Streaming, Requests: r.Requests}
}

func sortKey(order int) int {
	if order == 0 {
		return math.MaxInt32 // no display order sorts last, as in AIPerf
	}
	return order
}

// perRequestTags are the metrics with per-request values in both runs that
// the summaries report as record metrics (with percentiles); a metric the
// records carry but the summary reports as one count (good_request_count)
// is run-level.
func perRequestTags(base, cand *Run) []string {
	var out []string
	for tag := range base.Values {
		if len(cand.Values[tag]) == 0 || len(base.Values[tag]) == 0 {
			continue
		}
		if !recordMetric(base, tag) || !recordMetric(cand, tag) {
			continue
		}
		out = append(out, tag)
	}
	slices.Sort(out)
	return out
}

func recordMetric(r *Run, tag string) bool {
	st, ok := r.Summary[tag]
	if !ok {
		return true
	}
	_, p50 := st.Stats["p50"]
	return p50
}

// runLevelTags are the summaries' metrics with one value per run (an avg
// and no percentiles) in both runs.
func runLevelTags(base, cand *Run) []string {
	var out []string
	for tag, b := range base.Summary {
		c, ok := cand.Summary[tag]
		if !ok || notCompared[tag] {
			continue
		}
		_, bAvg := b.Stats["avg"]
		_, cAvg := c.Stats["avg"]
		_, bP50 := b.Stats["p50"]
		_, cP50 := c.Stats["p50"]
		if !bAvg || !cAvg || bP50 || cP50 {
			continue // a record metric: compared per request, or not at all without records
		}
		out = append(out, tag)
	}
	slices.Sort(out)
	return out
}

func newMetric(tag, unit, kind string, specs map[string]sdk.MetricSpec) MetricDiff {
	md := MetricDiff{Tag: tag, Header: tag, Unit: unit, Kind: kind, Console: true}
	if s, ok := specs[tag]; ok {
		larger := s.Flags.Has(sdk.FlagLargerIsBetter)
		md.LargerIsBetter = &larger
		if s.Header != "" {
			md.Header = s.Header
		}
		md.DisplayOrder = s.DisplayOrder
		md.Console = !s.Flags.HasAny(hiddenFlags) && s.ConsoleGroup == "" && !footerOnly[tag]
	}
	return md
}

func newStat(stat string, b, c float64) StatDiff {
	sd := StatDiff{Stat: stat, Baseline: b, Candidate: c, Diff: c - b}
	if b != 0 {
		p := sd.Diff / math.Abs(b) * 100
		sd.DiffPct = &p
	}
	return sd
}

// stream seeds each metric's bootstrap from its tag, so a metric's interval
// does not depend on which other metrics the runs have.
func stream(tag string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(tag))
	return h.Sum64()
}

func comparePerRequest(tag string, base, cand *Run, o Options) (MetricDiff, error) {
	bv, cv := base.Values[tag], cand.Values[tag]
	md := newMetric(tag, base.Units[tag], KindPerRequest, o.Specs)
	md.BaselineCount, md.CandidateCount = len(bv), len(cv)
	bs, cs := sorted(bv), sorted(cv)

	bMean, _ := meanVar(bv)
	cMean, _ := meanVar(cv)
	avg := newStat("avg", bMean, cMean)
	if w, err := WelchInterval(bv, cv, o.ConfidenceLevel); err != nil {
		avg.Verdict, avg.Note = VerdictNoCI, fmt.Sprintf("fewer than 2 records in a run (%d and %d)", len(bv), len(cv))
	} else {
		avg.Method = MethodWelch
		setInterval(&avg, w.Interval, md.LargerIsBetter)
	}
	md.Stats = append(md.Stats, avg)

	// Percentiles with enough records beyond them share one bootstrap.
	var qs []float64
	var idx []int
	n := min(len(bv), len(cv))
	for _, stat := range Stats[1:] {
		q, _ := strconv.ParseFloat(stat[1:], 64)
		sd := newStat(stat, Percentile(bs, q), Percentile(cs, q))
		if tail := float64(n) * math.Min(q, 100-q) / 100; tail < MinTail {
			need := int(math.Ceil(MinTail * 100 / math.Min(q, 100-q)))
			sd.Verdict, sd.Note = VerdictNoCI, fmt.Sprintf("too few records for a %s interval: %d, need %d (%d beyond it)", stat, n, need, MinTail)
		} else {
			qs = append(qs, q)
			idx = append(idx, len(md.Stats))
		}
		md.Stats = append(md.Stats, sd)
	}
	if len(qs) > 0 {
		ivs, err := Bootstrap{Resamples: o.Resamples, Seed: o.Seed, Stream: stream(tag)}.QuantileDiffIntervals(bs, cs, qs, o.ConfidenceLevel)
		if err != nil {
			return md, fmt.Errorf("compare %s: %w", tag, err)
		}
		for k, i := range idx {
			md.Stats[i].Method = MethodBootstrap
			setInterval(&md.Stats[i], ivs[k], md.LargerIsBetter)
		}
	}
	return md, nil
}

func setInterval(sd *StatDiff, iv Interval, largerIsBetter *bool) {
	lo, hi := iv.Low, iv.High
	sd.CILow, sd.CIHigh = &lo, &hi
	sd.Significant = iv.Excludes0()
	switch {
	case !sd.Significant:
		sd.Verdict = VerdictUnchanged
	case largerIsBetter == nil:
		sd.Verdict = VerdictChanged
	case (iv.Low > 0) == *largerIsBetter:
		sd.Verdict = VerdictBetter
	default:
		sd.Verdict = VerdictWorse
	}
}
