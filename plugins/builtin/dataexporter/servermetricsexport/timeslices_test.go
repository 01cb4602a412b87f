package servermetricsexport

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func f(v float64) *float64 { return &v }

// slicedResults: results() with --slice-duration timeslices on each series.
func slicedResults() *sdk.ServerMetricsResults {
	sm := results("json", "csv")
	ms := sm.Endpoints[0].Metrics
	c := &ms[0].Series[0]
	c.Counter.RateAvg, c.Counter.RateMin, c.Counter.RateMax, c.Counter.RateStd = f(16.666666666666668), f(15), f(20), f(2.886751345948129)
	c.Timeslices = []sdk.ServerMetricTimeslice{{StartNs: 1, EndNs: 1e9 + 1, Total: 15, Rate: 15}, {StartNs: 1e9 + 1, EndNs: 1.5e9, Partial: true, Total: 15, Rate: 30}}
	h := &ms[1].Series[0]
	h.Timeslices = []sdk.ServerMetricTimeslice{{StartNs: 1, EndNs: 1e9 + 1, Count: 4, Sum: 2, Avg: 0.5,
		Buckets: []sdk.HistogramBucket{{Le: "0.1", Count: 1}, {Le: "+Inf", Count: 4}}}}
	sm.Endpoints[0].Metrics = append(ms, sdk.ServerMetric{Name: "vllm:num_requests_running", Type: sdk.PromGauge, Description: "Running.",
		Series: []sdk.ServerMetricSeries{{Gauge: &sdk.GaugeStats{Avg: 2.5, Max: 5}, Timeslices: []sdk.ServerMetricTimeslice{
			{StartNs: 1, EndNs: 1e9 + 1, Avg: 3, Min: 2, Max: 4}}}}})
	sm.Endpoints[0].ProfilingInfo = sdk.ServerMetricsEndpointInfo{TotalFetches: 3, FirstFetchNs: 1e18 + 1, LastFetchNs: 1e18 + 3e9}
	return sm
}

// Timeslices render with AIPerf's keys and key order (is_complete only on
// a partial slice), counters gain rate_* stats, the CSV fills its rate_*
// columns, and the per-phase file carries the same timeslices.
func TestRenderTimeslices(t *testing.T) {
	ec := &sdk.ExportContext{ServerMetrics: slicedResults(), BenchmarkID: "abc", AIPerfVersion: "0.13.0"}
	b, err := RenderJSON(ec)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"stats":{"total":12.0,"rate":6.0,"rate_avg":16.666666666666668,"rate_min":15.0,"rate_max":20.0,"rate_std":2.886751345948129},"timeslices":[{"start_ns":1,"end_ns":1000000001,"total":15.0,"rate":15.0},{"start_ns":1000000001,"end_ns":1500000000,"is_complete":false,"total":15.0,"rate":30.0}]`,
		`"buckets":{"0.1":1,"+Inf":8},"timeslices":[{"start_ns":1,"end_ns":1000000001,"count":4,"sum":2.0,"avg":0.5,"buckets":{"0.1":1,"+Inf":4}}]`,
		`"timeslices":[{"start_ns":1,"end_ns":1000000001,"avg":3.0,"min":2.0,"max":4.0}]`,
	} {
		if !strings.Contains(compact.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, compact.String())
		}
	}
	csv := string(RenderCSV(ec))
	if want := "h:8000,counter,vllm:request_success,requests,12.0000,6.0000,16.6667,15.0000,20.0000,2.8868,m,Done.\r\n"; !strings.Contains(csv, want) {
		t.Errorf("CSV lacks %q:\n%s", want, csv)
	}
	prof := sdk.PhaseInfo{Name: sdk.PhaseProfiling, Kind: sdk.PhaseProfiling, Index: 1, StartNs: 1e18, EndNs: 1e18 + 2e9}
	dir := t.TempDir()
	ec.ArtifactDir, ec.Phase = dir, &prof
	if _, err := New().ExportPhase(t.Context(), ec); err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(filepath.Join(dir, "server_metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	compact.Reset()
	if err := json.Compact(&compact, pb); err != nil {
		t.Fatal(err)
	}
	if want := `"timeslices":[{"end_ns":1000000001,"rate":15.0,"start_ns":1,"total":15.0},{"end_ns":1500000000,"is_complete":false,"rate":30.0,"start_ns":1000000001,"total":15.0}]`; !strings.Contains(compact.String(), want) {
		t.Errorf("phase file lacks %s:\n%s", want, compact.String())
	}
}

func keysOf(v any) []string {
	mm, _ := v.(map[string]any)
	return slices.Sorted(maps.Keys(mm))
}

// The keys we write per type match AIPerf 0.13's --slice-duration output
// (testdata/aiperf013/k_server_metrics_slices).
func TestTimesliceKeysMatchAIPerfFixture(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "aiperf013", "k_server_metrics_slices", "server_metrics_export.trimmed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	b, err := RenderJSON(&sdk.ExportContext{ServerMetrics: slicedResults(), BenchmarkID: "abc", AIPerfVersion: "0.13.0"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	series := func(doc map[string]any, name string) map[string]any {
		m, _ := doc["metrics"].(map[string]any)[name].(map[string]any)
		s, _ := m["series"].([]any)
		if len(s) == 0 {
			t.Fatalf("%s has no series", name)
		}
		return s[0].(map[string]any)
	}
	for _, name := range []string{"vllm:request_success", "vllm:e2e_request_latency_seconds", "vllm:num_requests_running"} {
		w, g := series(want, name), series(got, name)
		// (slicedResults' histogram has no estimates: only the counter's stats gain keys.)
		if name == "vllm:request_success" && !slices.Equal(keysOf(w["stats"]), keysOf(g["stats"])) {
			t.Errorf("%s stats keys = %v, want %v", name, keysOf(g["stats"]), keysOf(w["stats"]))
		}
		wts, gts := w["timeslices"].([]any), g["timeslices"].([]any)
		if !slices.Equal(keysOf(wts[0]), keysOf(gts[0])) {
			t.Errorf("%s timeslice keys = %v, want %v", name, keysOf(gts[0]), keysOf(wts[0]))
		}
		if name == "vllm:request_success" && !slices.Equal(keysOf(wts[len(wts)-1]), keysOf(gts[len(gts)-1])) {
			t.Errorf("%s partial timeslice keys = %v, want %v", name, keysOf(gts[len(gts)-1]), keysOf(wts[len(wts)-1]))
		}
	}
}
