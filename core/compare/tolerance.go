package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tolerance is one --tolerance "metric:stat:VALUE": how much worse the
// candidate's statistic may be before it is a regression. VALUE is a
// number, a percentage of the baseline ("5%") or an amount in the metric's
// unit ("2"), optionally signed with the direction of a regression: "+"
// when an increase is worse (latencies), "-" when a decrease is (throughputs).
// The sign is checked against the metric's LARGER_IS_BETTER flag and
// required for a metric of unknown direction.
type Tolerance struct {
	Raw      string
	Metric   string
	Stat     string
	Sign     int // +1, -1, or 0 when not given
	Amount   float64
	Relative bool
}

// ParseTolerance parses one --tolerance value.
func ParseTolerance(s string) (Tolerance, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) != 3 {
		return Tolerance{}, fmt.Errorf("--tolerance %q: want metric:stat:value, e.g. time_to_first_token:p99:+5%%", s)
	}
	t := Tolerance{Raw: s, Metric: strings.TrimSpace(parts[0]), Stat: strings.ToLower(strings.TrimSpace(parts[1]))}
	if t.Metric == "" {
		return Tolerance{}, fmt.Errorf("--tolerance %q: the metric tag is empty", s)
	}
	if !slices.Contains(Stats, t.Stat) {
		return Tolerance{}, fmt.Errorf("--tolerance %q: stat %q, want one of %s", s, parts[1], strings.Join(Stats, ", "))
	}
	v := strings.TrimSpace(parts[2])
	if rest, ok := strings.CutSuffix(v, "%"); ok {
		t.Relative, v = true, strings.TrimSpace(rest)
	}
	switch {
	case strings.HasPrefix(v, "+"):
		t.Sign, v = 1, v[1:]
	case strings.HasPrefix(v, "-"):
		t.Sign, v = -1, v[1:]
	}
	amount, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(amount) || math.IsInf(amount, 0) || amount < 0 || strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-") {
		return Tolerance{}, fmt.Errorf("--tolerance %q: value %q is not a number, a percentage such as +5%% or an amount such as +2", s, parts[2])
	}
	t.Amount = amount
	return t, nil
}

// Value is the tolerance as the table shows it: the signed amount.
func (t Tolerance) Value() string {
	sign := ""
	switch t.Sign {
	case 1:
		sign = "+"
	case -1:
		sign = "-"
	}
	s := sign + strconv.FormatFloat(t.Amount, 'f', -1, 64)
	if t.Relative {
		s += "%"
	}
	return s
}

// applyTolerances marks the gated statistics and their regressions. A
// regression is a difference in the worse direction beyond the tolerance
// that is significant: its interval lies wholly on the worse side of zero.
// A statistic without an interval (a run-level metric, a percentile with
// too few records) is judged on the difference alone, and says so.
func applyTolerances(res *Result, tols []Tolerance) error {
	seen := map[string]string{}
	for _, t := range tols {
		key := t.Metric + ":" + t.Stat
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("--tolerance %q: %s already has --tolerance %q", t.Raw, key, prev)
		}
		seen[key] = t.Raw
		md := findMetric(res, t.Metric)
		if md == nil {
			return fmt.Errorf("--tolerance %q: metric %s is not in both runs; compared: %s", t.Raw, t.Metric, strings.Join(tags(res), ", "))
		}
		var sd *StatDiff
		for i := range md.Stats {
			if md.Stats[i].Stat == t.Stat {
				sd = &md.Stats[i]
			}
		}
		if sd == nil {
			return fmt.Errorf("--tolerance %q: %s is a run-level metric with one value per run: use %s:avg", t.Raw, t.Metric, t.Metric)
		}
		worseUp, err := worseDirection(t, md)
		if err != nil {
			return err
		}
		md.Console = true
		sd.Tolerance = t.Value()
		worse := sd.Diff
		if !worseUp {
			worse = -worse
		}
		limit := t.Amount
		if t.Relative {
			limit = t.Amount / 100 * math.Abs(sd.Baseline)
		}
		evidence := true
		if sd.CILow != nil && sd.CIHigh != nil {
			evidence = worseUp && *sd.CILow > 0 || !worseUp && *sd.CIHigh < 0
		}
		if !(worse > limit && evidence) {
			continue
		}
		sd.Regression = true
		msg := fmt.Sprintf("%s %s: %s %s", md.Tag, sd.Stat, signed(sd.Diff), md.Unit)
		if sd.DiffPct != nil {
			msg += fmt.Sprintf(" (%s%%)", signed(*sd.DiffPct))
		}
		if sd.CILow != nil {
			msg += fmt.Sprintf(", %s%% CI [%s, %s]", LevelPercent(res.ConfidenceLevel), signed(*sd.CILow), signed(*sd.CIHigh))
		} else {
			msg += ", no interval (judged on the difference alone)"
		}
		msg += ", beyond tolerance " + sd.Tolerance
		res.Regressions = append(res.Regressions, msg)
	}
	return nil
}

// worseDirection reports whether an increase of md is a regression under t.
func worseDirection(t Tolerance, md *MetricDiff) (bool, error) {
	if md.LargerIsBetter == nil {
		if t.Sign == 0 {
			return false, fmt.Errorf("--tolerance %q: whether larger is better is unknown for %s: sign the value with the direction of a regression, + (an increase is worse) or - (a decrease is worse)", t.Raw, t.Metric)
		}
		return t.Sign > 0, nil
	}
	worseUp := !*md.LargerIsBetter
	if t.Sign != 0 && (t.Sign > 0) != worseUp {
		want, what := "-", "larger is better, so a regression is a decrease"
		if worseUp {
			want, what = "+", "smaller is better, so a regression is an increase"
		}
		return false, fmt.Errorf("--tolerance %q: for %s %s: write %s%s or leave the sign out", t.Raw, t.Metric, what, want, strings.TrimLeft(t.Value(), "+-"))
	}
	return worseUp, nil
}

func findMetric(res *Result, tag string) *MetricDiff {
	for i := range res.Metrics {
		if res.Metrics[i].Tag == tag {
			return &res.Metrics[i]
		}
	}
	return nil
}

func tags(res *Result) []string {
	out := make([]string, len(res.Metrics))
	for i, m := range res.Metrics {
		out[i] = m.Tag
	}
	slices.Sort(out)
	return out
}

// LevelPercent writes a confidence level as a percentage: 0.95 as "95",
// 0.999 as "99.9".
func LevelPercent(level float64) string {
	return strconv.FormatFloat(math.Round(level*1e6)/1e4, 'f', -1, 64)
}

// signed formats v with its sign and four significant digits.
func signed(v float64) string { return fmt.Sprintf("%+.4g", v) }
