package aggregate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// closeTo compares with a relative tolerance; NaN equals NaN and infinities
// must match exactly.
func closeTo(got, want, rel float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return math.IsNaN(got) && math.IsNaN(want) || got == want
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

func checkMetric(t *testing.T, name string, got, want Metric, rel float64) {
	t.Helper()
	for _, f := range []struct {
		k    string
		g, w float64
	}{{"mean", got.Mean, want.Mean}, {"std", got.Std, want.Std}, {"min", got.Min, want.Min}, {"max", got.Max, want.Max},
		{"cv", got.CV, want.CV}, {"se", got.SE, want.SE}, {"ci_low", got.CILow, want.CILow}, {"ci_high", got.CIHigh, want.CIHigh},
		{"t_critical", got.TCritical, want.TCritical}} {
		if !closeTo(f.g, f.w, rel) {
			t.Errorf("%s: %s = %.17g, want %.17g", name, f.k, f.g, f.w)
		}
	}
	if got.Unit != want.Unit {
		t.Errorf("%s: unit %q, want %q", name, got.Unit, want.Unit)
	}
}

// TestConfidenceMatchesAIPerf checks the statistics against AIPerf 0.13's
// own ConfidenceAggregation._compute_confidence_stats (scipy's t.ppf),
// computed in /tmp/aiperf-venv with:
//
//	m = ConfidenceAggregation(level)._compute_confidence_stats(values, "x", "ms")
func TestConfidenceMatchesAIPerf(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
		level  float64
		want   Metric
	}{
		{"three_runs_95", []float64{30.1, 30.4, 31.0}, 0.95, Metric{Mean: 30.5, Std: 0.45825756949558355, Min: 30.1, Max: 31.0, CV: 0.015024838344117494, SE: 0.2645751311064588, CILow: 29.361625089920974, CIHigh: 31.638374910079026, TCritical: 4.302652729749462, Unit: "ms"}},
		{"two_runs_90", []float64{100.0, 104.0}, 0.9, Metric{Mean: 102.0, Std: 2.8284271247461903, Min: 100.0, Max: 104.0, CV: 0.0277296776935901, SE: 2.0, CILow: 89.37249697064993, CIHigh: 114.62750302935007, TCritical: 6.313751514675037, Unit: "ms"}},
		{"five_runs_99", []float64{1.7291, 1.7336, 1.7376, 1.71, 1.75}, 0.99, Metric{Mean: 1.73206, Std: 0.014580054869581267, Min: 1.71, Max: 1.75, CV: 0.008417753928605977, SE: 0.006520398760812108, CILow: 1.7020394655061881, CIHigh: 1.7620805344938117, TCritical: 4.604094871349992, Unit: "ms"}},
		{"ten_runs_95", []float64{563.05, 563.43, 563.18, 562.9, 564.2, 563.0, 563.7, 562.5, 563.9, 563.3}, 0.95, Metric{Mean: 563.316, Std: 0.5067587635596048, Min: 562.5, Max: 564.2, CV: 0.0008995994496154996, SE: 0.16025119170990879, CILow: 562.9534866188266, CIHigh: 563.6785133811735, TCritical: 2.262157162798205, Unit: "ms"}},
		{"negative_mean_95", []float64{-2.0, -4.0, -3.0}, 0.95, Metric{Mean: -3.0, Std: 1.0, Min: -4.0, Max: -2.0, CV: -0.3333333333333333, SE: 0.5773502691896258, CILow: -5.48413771175033, CIHigh: -0.5158622882496697, TCritical: 4.302652729749462, Unit: "ms"}},
		{"identical_95", []float64{2.59189453125, 2.59189453125, 2.59189453125}, 0.95, Metric{Mean: 2.59189453125, Std: 0.0, Min: 2.59189453125, Max: 2.59189453125, CV: 0.0, SE: 0.0, CILow: 2.59189453125, CIHigh: 2.59189453125, TCritical: 4.302652729749462, Unit: "ms"}},
		{"zero_mean_95", []float64{0.0, 0.0, 0.0}, 0.95, Metric{Mean: 0.0, Std: 0.0, Min: 0.0, Max: 0.0, CV: math.Inf(1), SE: 0.0, CILow: 0.0, CIHigh: 0.0, TCritical: 4.302652729749462, Unit: "ms"}},
		{"level_0_5", []float64{10.0, 12.0, 11.0, 13.0}, 0.5, Metric{Mean: 11.5, Std: 1.2909944487358056, Min: 10.0, Max: 13.0, CV: 0.11226038684659179, SE: 0.6454972243679028, CILow: 11.006264125074694, CIHigh: 11.993735874925306, TCritical: 0.7648923284043444, Unit: "ms"}},
		// Non-finite run values are dropped (AIPerf's _extract_values_for_pair).
		{"nan_dropped", []float64{30.1, math.NaN(), 30.4, math.Inf(1), 31.0}, 0.95, Metric{Mean: 30.5, Std: 0.45825756949558355, Min: 30.1, Max: 31.0, CV: 0.015024838344117494, SE: 0.2645751311064588, CILow: 29.361625089920974, CIHigh: 31.638374910079026, TCritical: 4.302652729749462, Unit: "ms"}},
		// One value: AIPerf's nan_safe_std gives None and mean/std become NaN.
		{"one_value", []float64{7.5}, 0.95, Metric{Mean: math.NaN(), Std: math.NaN(), Min: 7.5, Max: 7.5, CV: math.NaN(), SE: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN(), TCritical: math.NaN(), Unit: "ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Confidence(c.values, c.level, "ms")
			if err != nil {
				t.Fatal(err)
			}
			// Means, deviations and bounds are computed as AIPerf does (same
			// summation order): only the t quantile comes from another
			// library, gonum instead of scipy.
			checkMetric(t, c.name, got, c.want, 1e-12)
		})
	}
}

// TestTCriticalMatchesScipy compares gonum's Student's t quantile with the
// scipy values AIPerf 0.13 computed for each level and df.
func TestTCriticalMatchesScipy(t *testing.T) {
	cases := []struct {
		level float64
		df    int
		want  float64
	}{
		{0.8, 1, 3.0776835371752544}, {0.8, 2, 1.8856180831641272}, {0.8, 4, 1.533206274058944}, {0.8, 9, 1.3830287383966329},
		{0.9, 1, 6.313751514675037}, {0.9, 2, 2.9199855803537242}, {0.9, 4, 2.1318467863266495}, {0.9, 9, 1.833112932656237},
		{0.95, 1, 12.706204736174694}, {0.95, 2, 4.302652729749462}, {0.95, 4, 2.7764451051977934}, {0.95, 9, 2.262157162798205},
		{0.99, 1, 63.656741162871526}, {0.99, 2, 9.924843200918287}, {0.99, 4, 4.604094871349992}, {0.99, 9, 3.249835541592126},
		{0.999, 1, 636.6192487687897}, {0.999, 2, 31.599054576445365}, {0.999, 4, 8.610301581379522}, {0.999, 9, 4.780912585931217},
	}
	for _, c := range cases {
		if got := TCritical(c.level, c.df); !closeTo(got, c.want, 1e-12) {
			t.Errorf("TCritical(%v, %d) = %.17g, want %.17g", c.level, c.df, got, c.want)
		}
	}
	if got := TCritical(0.95, 0); !math.IsNaN(got) {
		t.Errorf("TCritical(0.95, 0) = %v, want NaN (scipy's t.ppf with df=0)", got)
	}
}

func TestCheckLevelRejectsOutOfRange(t *testing.T) {
	for _, l := range []float64{0, 1, 1.5, -0.1, math.NaN()} {
		if CheckLevel(l) == nil {
			t.Errorf("CheckLevel(%v) accepted", l)
		}
		if _, err := Confidence([]float64{1, 2}, l, ""); err == nil {
			t.Errorf("Confidence at level %v accepted", l)
		}
	}
	if err := CheckLevel(0.95); err != nil {
		t.Error(err)
	}
}

// fixtureRuns reads AIPerf 0.13's three trimmed run exports.
func fixtureRuns(t *testing.T) []Run {
	t.Helper()
	var runs []Run
	for i := range 3 {
		s, err := ReadSummary(filepath.Join("testdata", "aiperf013", RunLabel(i)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, Classify(RunLabel(i), s))
	}
	return runs
}

// fixtureOrder returns the metric names of AIPerf's aggregate file in its
// order (a Python set's, arbitrary).
func fixtureOrder(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	var names []string
	depth := 0
	inMetrics := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && v == "metrics" {
				inMetrics = true
			} else if inMetrics && depth == 2 {
				names = append(names, v)
			}
		}
	}
	return names
}

// TestAggregateReproducesAIPerfFiles aggregates the three runs AIPerf 0.13
// measured and compares with the aggregate AIPerf wrote from them: every
// statistic's numbers, then (in AIPerf's metric order) the JSON and CSV
// byte for byte.
func TestAggregateReproducesAIPerfFiles(t *testing.T) {
	res, err := Aggregate(fixtureRuns(t), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "aiperf013", JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	type wm = struct {
		Mean      float64  `json:"mean"`
		Std       float64  `json:"std"`
		Min       float64  `json:"min"`
		Max       float64  `json:"max"`
		CV        *float64 `json:"cv"`
		SE        float64  `json:"se"`
		CILow     float64  `json:"ci_low"`
		CIHigh    float64  `json:"ci_high"`
		TCritical float64  `json:"t_critical"`
		Unit      string   `json:"unit"`
	}
	var file struct {
		Metrics map[string]wm `json:"metrics"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Metrics) != 59 { // 4 metrics x 14 stats + 3 single-valued
		t.Fatalf("fixture has only %d statistics", len(file.Metrics))
	}
	if len(res.Metrics) != len(file.Metrics) {
		t.Errorf("%d statistics, AIPerf wrote %d", len(res.Metrics), len(file.Metrics))
	}
	for name, w := range file.Metrics {
		got := res.Metric(name)
		if got == nil {
			t.Errorf("%s missing", name)
			continue
		}
		cv := math.Inf(1) // AIPerf's null cv is a zero mean's +Inf
		if w.CV != nil {
			cv = *w.CV
		}
		checkMetric(t, name, *got, Metric{Mean: w.Mean, Std: w.Std, Min: w.Min, Max: w.Max, CV: cv, SE: w.SE,
			CILow: w.CILow, CIHigh: w.CIHigh, TCritical: w.TCritical, Unit: w.Unit}, 1e-12)
	}

	// Byte-for-byte, with our metrics put in AIPerf's (arbitrary) order and
	// AIPerf's version string.
	order := fixtureOrder(t, raw)
	if len(order) != len(file.Metrics) {
		t.Fatalf("read %d names from the fixture, want %d", len(order), len(file.Metrics))
	}
	slices.SortFunc(res.Metrics, func(a, b NamedMetric) int { return slices.Index(order, a.Name) - slices.Index(order, b.Name) })
	if got := res.JSON("0.13.0"); !bytes.Equal(append(got, '\n'), raw) {
		t.Errorf("JSON differs from AIPerf's:\n%s", firstDiff(string(got)+"\n", string(raw)))
	}
	wantCSV, err := os.ReadFile(filepath.Join("testdata", "aiperf013", CSVFile))
	if err != nil {
		t.Fatal(err)
	}
	// The CSV rows follow AIPerf's own (different) set order.
	csvOrder := csvNames(string(wantCSV))
	slices.SortFunc(res.Metrics, func(a, b NamedMetric) int {
		return slices.Index(csvOrder, a.Name) - slices.Index(csvOrder, b.Name)
	})
	gotCSV, err := res.CSV()
	if err != nil {
		t.Fatal(err)
	}
	if string(gotCSV) != string(wantCSV) {
		t.Errorf("CSV differs from AIPerf's:\n%s", firstDiff(string(gotCSV), string(wantCSV)))
	}
}

func csvNames(s string) []string {
	var names []string
	for i, l := range strings.Split(s, "\r\n") {
		if l == "" {
			break
		}
		if i > 0 {
			names = append(names, strings.SplitN(l, ",", 2)[0])
		}
	}
	return names
}

func firstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, g, w)
		}
	}
	return "(lengths differ)"
}
