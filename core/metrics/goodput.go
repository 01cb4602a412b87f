package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// ParseGoodput parses --goodput: space-separated "metric_tag:value" pairs,
// values in the metric's display unit (ms for latencies). An empty or blank
// string means no SLOs and returns an empty map. It checks the syntax only:
// which tags exist depends on the run's record processors, so
// ValidateGoodputTags checks the tags against the run's catalog.
func ParseGoodput(s string) (map[string]float64, error) {
	fields := strings.Fields(s)
	slos := make(map[string]float64, len(fields))
	for i, pair := range fields {
		tag, raw, ok := strings.Cut(pair, ":")
		if !ok || tag == "" || raw == "" {
			return nil, fmt.Errorf("goodput: pair %d %q is malformed: want metric_tag:value, e.g. request_latency:250", i+1, pair)
		}
		value, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(value) || math.IsInf(value, 0) {
			return nil, fmt.Errorf("goodput: pair %d %q: value %q is not a finite number", i+1, pair, raw)
		}
		if value < 0 {
			return nil, fmt.Errorf("goodput: pair %d %q: value %v is negative; SLO thresholds must be >= 0", i+1, pair, value)
		}
		if _, dup := slos[tag]; dup {
			return nil, fmt.Errorf("goodput: pair %d %q: %s is given more than once", i+1, pair, tag)
		}
		slos[tag] = value
	}
	return slos, nil
}

// notSLOReason says why a metric cannot be an SLO target, or "" if it can:
// a target is compared per successful request, so it must be a scalar
// record metric that successful requests carry.
func notSLOReason(d *Def) string {
	switch {
	case d.Kind == KindRecordTiming:
		return "the core derives it from request timestamps; it is not a per-request value of a record processor"
	case d.Kind != KindRecord:
		return "it is a run-level " + d.Kind.String() + " metric, not a per-request value"
	case d.List:
		return "it is a list of values per request"
	case d.Flags.Has(sdk.FlagErrorOnly):
		return "it is only computed for failed requests"
	}
	return ""
}

// errNoCatalog guards goodput checks against a missing catalog.
var errNoCatalog = errors.New("goodput: no metric catalog")

// ValidateGoodputTags rejects SLOs on metrics the run's catalog does not
// have, that cannot be targets, or that do not apply to the run (e.g.
// time_to_first_token on a non-streaming run), which could never be met and
// would silently make goodput zero.
func ValidateGoodputTags(slos map[string]float64, cat *Catalog) error {
	if len(slos) == 0 {
		return nil
	}
	if cat == nil {
		return errNoCatalog
	}
	// Goodput itself applies once SLOs exist, whatever the catalog was
	// built with.
	disallowed := cat.disallowed &^ sdk.FlagGoodput
	on := cat.resolve(disallowed)
	tags := make([]string, 0, len(slos))
	for tag := range slos {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	for _, tag := range tags {
		id, ok := cat.byTag[tag]
		if !ok {
			return fmt.Errorf("goodput: unknown metric tag %q; valid tags: %s", tag, strings.Join(cat.SLOTags(), ", "))
		}
		if why := notSLOReason(&cat.defs[id].Def); why != "" {
			return fmt.Errorf("goodput: %s cannot be an SLO: %s; valid tags: %s", tag, why, strings.Join(cat.SLOTags(), ", "))
		}
		if v := slos[tag]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("goodput: %s threshold %v must be a finite number >= 0", tag, v)
		}
		if !on[id] {
			return fmt.Errorf("goodput: SLO metric %s does not apply to this run: %s", tag, cat.notApplicableReason(id, disallowed, on))
		}
	}
	return nil
}

// slo is one resolved goodput target.
type slo struct {
	tag            string
	threshold      float64 // in the metric's unit
	largerIsBetter bool
}

// resolveSLOs converts SLOs for isGood; tags the catalog lacks are left out
// (ValidateGoodputTags rejects them before a run).
func resolveSLOs(slos map[string]float64, cat *Catalog) []slo {
	out := make([]slo, 0, len(slos))
	for tag, v := range slos {
		id, ok := cat.byTag[tag]
		if !ok {
			continue
		}
		e := &cat.defs[id]
		// Like AIPerf, the display-unit threshold is converted to the base
		// unit once (250 ms -> 2.5e8 ns) and values are compared unconverted.
		out = append(out, slo{tag: tag, threshold: v * e.div, largerIsBetter: e.Flags.Has(sdk.FlagLargerIsBetter)})
	}
	slices.SortFunc(out, func(a, b slo) int { return strings.Compare(a.tag, b.tag) })
	return out
}

// isGood reports whether a successful record meets every SLO:
// LARGER_IS_BETTER metrics pass at >= threshold, others at <=; a missing
// target metric means not good.
func isGood(slos []slo, values map[string]sdk.MetricValue) bool {
	for i := range slos {
		s := &slos[i]
		mv, ok := values[s.tag]
		if !ok || mv.IsList {
			return false
		}
		x := mv.Scalar
		if s.largerIsBetter {
			if x < s.threshold {
				return false
			}
		} else if x > s.threshold {
			return false
		}
	}
	return true
}
