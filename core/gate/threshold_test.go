package gate

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestParseThresholds(t *testing.T) {
	tests := []struct {
		items []string
		want  []Threshold
	}{
		{[]string{"time_to_first_token:p99<200"}, []Threshold{{"time_to_first_token", "p99", Less, 200}}},
		{[]string{"request_error_rate:avg<=0.5"}, []Threshold{{"request_error_rate", "avg", LessEq, 0.5}}},
		{[]string{"output_token_throughput:avg>=1000.5"}, []Threshold{{"output_token_throughput", "avg", GreaterEq, 1000.5}}},
		{[]string{"request_count:avg>-1"}, []Threshold{{"request_count", "avg", Greater, -1}}},
		// Several in one value, like --goodput, and repeated values.
		{[]string{"inter_token_latency:p50<10  request_latency:max>1e3", "request_count:count>=8"}, []Threshold{
			{"inter_token_latency", "p50", Less, 10}, {"request_latency", "max", Greater, 1000}, {"request_count", "count", GreaterEq, 8}}},
		// The same metric and statistic with two operators is a range.
		{[]string{"time_to_first_token:p50>1 time_to_first_token:p50<5"}, []Threshold{
			{"time_to_first_token", "p50", Greater, 1}, {"time_to_first_token", "p50", Less, 5}}},
		{[]string{"   "}, nil},
	}
	for _, tc := range tests {
		got, err := ParseThresholds(tc.items)
		if err != nil {
			t.Errorf("%q: %v", tc.items, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %v, want %v", tc.items, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: [%d] = %+v, want %+v", tc.items, i, got[i], tc.want[i])
			}
		}
	}
}

func TestParseThresholdsRejectsBadSyntax(t *testing.T) {
	tests := []struct {
		item, token, why string
	}{
		{"time_to_first_token<200", "time_to_first_token<200", "no ':' between the metric and its statistic"},
		{":p99<200", ":p99<200", "no metric before ':'"},
		{"time_to_first_token:<200", "time_to_first_token:<200", "no statistic after"},
		{"time_to_first_token:p98<200", "time_to_first_token:p98<200", `unknown statistic "p98"; choose one of avg, min, max, p1, p5`},
		{"time_to_first_token:p99", "time_to_first_token:p99", "no comparison"},
		{"time_to_first_token:p99=200", "time_to_first_token:p99=200", "no comparison"},
		{"time_to_first_token:p99<", "time_to_first_token:p99<", `no value after "<"`},
		{"time_to_first_token:p99<abc", "time_to_first_token:p99<abc", `value "abc" is not a finite number`},
		{"time_to_first_token:p99<NaN", "time_to_first_token:p99<NaN", `value "NaN" is not a finite number`},
		{"time_to_first_token:p99<=inf", "time_to_first_token:p99<=inf", `value "inf" is not a finite number`},
		{"time_to_first_token:p99<=<5", "time_to_first_token:p99<=<5", `value "<5" is not a finite number`},
		// The good expression before the bad one does not hide it.
		{"request_latency:p50<1 ttft:avg<", "ttft:avg<", "no value after"},
		{"request_latency:p50<1 request_latency:p50<2", "request_latency:p50<2", "is given more than once"},
	}
	for _, tc := range tests {
		_, err := ParseThresholds([]string{tc.item})
		if err == nil {
			t.Errorf("%q: no error", tc.item)
			continue
		}
		if !strings.Contains(err.Error(), `"`+tc.token+`"`) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%q: error %q does not quote %q and say %q", tc.item, err, tc.token, tc.why)
		}
	}
}

func TestThresholdStringRoundTrips(t *testing.T) {
	for _, s := range []string{"time_to_first_token:p99<200", "request_error_rate:avg<=0.01", "goodput:avg>=12.5", "request_count:avg>-3"} {
		ts, err := ParseThresholds([]string{s})
		if err != nil || len(ts) != 1 || ts[0].String() != s {
			t.Errorf("%q: parsed %v (%v), String %q", s, ts, err, ts)
		}
	}
}

// catalog builds a realistic chat catalog (AIPerf's record metrics plus the
// core's run-level and sweep metrics).
func catalog(t *testing.T, info sdk.RunInfo) *metrics.Catalog {
	t.Helper()
	cat, err := metrics.NewCatalog([]metrics.Declared{{Plugin: "record_processor.metric_record", Specs: testfixtures.RecordSpecs()}}, info)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestCheckAgainstTheCatalog(t *testing.T) {
	streaming := catalog(t, testfixtures.StreamingRun())
	plain := catalog(t, sdk.RunInfo{Endpoint: testfixtures.ChatEndpointMetadata})
	ok := []string{
		"time_to_first_token:p99<200", "request_latency:std<5", "inter_chunk_latency:count>10", "input_sequence_length:sum>0",
		"request_error_rate:avg<1", "error_request_count:avg<3", "request_throughput:avg>10",
		"adj_time_to_first_token:p50<20", "adj_request_latency:count>=5", "effective_concurrency:p90<=4",
		"credit_to_start_latency:p99<5",
	}
	for _, s := range ok {
		ts, err := ParseThresholds([]string{s})
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(ts, streaming); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := []struct {
		expr string
		cat  *metrics.Catalog
		want string
	}{
		{"no_such_metric:avg<1", streaming, `--threshold "no_such_metric:avg<1": unknown metric "no_such_metric"; the metrics of this run are: active_decode_throughput, `},
		{"no_such_metric:avg<1", streaming, `adj_request_latency, adj_time_to_first_token, benchmark_duration, `},
		{"request_error_rate:p99<1", streaming, `--threshold "request_error_rate:p99<1": request_error_rate has no "p99" statistic; it has: avg`},
		{"request_count:count>1", streaming, `request_count has no "count" statistic; it has: avg`},
		{"effective_concurrency:count>1", streaming, `effective_concurrency has no "count" statistic; it has: avg, min, max, p50, p90, p95, p99, std`},
		{"adj_time_to_first_token:avg<1", streaming, `adj_time_to_first_token has no "avg" statistic; it has: min, p1`},
		// Only metrics whose percentiles include failed requests get adj_*.
		{"adj_output_sequence_length:p50<1", streaming, `unknown metric "adj_output_sequence_length"`},
		{"time_to_first_token:p99<200", plain, "time_to_first_token does not apply to this run"},
		{"adj_time_to_first_token:p99<200", plain, "time_to_first_token does not apply to this run"},
		// good_request_count needs --goodput SLOs.
		{"good_request_count:avg>1", streaming, "good_request_count does not apply to this run"},
	}
	for _, tc := range bad {
		ts, err := ParseThresholds([]string{tc.expr})
		if err != nil {
			t.Fatal(err)
		}
		err = Check(ts, tc.cat)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.expr, err, tc.want)
		}
	}
	// Every problem is reported, one line each.
	ts, _ := ParseThresholds([]string{"nope:avg<1 request_count:p50<1"})
	if err := Check(ts, streaming); err == nil || strings.Count(err.Error(), "--threshold") != 2 {
		t.Errorf("joined errors: %v", err)
	}
}

// loadResults reads an AIPerf 0.13 profile_export_aiperf.json into results.
func loadResults(t *testing.T, path string) *sdk.Results {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	res := &sdk.Results{}
	for tag, v := range raw {
		var m sdk.MetricResult
		if json.Unmarshal(v, &m) != nil || m.Unit == "" {
			continue // not a metric (run_info, error_summary, ...)
		}
		m.Tag = tag
		res.Metrics = append(res.Metrics, m)
	}
	if err := json.Unmarshal(raw["error_summary"], &res.ErrorSummary); err != nil && raw["error_summary"] != nil {
		t.Fatal(err)
	}
	return res
}

func TestEvaluateOnAIPerfExports(t *testing.T) {
	// Values from AIPerf 0.13's own exports (testdata/aiperf013): a clean
	// streaming chat run, and the error-only keys of a run where 3 of 8
	// requests failed.
	clean := loadResults(t, filepath.Join("..", "..", "testdata", "aiperf013", "a_chat_stream", "profile_export_aiperf.json"))
	errs := loadResults(t, filepath.Join("..", "..", "testdata", "aiperf013", "h_chat_errors_raw", "profile_export_aiperf.error_only_keys.json"))
	inf := math.Inf(1)
	tests := []struct {
		res        *sdk.Results
		expr       string
		measured   float64
		measurable bool
		passed     bool
		note       string
	}{
		{clean, "time_to_first_token:p99<30.5", 30.463932459999995, true, true, ""},
		{clean, "time_to_first_token:p99<30.4", 30.463932459999995, true, false, ""},
		{clean, "request_latency:max<=60.333603999999994", 60.333603999999994, true, true, ""},
		{clean, "request_latency:max<60.333603999999994", 60.333603999999994, true, false, ""},
		{clean, "output_token_throughput:avg>=542.84", 542.8412153142699, true, true, ""},
		{clean, "request_count:avg>8", 8, true, false, ""},
		{clean, "inter_chunk_latency:count>=120", 120, true, true, ""},
		{clean, "request_error_rate:avg<0.01", 0, true, true, ""},
		{clean, "error_request_count:avg<1", 0, true, true, "no request failed"},
		{clean, "adj_time_to_first_token:p99<30.5", 30.463932459999995, true, true, "equals time_to_first_token"},
		{clean, "reasoning_token_count:avg<1", 0, false, false, "no value"},
		{errs, "error_request_count:avg<3", 3, true, false, ""},
		{errs, "error_request_count:avg<=3", 3, true, true, ""},
		{errs, "adj_time_to_first_token:p50<=22.538625", 22.538625, true, true, ""},
		// p75 reaches a failed request: +inf, as AIPerf leaves it out.
		{errs, "adj_time_to_first_token:p75<1000", inf, true, false, "+inf"},
		{errs, "adj_time_to_first_token:p99>0", inf, true, true, "+inf"},
		{errs, "adj_request_latency:count>=11", 8, true, false, ""},
	}
	for _, tc := range tests {
		ts, err := ParseThresholds([]string{tc.expr})
		if err != nil {
			t.Fatal(err)
		}
		o := Evaluate(ts, tc.res)[0]
		if o.Measurable != tc.measurable || o.Passed != tc.passed || (tc.measurable && o.Measured != tc.measured) ||
			!strings.Contains(o.Note, tc.note) {
			t.Errorf("%s: %+v, want measured %v (measurable %v), passed %v, note %q", tc.expr, o, tc.measured, tc.measurable, tc.passed, tc.note)
		}
	}
	if o := Evaluate([]Threshold{{"time_to_first_token", "p99", Less, 1}}, nil)[0]; o.Passed || o.Measurable {
		t.Errorf("no results: %+v", o)
	}
}

func TestAbortMarksItsThresholdFailed(t *testing.T) {
	ts, _ := ParseThresholds([]string{"request_error_rate:avg<50 request_latency:p50<100"})
	outs := []Outcome{{Threshold: ts[0], Measured: 40, Measurable: true, Passed: true}, {Threshold: ts[1], Measured: 3, Measurable: true, Passed: true}}
	a := &Abort{Flag: "--abort-on-threshold-breach", Threshold: &ts[0], Errors: 6, Records: 10}
	a.Mark(outs)
	if outs[0].Passed || !strings.Contains(outs[0].Note, "breached during the run") || !outs[1].Passed {
		t.Errorf("after Mark: %+v", outs)
	}
	(*Abort)(nil).Mark(outs) // no abort: nothing to mark
}
