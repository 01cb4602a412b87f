package compare

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

var testSpecs = map[string]sdk.MetricSpec{
	"time_to_first_token":              {Tag: "time_to_first_token", Header: "Time to First Token", DisplayOrder: 100},
	"output_token_throughput_per_user": {Tag: "output_token_throughput_per_user", Header: "Output Token Throughput Per User", Flags: sdk.FlagLargerIsBetter, DisplayOrder: 500},
	"output_sequence_length":           {Tag: "output_sequence_length", Header: "Output Sequence Length", Flags: sdk.FlagLargerIsBetter, DisplayOrder: 600},
	"request_throughput":               {Tag: "request_throughput", Header: "Request Throughput", Flags: sdk.FlagLargerIsBetter, DisplayOrder: 900},
	"output_token_count":               {Tag: "output_token_count", Header: "Output Token Count", Flags: sdk.FlagLargerIsBetter | sdk.FlagNoConsole},
}

// synthRun is a run of n records: TTFT around ttft ms, a per-user
// throughput around tps, OSL exactly 24, and a run-level throughput.
func synthRun(dir string, n int, ttft, tps, reqTput float64, seed uint64) *Run {
	rng := rand.New(rand.NewPCG(seed, 0))
	r := &Run{Dir: dir, Model: "m", EndpointType: "chat", Streaming: true, Requests: n,
		Values: map[string][]float64{}, Units: map[string]string{
			"time_to_first_token": "ms", "output_token_throughput_per_user": "tokens/sec/user", "output_sequence_length": "tokens",
			"custom_metric": "ms"}}
	for range n {
		r.Values["time_to_first_token"] = append(r.Values["time_to_first_token"], ttft+rng.NormFloat64())
		r.Values["output_token_throughput_per_user"] = append(r.Values["output_token_throughput_per_user"], tps+rng.NormFloat64())
		r.Values["output_sequence_length"] = append(r.Values["output_sequence_length"], 24)
		r.Values["custom_metric"] = append(r.Values["custom_metric"], 5+rng.NormFloat64())
	}
	full := map[string]float64{"avg": 1, "p50": 1, "p99": 1}
	r.Summary = map[string]Stat{
		"time_to_first_token":              {Unit: "ms", Stats: full},
		"output_token_throughput_per_user": {Unit: "tokens/sec/user", Stats: full},
		"output_sequence_length":           {Unit: "tokens", Stats: full},
		"request_throughput":               {Unit: "requests/sec", Stats: map[string]float64{"avg": reqTput}},
		"min_request_timestamp":            {Unit: "ns", Stats: map[string]float64{"avg": float64(seed)}},
		"good_request_count":               {Unit: "requests", Stats: map[string]float64{"avg": float64(n)}},
	}
	return r
}

func stat(t *testing.T, res *Result, tag, name string) StatDiff {
	t.Helper()
	md := findMetric(res, tag)
	if md == nil {
		t.Fatalf("metric %s not compared; have %v", tag, tags(res))
	}
	for _, s := range md.Stats {
		if s.Stat == name {
			return s
		}
	}
	t.Fatalf("%s has no %s", tag, name)
	return StatDiff{}
}

func TestCompareDirectionsIntervalsAndKinds(t *testing.T) {
	base := synthRun("base", 200, 20, 100, 50, 1)
	cand := synthRun("cand", 200, 40, 110, 45, 2)
	res, err := Compare(base, cand, Options{Specs: testSpecs, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ttft := stat(t, res, "time_to_first_token", "avg")
	if math.Abs(ttft.Diff-20) > 0.5 || ttft.Method != MethodWelch || !ttft.Significant || ttft.Verdict != VerdictWorse ||
		*ttft.CILow > 20 || *ttft.CIHigh < 20 || math.Abs(*ttft.DiffPct-100) > 3 {
		t.Errorf("TTFT avg %+v: want +20 ms (+100%%), significant, worse, interval holding 20", ttft)
	}
	p50 := stat(t, res, "time_to_first_token", "p50")
	if p50.Method != MethodBootstrap || p50.Verdict != VerdictWorse || *p50.CILow > 20 || *p50.CIHigh < 20 {
		t.Errorf("TTFT p50 %+v: want a bootstrap interval holding 20", p50)
	}
	// 200 records: 2 above p99, fewer than MinTail.
	if p99 := stat(t, res, "time_to_first_token", "p99"); p99.CILow != nil || p99.Verdict != VerdictNoCI || !strings.Contains(p99.Note, "need 500") {
		t.Errorf("TTFT p99 %+v: want no interval, needing 500 records", p99)
	}
	if p90 := stat(t, res, "time_to_first_token", "p90"); p90.CILow == nil {
		t.Errorf("TTFT p90 %+v: 20 records above it, want an interval", p90)
	}
	if tps := stat(t, res, "output_token_throughput_per_user", "avg"); tps.Verdict != VerdictBetter {
		t.Errorf("per-user throughput up by 10: verdict %q, want better (larger is better)", tps.Verdict)
	}
	osl := stat(t, res, "output_sequence_length", "avg")
	if osl.Diff != 0 || osl.Significant || osl.Verdict != VerdictUnchanged || *osl.CILow != 0 || *osl.CIHigh != 0 {
		t.Errorf("OSL exactly 24 in both: %+v, want [0, 0], not significant", osl)
	}
	if c := stat(t, res, "custom_metric", "avg"); c.Verdict != VerdictUnchanged && c.Verdict != VerdictChanged {
		t.Errorf("unknown metric verdict %q", c.Verdict)
	}
	if md := findMetric(res, "custom_metric"); md.LargerIsBetter != nil || md.Header != "custom_metric" || !md.Console {
		t.Errorf("unknown metric %+v: want no direction, shown under its tag", md)
	}
	rt := findMetric(res, "request_throughput")
	if rt == nil || rt.Kind != KindRunLevel || len(rt.Stats) != 1 || rt.Stats[0].Diff != -5 || rt.Stats[0].CILow != nil || rt.Stats[0].Verdict != VerdictNoCI {
		t.Fatalf("request_throughput %+v: want a run-level -5 with no interval", rt)
	}
	if md := findMetric(res, "good_request_count"); md == nil || md.Kind != KindRunLevel {
		t.Errorf("good_request_count: %+v, want run-level (the summary has one count)", md)
	}
	if findMetric(res, "min_request_timestamp") != nil {
		t.Error("timestamps compared")
	}
	var order []string
	for _, m := range res.Metrics {
		order = append(order, m.Tag)
	}
	want := "time_to_first_token output_token_throughput_per_user output_sequence_length request_throughput custom_metric good_request_count"
	if strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s (display order, then tag)", order, want)
	}
	again, _ := Compare(base, cand, Options{Specs: testSpecs, Seed: 3})
	if *stat(t, again, "time_to_first_token", "p50").CILow != *p50.CILow {
		t.Error("same seed, different bootstrap interval")
	}
}

func TestCompareSameDistributionIsNotSignificant(t *testing.T) {
	res, err := Compare(synthRun("a", 300, 20, 100, 50, 5), synthRun("b", 300, 20, 100, 50, 6), Options{Specs: testSpecs})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range findMetric(res, "time_to_first_token").Stats {
		if s.Significant {
			t.Errorf("TTFT %s significant for two samples of one distribution: %+v", s.Stat, s)
		}
	}
}

func TestCompareRefusesMismatchedRuns(t *testing.T) {
	base := synthRun("runs/base", 10, 20, 100, 50, 1)
	cand := synthRun("runs/cand", 10, 20, 100, 50, 1)
	cand.EndpointType = "completions"
	_, err := Compare(base, cand, Options{})
	if err == nil || !strings.Contains(err.Error(), `runs/base is "chat"`) || !strings.Contains(err.Error(), `runs/cand is "completions"`) {
		t.Errorf("endpoint mismatch: %v", err)
	}
	cand.EndpointType, cand.Streaming = "chat", false
	if _, err := Compare(base, cand, Options{}); err == nil || !strings.Contains(err.Error(), "streaming=false") || !strings.Contains(err.Error(), "runs/cand") {
		t.Errorf("streaming mismatch: %v", err)
	}
	cand.Streaming, cand.Model = true, "other"
	res, err := Compare(base, cand, Options{})
	if err != nil || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], `"other"`) {
		t.Errorf("different models are compared with a note: %v %v", err, res)
	}
	for _, level := range []float64{1, -1, 1.5} {
		if _, err := Compare(base, base, Options{ConfidenceLevel: level}); err == nil || !strings.Contains(err.Error(), "--confidence-level") {
			t.Errorf("level %v: %v", level, err)
		}
	}
}

func TestParseTolerance(t *testing.T) {
	tests := []struct {
		in       string
		want     Tolerance
		errorHas string
	}{
		{in: "time_to_first_token:p99:+5%", want: Tolerance{Metric: "time_to_first_token", Stat: "p99", Sign: 1, Amount: 5, Relative: true}},
		{in: "output_token_throughput:avg:-3.5%", want: Tolerance{Metric: "output_token_throughput", Stat: "avg", Sign: -1, Amount: 3.5, Relative: true}},
		{in: "inter_token_latency:P50:2", want: Tolerance{Metric: "inter_token_latency", Stat: "p50", Amount: 2}},
		{in: "x:avg:0%", want: Tolerance{Metric: "x", Stat: "avg", Amount: 0, Relative: true}},
		{in: "time_to_first_token:p99", errorHas: "want metric:stat:value"},
		{in: ":avg:5%", errorHas: "metric tag is empty"},
		{in: "ttft:p95:5%", errorHas: `stat "p95"`},
		{in: "ttft:avg:five", errorHas: "not a number"},
		{in: "ttft:avg:+-5", errorHas: "not a number"},
		{in: "ttft:avg:NaN%", errorHas: "not a number"},
		{in: "ttft:avg:", errorHas: "not a number"},
	}
	for _, tc := range tests {
		got, err := ParseTolerance(tc.in)
		if tc.errorHas != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errorHas) || !strings.Contains(err.Error(), tc.in) {
				t.Errorf("%q: error %v, want one naming it and saying %q", tc.in, err, tc.errorHas)
			}
			continue
		}
		tc.want.Raw = tc.in
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestTolerancesGateSignificantRegressions(t *testing.T) {
	base := synthRun("base", 200, 20, 100, 50, 1)
	cand := synthRun("cand", 200, 40, 100, 45, 2)
	tol := func(specs ...string) []Tolerance {
		var out []Tolerance
		for _, s := range specs {
			tt, err := ParseTolerance(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tt)
		}
		return out
	}
	tests := []struct {
		name        string
		tolerances  []string
		regressions []string // "tag stat" of each regression
		errorHas    string
	}{
		{name: "ttft doubled beyond +5%", tolerances: []string{"time_to_first_token:avg:+5%"}, regressions: []string{"time_to_first_token avg"}},
		{name: "unsigned works the same", tolerances: []string{"time_to_first_token:p50:5%"}, regressions: []string{"time_to_first_token p50"}},
		{name: "within an absolute tolerance", tolerances: []string{"time_to_first_token:avg:+25"}},
		{name: "within a relative tolerance", tolerances: []string{"time_to_first_token:avg:+150%"}},
		{name: "not significant is no regression", tolerances: []string{"output_token_throughput_per_user:avg:0%"}},
		{name: "run-level judged on the difference", tolerances: []string{"request_throughput:avg:-5%"}, regressions: []string{"request_throughput avg"}},
		{name: "run-level within tolerance", tolerances: []string{"request_throughput:avg:-15%"}},
		{name: "wrong sign for a latency", tolerances: []string{"time_to_first_token:avg:-5%"}, errorHas: "smaller is better, so a regression is an increase: write +5%"},
		{name: "wrong sign for a throughput", tolerances: []string{"request_throughput:avg:+5%"}, errorHas: "write -5%"},
		{name: "unknown direction needs a sign", tolerances: []string{"custom_metric:avg:5%"}, errorHas: "sign the value"},
		{name: "unknown direction with a sign", tolerances: []string{"custom_metric:avg:+0%"}},
		{name: "metric not in the runs", tolerances: []string{"inter_token_latency:avg:+5%"}, errorHas: "not in both runs; compared: custom_metric"},
		{name: "percentile of a run-level metric", tolerances: []string{"request_throughput:p99:-5%"}, errorHas: "use request_throughput:avg"},
		{name: "duplicate", tolerances: []string{"time_to_first_token:avg:+5%", "time_to_first_token:avg:+9%"}, errorHas: "already has"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Compare(base, cand, Options{Specs: testSpecs, Resamples: 500, Tolerances: tol(tc.tolerances...)})
			if tc.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errorHas) {
					t.Fatalf("error %v, want %q", err, tc.errorHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Metrics {
				for _, s := range m.Stats {
					if s.Regression {
						got = append(got, m.Tag+" "+s.Stat)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.regressions, ",") || len(res.Regressions) != len(tc.regressions) {
				t.Errorf("regressions %v (%q), want %v", got, res.Regressions, tc.regressions)
			}
		})
	}
	res, err := Compare(base, cand, Options{Specs: testSpecs, Tolerances: tol("time_to_first_token:avg:+5%", "request_throughput:avg:-5%")})
	if err != nil || len(res.Regressions) != 2 {
		t.Fatalf("%v %v", err, res)
	}
	if !strings.Contains(res.Regressions[0], "time_to_first_token avg: +19.9") || !strings.Contains(res.Regressions[0], "95% CI [") ||
		!strings.Contains(res.Regressions[0], "beyond tolerance +5%") || !strings.Contains(res.Regressions[1], "no interval") {
		t.Errorf("regression lines %q", res.Regressions)
	}
}

func writeRunFiles(t *testing.T, summary, records string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "profile_export_aiperf.json"), []byte(summary), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profile_export.jsonl"), []byte(records), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const testSummary = `{"time_to_first_token": {"unit": "ms", "avg": 21, "p50": 21},
 "request_throughput": {"unit": "requests/sec", "avg": 12.5},
 "input_config": {"models": {"items": [{"name": "m1"}]}, "endpoint": {"type": "chat", "streaming": true}}}`

func TestReadRunKeepsSuccessfulProfilingRecords(t *testing.T) {
	dir := writeRunFiles(t, testSummary, strings.Join([]string{
		`{"metadata":{"benchmark_phase":"warmup","phase_kind":"warmup"},"metrics":{"time_to_first_token":{"value":99,"unit":"ms"}},"error":null}`,
		`{"metadata":{"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":20,"unit":"ms"},"inter_chunk_latency":{"value":[1,2],"unit":"ms"}},"error":null}`,
		``,
		`{"metadata":{"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":22,"unit":"ms"}}}`,
		`{"metadata":{"benchmark_phase":"profiling"},"metrics":{"error_isl":{"value":5,"unit":"tokens"}},"error":{"code":500,"type":"Internal Server Error","message":"x"}}`,
	}, "\n"))
	r, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 2 || len(r.Values["time_to_first_token"]) != 2 || r.Values["time_to_first_token"][1] != 22 || r.Units["time_to_first_token"] != "ms" {
		t.Errorf("records %d, TTFT %v: want the two successful profiling records", r.Requests, r.Values["time_to_first_token"])
	}
	if _, ok := r.Values["inter_chunk_latency"]; ok {
		t.Error("list metric kept")
	}
	if _, ok := r.Values["error_isl"]; ok {
		t.Error("failed record kept")
	}
	if r.Model != "m1" || r.EndpointType != "chat" || !r.Streaming || r.Summary["request_throughput"].Stats["avg"] != 12.5 {
		t.Errorf("summary read as %+v", r)
	}
}

func TestReadRunErrorsNameTheFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := ReadRun(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: %v", err)
	}
	onlySummary := t.TempDir()
	os.WriteFile(filepath.Join(onlySummary, "profile_export_aiperf.json"), []byte(testSummary), 0o644)
	if _, err := ReadRun(onlySummary); err == nil || !strings.Contains(err.Error(), "lacks profile_export.jsonl") {
		t.Errorf("missing records: %v", err)
	}
	bad := writeRunFiles(t, testSummary, "{\"metadata\":{}}\n{not json\n")
	if _, err := ReadRun(bad); err == nil || !strings.Contains(err.Error(), "profile_export.jsonl:2") {
		t.Errorf("bad line: %v", err)
	}
	units := writeRunFiles(t, testSummary, `{"metrics":{"time_to_first_token":{"value":1,"unit":"ms"}}}`+"\n"+`{"metrics":{"time_to_first_token":{"value":1,"unit":"s"}}}`)
	if _, err := ReadRun(units); err == nil || !strings.Contains(err.Error(), "profile_export.jsonl:2: metric time_to_first_token") {
		t.Errorf("mixed units: %v", err)
	}
	noConfig := writeRunFiles(t, `{"time_to_first_token": {"unit": "ms", "avg": 1}}`, "")
	if _, err := ReadRun(noConfig); err == nil || !strings.Contains(err.Error(), "no input_config") {
		t.Errorf("no input_config: %v", err)
	}
	badJSON := writeRunFiles(t, `{`, "")
	if _, err := ReadRun(badJSON); err == nil || !strings.Contains(err.Error(), "profile_export_aiperf.json") {
		t.Errorf("bad summary: %v", err)
	}
}
