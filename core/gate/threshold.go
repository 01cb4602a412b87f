// Package gate is the CI gate of `aiperf profile`: --threshold expressions
// ("metric:stat<value") checked against a run's results, AIPerf 0.13's
// --failed-request-threshold early abort (and --abort-on-threshold-breach)
// watched on the record collector, off the timed path, and the JUnit XML and
// Markdown reports CI systems read.
package gate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Op is a threshold's comparison: the measured value must satisfy it.
type Op int

// The comparisons a threshold may use.
const (
	Less Op = iota + 1
	LessEq
	Greater
	GreaterEq
)

func (o Op) String() string {
	switch o {
	case Less:
		return "<"
	case LessEq:
		return "<="
	case Greater:
		return ">"
	case GreaterEq:
		return ">="
	}
	return "?"
}

// holds reports whether measured satisfies "measured op limit". NaN never
// does.
func (o Op) holds(measured, limit float64) bool {
	switch o {
	case Less:
		return measured < limit
	case LessEq:
		return measured <= limit
	case Greater:
		return measured > limit
	case GreaterEq:
		return measured >= limit
	}
	return false
}

// upper reports whether the threshold is an upper bound (< or <=).
func (o Op) upper() bool { return o == Less || o == LessEq }

// Stats are the statistics a threshold may name: the keys of a metric in
// profile_export_aiperf.json.
var Stats = []string{"avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "count", "sum"}

// Threshold is one parsed --threshold expression; Value is in the metric's
// display unit (ms for latencies, % for request_error_rate), as the exports
// show it.
type Threshold struct {
	Metric string
	Stat   string
	Op     Op
	Value  float64
}

// String is the canonical spelling, e.g. "time_to_first_token:p99<200".
func (t Threshold) String() string {
	return t.Metric + ":" + t.Stat + t.Op.String() + strconv.FormatFloat(t.Value, 'g', -1, 64)
}

// ParseThresholds parses --threshold values: each item holds one or more
// whitespace-separated expressions "metric:stat<op>value" with op one of
// <, <=, >, >= (like --goodput, several in one value). Errors quote the
// offending expression and say what is wrong with it; the caller adds the
// flag name. A metric:stat given twice with the same operator is an error.
func ParseThresholds(items []string) ([]Threshold, error) {
	var out []Threshold
	seen := map[string]bool{}
	for _, item := range items {
		for _, tok := range strings.Fields(item) {
			t, err := parseOne(tok)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", tok, err)
			}
			key := t.Metric + ":" + t.Stat + t.Op.String()
			if seen[key] {
				return nil, fmt.Errorf("%q: %s:%s %s is given more than once", tok, t.Metric, t.Stat, t.Op)
			}
			seen[key] = true
			out = append(out, t)
		}
	}
	return out, nil
}

const syntaxHint = `want metric:stat<value with <, <=, > or >=, e.g. "time_to_first_token:p99<200"`

func parseOne(tok string) (Threshold, error) {
	metric, rest, ok := strings.Cut(tok, ":")
	if !ok || strings.ContainsAny(metric, "<>") {
		return Threshold{}, fmt.Errorf("no ':' between the metric and its statistic; %s", syntaxHint)
	}
	if metric == "" {
		return Threshold{}, fmt.Errorf("no metric before ':'; %s", syntaxHint)
	}
	i := strings.IndexAny(rest, "<>")
	if i < 0 {
		return Threshold{}, fmt.Errorf("no comparison (<, <=, > or >=); %s", syntaxHint)
	}
	stat := rest[:i]
	if stat == "" {
		return Threshold{}, fmt.Errorf("no statistic after %q; choose one of %s", metric+":", strings.Join(Stats, ", "))
	}
	if !slices.Contains(Stats, stat) {
		return Threshold{}, fmt.Errorf("unknown statistic %q; choose one of %s", stat, strings.Join(Stats, ", "))
	}
	var op Op
	raw := rest[i:]
	switch {
	case strings.HasPrefix(raw, "<="):
		op, raw = LessEq, raw[2:]
	case strings.HasPrefix(raw, ">="):
		op, raw = GreaterEq, raw[2:]
	case strings.HasPrefix(raw, "<"):
		op, raw = Less, raw[1:]
	default:
		op, raw = Greater, raw[1:]
	}
	if raw == "" {
		return Threshold{}, fmt.Errorf("no value after %q; %s", op.String(), syntaxHint)
	}
	v, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Threshold{}, fmt.Errorf("value %q is not a finite number; %s", raw, syntaxHint)
	}
	return Threshold{Metric: metric, Stat: stat, Op: op, Value: v}, nil
}
