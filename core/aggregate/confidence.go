// Package aggregate combines the results of repeated profile runs
// (--num-profile-runs) into AIPerf 0.13's confidence aggregate: for every
// metric statistic of the runs' profile_export_aiperf.json, the mean across
// runs, the sample standard deviation, the coefficient of variation, the
// standard error and a Student's t confidence interval. It writes
// aggregate/profile_export_aiperf_aggregate.json and .csv in AIPerf's
// shapes and prints AIPerf's console summary.
package aggregate

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Metric is one metric statistic across runs (AIPerf's ConfidenceMetric).
type Metric struct {
	// Mean is the sample mean of the runs' values.
	Mean float64
	// Std is the sample standard deviation (ddof=1).
	Std float64
	// Min and Max are the smallest and largest run values.
	Min, Max float64
	// CV is the coefficient of variation Std/Mean, a ratio (+Inf when the
	// mean is 0, as AIPerf).
	CV float64
	// SE is the standard error Std/sqrt(n).
	SE float64
	// CILow and CIHigh bound the confidence interval Mean ± TCritical*SE.
	CILow, CIHigh float64
	// TCritical is Student's t quantile 1-(1-level)/2 with n-1 degrees of
	// freedom; NaN when there is only one value.
	TCritical float64
	// Unit is the metric's display unit (ms, requests/sec, ...).
	Unit string
}

// CheckLevel reports whether level is a valid confidence level: strictly
// between 0 and 1, as AIPerf's --confidence-level.
func CheckLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("confidence level %v must be between 0 and 1 (exclusive); common values: 0.90, 0.95, 0.99", level)
	}
	return nil
}

// TCritical is the two-sided Student's t critical value for the confidence
// level with df degrees of freedom (scipy's stats.t.ppf(1-(1-level)/2, df),
// which AIPerf calls). It is NaN for df < 1, as scipy's.
func TCritical(level float64, df int) float64 {
	if df < 1 || CheckLevel(level) != nil {
		return math.NaN()
	}
	alpha := 1 - level
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - alpha/2)
}

// Confidence computes the statistics of values (one per run) at the given
// confidence level, as AIPerf's ConfidenceAggregation._compute_confidence_stats:
// non-finite values are dropped first; with a single value left the mean and
// the spread are NaN (no sample variance), as AIPerf's code does.
func Confidence(values []float64, level float64, unit string) (Metric, error) {
	if err := CheckLevel(level); err != nil {
		return Metric{}, err
	}
	finite := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	if len(finite) == 0 {
		return Metric{}, errors.New("no finite values")
	}
	n := len(finite)
	// Left-to-right sums, as Python 3.11's sum() in AIPerf's nan_safe_mean
	// and nan_safe_std, so the last digits agree.
	var sum float64
	lo, hi := finite[0], finite[0]
	for _, v := range finite {
		sum += v
		lo, hi = min(lo, v), max(hi, v)
	}
	mean, std := sum/float64(n), math.NaN()
	if n >= 2 {
		var sq float64
		for _, v := range finite {
			sq += (v - mean) * (v - mean)
		}
		std = math.Sqrt(sq / float64(n-1))
	} else {
		// AIPerf: nan_safe_std returns None and both become NaN.
		mean = math.NaN()
	}
	cv := math.Inf(1)
	if mean != 0 {
		cv = std / mean
	}
	se := std / math.Sqrt(float64(n))
	t := TCritical(level, n-1)
	margin := t * se
	return Metric{
		Mean: mean, Std: std, Min: lo, Max: hi, CV: cv, SE: se,
		CILow: mean - margin, CIHigh: mean + margin, TCritical: t, Unit: unit,
	}, nil
}

// single is the degenerate statistic of one run's value (AIPerf's
// single-run path): no spread, the interval collapsed to the value and
// TCritical NaN to say there is no real interval.
func single(v float64, unit string) Metric {
	return Metric{Mean: v, Min: v, Max: v, CILow: v, CIHigh: v, TCritical: math.NaN(), Unit: unit}
}
