package aggregate

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummaryMatchesAIPerfConsole prints the summary of AIPerf's three
// runs and compares it with what AIPerf 0.13 printed for them.
func TestSummaryMatchesAIPerfConsole(t *testing.T) {
	res, err := Aggregate(fixtureRuns(t), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := res.WriteSummary(&got); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "aiperf013", "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("summary differs from AIPerf's:\n%s", firstDiff(got.String(), string(want)))
	}
}

func summary(metrics ...SummaryMetric) *Summary { return &Summary{Metrics: metrics} }

func metric(name, unit string, stats map[string]float64) SummaryMetric {
	return SummaryMetric{Name: name, Unit: unit, Stats: stats}
}

func TestClassifyAsAIPerfExecutor(t *testing.T) {
	cases := []struct {
		name string
		s    *Summary
		want string
	}{
		{"no summary", nil, "No metrics found in artifacts - run may have failed to complete"},
		{"no metrics", summary(), "No metrics found in artifacts - run may have failed to complete"},
		{"all failed", summary(metric("error_request_count", "requests", map[string]float64{"avg": 7})), "All 7 requests failed"},
		{"zero requests", summary(metric("request_count", "requests", map[string]float64{"avg": 0})), "No requests completed"},
		{"ok", summary(metric("request_count", "requests", map[string]float64{"avg": 3})), ""},
	}
	for _, c := range cases {
		r := Classify("run_0002", c.s)
		if r.Error != c.want || r.Label != "run_0002" || r.Success() != (c.want == "") {
			t.Errorf("%s: Classify = %+v, want error %q", c.name, r, c.want)
		}
	}
}

func okRun(label string, ttft, rc float64) Run {
	return Classify(label, summary(
		metric("request_count", "requests", map[string]float64{"avg": rc}),
		metric("time_to_first_token", "ms", map[string]float64{"avg": ttft, "p99": ttft + 1}),
	))
}

// TestAggregateFailedAndPartialMetrics: failed runs are listed and left out;
// a statistic only one run has gets AIPerf's NaN mean (null in JSON, empty
// in CSV); metric order follows the first run, then later runs' extras.
func TestAggregateFailedAndPartialMetrics(t *testing.T) {
	extra := okRun("run_0003", 34, 10)
	extra.Summary.Metrics = append(extra.Summary.Metrics, metric("inter_token_latency", "ms", map[string]float64{"avg": 2}))
	runs := []Run{okRun("run_0001", 30, 10), Classify("run_0002", nil), extra}
	res, err := Aggregate(runs, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if res.NumRuns != 3 || res.NumSuccessfulRuns != 2 || len(res.FailedRuns) != 1 || res.FailedRuns[0].Label != "run_0002" {
		t.Fatalf("counts: %+v", res)
	}
	var names []string
	for _, m := range res.Metrics {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, ","); got != "request_count_avg,time_to_first_token_avg,time_to_first_token_p99,inter_token_latency_avg" {
		t.Errorf("order %s", got)
	}
	ttft := res.Metric("time_to_first_token_avg")
	if ttft.Mean != 32 || ttft.Std != math.Sqrt(8) || !closeTo(ttft.TCritical, 6.313751514675037, 1e-12) {
		t.Errorf("ttft %+v", ttft)
	}
	itl := res.Metric("inter_token_latency_avg")
	if !math.IsNaN(itl.Mean) || itl.Min != 2 || itl.Max != 2 {
		t.Errorf("single-valued statistic %+v, want NaN mean and min=max=2", itl)
	}
	var doc struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
		Metrics  map[string]map[string]any  `json:"metrics"`
	}
	if err := json.Unmarshal(res.JSON("x"), &doc); err != nil {
		t.Fatal(err)
	}
	if got := string(doc.Metadata["failed_runs"]); !strings.Contains(got, `"label": "run_0002"`) || !strings.Contains(got, `"error": "No metrics found`) {
		t.Errorf("failed_runs %s", got)
	}
	if got := string(doc.Metadata["run_labels"]); strings.Join(strings.Fields(got), "") != `["run_0001","run_0003"]` {
		t.Errorf("run_labels %s", got)
	}
	if m := doc.Metrics["inter_token_latency_avg"]; m["mean"] != nil || m["t_critical"] != nil || m["min"] != 2.0 {
		t.Errorf("inter_token_latency_avg in JSON %v", m)
	}
	csv, err := res.CSV()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv), "inter_token_latency_avg,,,2.00,2.00,,,,,,ms\r\n") {
		t.Errorf("CSV row of a single-valued statistic:\n%s", csv)
	}
}

// TestAggregateSingleRunAndCancelled: one successful run gives AIPerf's
// degraded aggregate (std 0, CI collapsed, t_critical null, single_run);
// a cancelled benchmark is marked in JSON, CSV and the summary.
func TestAggregateSingleRunAndCancelled(t *testing.T) {
	res, err := Aggregate([]Run{okRun("run_0001", 30, 10), {Label: "run_0002", Error: "cancelled"}}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	res.WasCancelled = true
	res.CooldownSeconds = 2.5
	if !res.SingleRun {
		t.Fatal("SingleRun not set")
	}
	m := res.Metric("time_to_first_token_p99")
	if m.Mean != 31 || m.Std != 0 || m.CILow != 31 || m.CIHigh != 31 || !math.IsNaN(m.TCritical) || m.CV != 0 {
		t.Errorf("degraded statistic %+v", m)
	}
	js := string(res.JSON("v"))
	for _, want := range []string{`"single_run": true`, `"cooldown_seconds": 2.5`, `"was_cancelled": true`, `"t_critical": null`, `"num_profile_runs": 2`, `"num_successful_runs": 1`} {
		if !strings.Contains(js, want) {
			t.Errorf("JSON lacks %s:\n%s", want, js)
		}
	}
	csv, _ := res.CSV()
	for _, want := range []string{"Single Run,True\r\n", "Cooldown Seconds,2.5\r\n", "Was Cancelled,True\r\n", "Run Labels,['run_0001']\r\n"} {
		if !strings.Contains(string(csv), want) {
			t.Errorf("CSV lacks %q:\n%s", want, csv)
		}
	}
	var sum bytes.Buffer
	if err := res.WriteSummary(&sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Failed Runs (1):\n  - run_0002: cancelled\n", "Cancelled: only the runs that finished", "Time To First Token (Avg):"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

func TestAggregateAllFailed(t *testing.T) {
	if _, err := Aggregate([]Run{Classify("run_0001", nil)}, 0.95); err == nil || !strings.Contains(err.Error(), "all runs failed") {
		t.Errorf("err = %v", err)
	}
	if _, err := Aggregate([]Run{okRun("run_0001", 1, 1)}, 1.5); err == nil {
		t.Error("level 1.5 accepted")
	}
}

func TestExportWritesBothFiles(t *testing.T) {
	res, err := Aggregate([]Run{okRun("run_0001", 30, 10), okRun("run_0002", 31, 10)}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "base", Dir)
	jp, cp, err := Export(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if jp != filepath.Join(dir, "profile_export_aiperf_aggregate.json") || cp != filepath.Join(dir, "profile_export_aiperf_aggregate.csv") {
		t.Errorf("paths %s %s", jp, cp)
	}
	b, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if doc["schema_version"] != "1.0" {
		t.Errorf("schema_version %v", doc["schema_version"])
	}
	c, err := os.ReadFile(cp)
	if err != nil || !strings.HasPrefix(string(c), "metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit\r\n") {
		t.Errorf("CSV %q %v", c, err)
	}
	// A file where the directory should be is reported, not a panic.
	blocked := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Export(filepath.Join(blocked, Dir), res); err == nil {
		t.Error("Export into a path under a file succeeded")
	}
}

func TestParseSummaryKeepsOrderAndSkipsNonMetrics(t *testing.T) {
	s, err := ParseSummary([]byte(`{"schema_version":"1.5","zeta":{"unit":"ms","avg":1,"p99":null,"count":3},
		"input_config":{"a":1},"alpha":{"unit":"x","avg":2.5},"was_cancelled":true,"run_info":{"trial":0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Metrics) != 2 || s.Metrics[0].Name != "zeta" || s.Metrics[1].Name != "alpha" || !s.WasCancelled {
		t.Fatalf("%+v", s)
	}
	if _, has := s.Metrics[0].Stats["p99"]; has {
		t.Error("null p99 kept")
	}
	if _, has := s.Metrics[0].Stats["count"]; has {
		t.Error("count is not an aggregated statistic")
	}
	for _, bad := range []string{`[]`, `{"m":{"unit":5}}`, `{"m":{"unit":"ms","avg":"x"}}`, `{"m":`} {
		if _, err := ParseSummary([]byte(bad)); err == nil {
			t.Errorf("ParseSummary(%s) accepted", bad)
		}
	}
	if _, err := ReadSummary(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestRunLayout(t *testing.T) {
	if RunLabel(0) != "run_0001" || RunLabel(9) != "run_0010" {
		t.Errorf("labels %s %s", RunLabel(0), RunLabel(9))
	}
	if got := RunPath("/a", 1); got != filepath.Join("/a", "profile_runs", "run_0002") {
		t.Error(got)
	}
	if got := Path("/a"); got != filepath.Join("/a", "aggregate") {
		t.Error(got)
	}
}
