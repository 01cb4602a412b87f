package plot

import (
	"bytes"
	"image/png"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func sweepRun(model string, conc, rate, ttftP50, tput, perUser float64) *sdk.PlotRun {
	stats := func(kv ...any) sdk.PlotStat {
		s := sdk.PlotStat{Stats: map[string]float64{}}
		for i := 0; i < len(kv); i += 2 {
			s.Stats[kv[i].(string)] = kv[i+1].(float64)
		}
		return s
	}
	return &sdk.PlotRun{
		Config: sdk.PlotRunConfig{Model: model, Concurrency: conc, RequestRate: rate},
		Summary: map[string]sdk.PlotStat{
			metricTTFT:              stats("avg", ttftP50, "p50", ttftP50, "p90", ttftP50*1.2, "p99", ttftP50*1.5),
			metricLatency:           stats("avg", 100.0, "p50", 100.0, "p90", 120.0, "p99", 150.0),
			metricThroughput:        stats("avg", tput),
			metricThroughputPerUser: stats("avg", perUser),
			metricRequestThroughput: stats("avg", tput/20),
		},
	}
}

// A load plot applies when plotdata.LoadAxis finds one load for all runs.
func TestLoadPlotsNeedOneLoadAxis(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []*sdk.PlotRun
		ok   bool
	}{
		{"concurrency", []*sdk.PlotRun{sweepRun("m", 1, 0, 10, 100, 50), sweepRun("m", 4, 0, 12, 380, 48)}, true},
		{"request rate", []*sdk.PlotRun{sweepRun("m", 0, 5, 10, 100, 50), sweepRun("m", 0, 10, 12, 380, 48)}, true},
		{"mixed", []*sdk.PlotRun{sweepRun("m", 4, 0, 10, 100, 50), sweepRun("m", 0, 10, 12, 380, 48)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NewComparison(TTFTVsLoad).AppliesToRuns(tc.runs); got != tc.ok {
				t.Errorf("ttft_vs_load applies = %v, want %v", got, tc.ok)
			}
		})
	}
}

// Every comparison plot draws two models as two series into a PNG of the
// requested size, needs two runs, and never applies to a single run.
func TestComparisonPlotsRender(t *testing.T) {
	runs := []*sdk.PlotRun{
		sweepRun("a", 1, 0, 10, 100, 50), sweepRun("a", 4, 0, 12, 380, 48), sweepRun("a", 8, 0, 15, 700, 45),
		sweepRun("b", 1, 0, 20, 80, 40), sweepRun("b", 4, 0, 25, 300, 38),
	}
	for _, name := range ComparisonNames {
		t.Run(name, func(t *testing.T) {
			p := NewComparison(name)
			if p == nil {
				t.Fatal("unknown name")
			}
			if p.Applies(runs[0]) || p.AppliesToRuns(runs[:1]) {
				t.Error("applies to a single run")
			}
			if !p.AppliesToRuns(runs) {
				t.Fatal("does not apply to the sweep")
			}
			var buf bytes.Buffer
			if err := p.RenderRuns(runs, sdk.PlotOptions{Format: "png", Width: 800, Height: 400, DPI: 100}, &buf); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 400 {
				t.Errorf("%dx%d, want 800x400", b.Dx(), b.Dy())
			}
		})
	}
	noPerUser := []*sdk.PlotRun{sweepRun("a", 1, 0, 10, 100, 50), sweepRun("a", 4, 0, 12, 380, 48)}
	delete(noPerUser[1].Summary, metricThroughputPerUser)
	if NewComparison(ParetoThroughputVsInteractivity).AppliesToRuns(noPerUser) {
		t.Error("interactivity Pareto applies though a run lacks output_token_throughput_per_user")
	}
}
