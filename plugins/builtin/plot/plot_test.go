package plot

import (
	"bytes"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"gonum.org/v1/plot/plotter"
)

// Rolling quantiles interpolate linearly, as pandas' default: the p95 of
// 1..10 is 9.55, the p50 of 1..4 is 2.5.
func TestQuantileMatchesPandasLinear(t *testing.T) {
	pts := func(v ...float64) plotter.XYs {
		out := make(plotter.XYs, len(v))
		for i, y := range v {
			out[i].Y = y
		}
		return out
	}
	for _, tc := range []struct {
		v    plotter.XYs
		q    float64
		want float64
	}{
		{pts(10, 9, 8, 7, 6, 5, 4, 3, 2, 1), 0.95, 9.55},
		{pts(4, 1, 3, 2), 0.50, 2.5},
		{pts(7), 0.99, 7},
	} {
		if got := quantile(tc.v, tc.q); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("quantile(%v, %v) = %v, want %v", tc.v, tc.q, got, tc.want)
		}
	}
}

// AIPerf's calculate_throughput_events: 20 tokens from first token
// (start+10 ms) to end (start+110 ms) is 200 tokens/s.
func TestThroughputEventsSpreadTokensFromFirstToken(t *testing.T) {
	run := &sdk.PlotRun{Requests: []sdk.PlotRequest{
		{StartNs: 1_000_000_000, EndNs: 1_110_000_000, Metrics: map[string]float64{metricTTFT: 10, metricOSL: 20}},
		{StartNs: 1_000_000_000, EndNs: 1_100_000_000, Error: true, Metrics: map[string]float64{metricOSL: 5}},
		{StartNs: 1_050_000_000, EndNs: 1_050_000_000, Metrics: map[string]float64{metricOSL: 5}}, // zero duration
	}}
	ev := throughputEvents(run)
	want := []rateEvent{{1_010_000_000, 200}, {1_110_000_000, -200}}
	if len(ev) != len(want) {
		t.Fatalf("events %v, want %v", ev, want)
	}
	for i := range want {
		if ev[i].ns != want[i].ns || ev[i].delta < want[i].delta-1e-9 || ev[i].delta > want[i].delta+1e-9 {
			t.Errorf("event %d = %+v, want %+v", i, ev[i], want[i])
		}
	}
}

func TestAppliesOnlyWithData(t *testing.T) {
	noTTFT := &sdk.PlotRun{Requests: []sdk.PlotRequest{{StartNs: 1, EndNs: 2, Metrics: map[string]float64{metricLatency: 3}}}}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{TTFTOverTime, false}, {TTFTDistribution, false}, {ThroughputOverTime, false}, {ISLvsOSL, false},
		{LatencyOverTime, true}, {LatencyDistribution, true},
	} {
		if got := New(tc.name).Applies(noTTFT); got != tc.want {
			t.Errorf("%s.Applies = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A single value still renders a histogram (one bin).
	var buf bytes.Buffer
	if err := New(LatencyDistribution).Render(noTTFT, sdk.PlotOptions{Format: "svg"}, &buf); err != nil || !bytes.Contains(buf.Bytes(), []byte("<svg")) {
		t.Errorf("render single value: err %v, %d bytes", err, buf.Len())
	}
	if err := New(LatencyDistribution).Render(noTTFT, sdk.PlotOptions{Format: "gif"}, &buf); err == nil {
		t.Error("gif accepted")
	}
	if New("nope") != nil {
		t.Error("unknown name built a plot")
	}
}
