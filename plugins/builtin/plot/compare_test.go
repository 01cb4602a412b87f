package plot

import (
	"bytes"
	"image/png"
	"io"
	"slices"
	"strconv"
	"strings"
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

// sweepGPURuns reads testdata/plot/sweep_gpu (three runs with two GPUs of
// telemetry each) with the loads `aiperf plot` reads from input_config.
func sweepGPURuns(t *testing.T) []*sdk.PlotRun {
	t.Helper()
	var runs []*sdk.PlotRun
	for _, c := range []float64{1, 2, 4} {
		r := readFixture(t, "sweep_gpu/concurrency_"+strconv.FormatFloat(c, 'f', -1, 64))
		r.Config = sdk.PlotRunConfig{Model: "mock-model", EndpointType: "chat", Streaming: true, Concurrency: c}
		runs = append(runs, r)
	}
	return runs
}

// AIPerf's per-GPU Pareto plots on the GPU sweep: the y of each point is the
// run's total output token throughput over its 2 GPUs, exactly; PNGs at
// AIPerf's scale, SVGs with AIPerf's title and axis labels.
func TestPerGPUComparisonPlotsOnGPUSweep(t *testing.T) {
	runs := sweepGPURuns(t)
	totals := []float64{349.8432333272746, 678.2635436293917, 1375.8119532360536}
	for i, r := range runs {
		if r.GPUCount != 2 {
			t.Fatalf("run %d: GPUCount %d, want 2 (the mock's DCGM GPUs)", i, r.GPUCount)
		}
		if got := r.Summary[metricThroughput].Stats["avg"]; got != totals[i] {
			t.Fatalf("run %d: output token throughput %v, want %v (fixture changed? update its README)", i, got, totals[i])
		}
	}
	for _, tc := range []struct {
		name, title, xLabel string
		xs                  []float64
	}{
		{ParetoThroughputPerGPUVsLatency, "Pareto Curve: Token Throughput per GPU vs Latency", "Request Latency (ms)",
			[]float64{46.764360950000004, 47.20971475, 47.6165271}},
		{ParetoThroughputPerGPUVsInteractivity, "Pareto Curve: Token Throughput per GPU vs Interactivity",
			"Output Token Throughput Per User (tokens/sec/user)", []float64{498.72282486771627, 502.24080665657976, 498.35595665850377}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewComparison(tc.name)
			if p == nil || !p.AppliesToRuns(runs) {
				t.Fatal("does not apply to the GPU sweep")
			}
			if p.Applies(runs[0]) || p.AppliesToRuns(runs[:1]) {
				t.Error("applies to a single run")
			}
			s := p.(pareto).series(runs)
			if len(s) != 1 || s[0].model != "mock-model" || !slices.Equal(s[0].labels, []string{"c=1", "c=2", "c=4"}) {
				t.Fatalf("series %+v", s)
			}
			for i, pt := range s[0].pts {
				if pt.X != tc.xs[i] || pt.Y != totals[i]/2 {
					t.Errorf("point %d = (%v, %v), want (%v, %v)", i, pt.X, pt.Y, tc.xs[i], totals[i]/2)
				}
			}
			text := pngAndSVG(t, func(o sdk.PlotOptions, w io.Writer) error { return p.RenderRuns(runs, o, w) })
			for _, w := range []string{tc.title, tc.xLabel, "Output Token Throughput Per GPU (tokens/sec/gpu)", "mock-model", "c=1", "c=2", "c=4"} {
				if !strings.Contains(text, w) {
					t.Errorf("svg text lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// The per-GPU plots need GPU telemetry in every run: not on the sweep
// fixture (no telemetry), not when one run of the GPU sweep lacks it. The
// total-throughput Paretos still apply to both.
func TestPerGPUComparisonPlotsNeedEveryRunsGPUs(t *testing.T) {
	noTelemetry := make([]*sdk.PlotRun, 0, 3)
	for _, c := range []string{"1", "4", "8"} {
		noTelemetry = append(noTelemetry, readFixture(t, "sweep/concurrency_"+c))
	}
	oneWithout := sweepGPURuns(t)
	oneWithout[1].GPUCount = 0
	for _, tc := range []struct {
		name string
		runs []*sdk.PlotRun
	}{{"sweep without telemetry", noTelemetry}, {"one run without GPUs", oneWithout}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range PerGPUComparisonNames {
				if NewComparison(name).AppliesToRuns(tc.runs) {
					t.Errorf("%s applies", name)
				}
			}
			for _, name := range []string{ParetoThroughputVsLatency, ParetoThroughputVsInteractivity} {
				if !NewComparison(name).AppliesToRuns(tc.runs) {
					t.Errorf("%s does not apply", name)
				}
			}
		})
	}
}
