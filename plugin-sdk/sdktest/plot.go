package sdktest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// SamplePlotRun is a synthetic run of n requests as aiperf's artifact
// reader returns it: every 50th request failed (request_latency only), the
// others carry TTFT, ITL, latency, ISL, OSL and throughput per user in ms,
// tokens and tokens/s; a summary of those metrics, one timeslice per
// second, two GPUs sampled every 333 ms (one sample lacks its power, NaN;
// GPUCount 2, as the summary's telemetry_data would count them)
// and one server metric series. Values are deterministic.
func SamplePlotRun(n int) *sdk.PlotRun {
	const startNs = int64(1_000_000_000_000)
	const gapNs = int64(10_000_000) // a request starts every 10 ms
	run := &sdk.PlotRun{Dir: "sdktest-run", StartNs: startNs, SliceDuration: 1, GPUCount: 2,
		Config:   sdk.PlotRunConfig{Model: "sdktest-model", EndpointType: "chat", Streaming: true, Concurrency: 4},
		Requests: make([]sdk.PlotRequest, n), Summary: map[string]sdk.PlotStat{}}
	values := map[string][]float64{}
	for i := range run.Requests {
		ttft := 20 + float64(i*7919%1000)/100
		latency := ttft + 150 + float64(i%13)
		start := startNs + int64(i)*gapNs
		r := sdk.PlotRequest{StartNs: start, EndNs: start + int64(latency*1e6), Metrics: map[string]float64{}}
		if i%50 == 49 {
			r.Error = true
			r.Metrics["request_latency"] = latency
		} else {
			osl := float64(50 + i%20)
			itl := (latency - ttft) / (osl - 1)
			for tag, v := range map[string]float64{"time_to_first_token": ttft, "inter_token_latency": itl,
				"request_latency": latency, "input_sequence_length": float64(100 + i%50), "output_sequence_length": osl,
				"output_token_throughput_per_user": 1000 / itl, "time_to_second_token": ttft + itl} {
				r.Metrics[tag] = v
				values[tag] = append(values[tag], v)
			}
		}
		run.Requests[i] = r
	}
	for tag, vs := range values {
		unit := "ms"
		switch tag {
		case "input_sequence_length", "output_sequence_length":
			unit = "tokens"
		case "output_token_throughput_per_user":
			unit = "tokens/sec/user"
		}
		run.Summary[tag] = sdk.PlotStat{Unit: unit, Stats: summarize(vs)}
	}
	duration := float64(int64(n)*gapNs) / 1e9
	run.Summary["request_throughput"] = sdk.PlotStat{Unit: "requests/sec", Stats: map[string]float64{"avg": float64(n) / max(duration, 1e-9)}}
	windows := map[int64][]float64{} // TTFTs by the second the request started in
	for _, r := range run.Requests {
		if v, ok := r.Metrics["time_to_first_token"]; ok {
			windows[(r.StartNs-startNs)/1e9] = append(windows[(r.StartNs-startNs)/1e9], v)
		}
	}
	for w := 0; float64(w) < duration; w++ {
		st := summarize(windows[int64(w)])
		run.Timeslices = append(run.Timeslices, sdk.PlotTimeslice{Index: w, StartNs: startNs + int64(w)*1e9,
			EndNs:   startNs + int64(w+1)*1e9,
			Metrics: map[string]sdk.PlotStat{"Time to First Token": {Unit: "ms", Stats: map[string]float64{"avg": st["avg"], "std": st["std"]}}}})
	}
	for g := range 2 {
		gpu := sdk.PlotGPU{Index: g, UUID: fmt.Sprintf("GPU-sdktest-%d", g), Name: "sdktest GPU", Source: "sdktest://gpus",
			Metrics: map[string][]float64{"nvidia_gpu_utilization": nil, "nvidia_power_usage": nil}}
		for k := 0; float64(k)*0.333 <= duration; k++ {
			gpu.Times = append(gpu.Times, float64(k)*0.333)
			gpu.Metrics["nvidia_gpu_utilization"] = append(gpu.Metrics["nvidia_gpu_utilization"], float64(60+(k+g*7)%40))
			power := 300 + float64((k*31+g)%100)
			if k == 1 {
				power = math.NaN() // a sample without the field
			}
			gpu.Metrics["nvidia_power_usage"] = append(gpu.Metrics["nvidia_power_usage"], power)
		}
		run.GPUs = append(run.GPUs, gpu)
	}
	series := sdk.PlotServerSeries{Metric: "vllm:num_requests_running", Type: "gauge", Unit: "requests",
		Endpoint: "http://localhost:8000/metrics", Labels: map[string]string{"model_name": "sdktest-model"},
		Stats: map[string]float64{"avg": 3.5, "max": 4}}
	for _, ts := range run.Timeslices {
		series.Times = append(series.Times, float64(ts.Index)+0.5)
		series.Values = append(series.Values, float64(3+ts.Index%2))
	}
	run.ServerMetrics = []sdk.PlotServerSeries{series}
	return run
}

// summarize is avg, min, max, p50, p99 (linear) and population std.
func summarize(vs []float64) map[string]float64 {
	if len(vs) == 0 {
		return map[string]float64{}
	}
	s := slices.Sorted(slices.Values(vs))
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	avg := sum / float64(len(s))
	sq := 0.0
	for _, v := range s {
		sq += (v - avg) * (v - avg)
	}
	q := func(p float64) float64 {
		pos := p * float64(len(s)-1)
		lo := int(pos)
		if lo+1 >= len(s) {
			return s[lo]
		}
		return s[lo] + (s[lo+1]-s[lo])*(pos-float64(lo))
	}
	return map[string]float64{"avg": avg, "min": s[0], "max": s[len(s)-1], "p50": q(0.5), "p99": q(0.99),
		"std": math.Sqrt(sq / float64(len(s)))}
}

// sampleSweep is three sample runs at concurrency 1, 4 and 8.
func sampleSweep() []*sdk.PlotRun {
	var runs []*sdk.PlotRun
	for _, c := range []float64{1, 4, 8} {
		r := SamplePlotRun(200)
		r.Dir, r.Config.Concurrency = fmt.Sprintf("sdktest-run-c%g", c), c
		runs = append(runs, r)
	}
	return runs
}

// Plot checks an sdk.Plot in process, or an sdk.ComparisonPlot over
// several runs. runs are the sample data (default: SamplePlotRun(500), or
// three of them at concurrency 1, 4 and 8 for a comparison plot); the plot
// must apply to them. Checks: Applies on a run without data returns
// (either answer) without panicking; the plot applies to the samples; a
// PNG render decodes at the size PlotOptions asks for (Width and Height at
// 100 DPI, scaled by DPI) for two sizes; an SVG render in the dark theme
// is an XML document whose root is <svg>. A comparison plot's single-run
// Applies reports false (`aiperf plot` then never draws it for one run).
func Plot(t testing.TB, p sdk.Plot, runs ...*sdk.PlotRun) {
	t.Helper()
	if p == nil {
		t.Errorf("sdktest: Plot: nil plot")
		return
	}
	if cfg, ok := p.(sdk.Configurable); ok {
		checkConfigurable(t, cfg)
	}
	cp, compare := p.(sdk.ComparisonPlot)
	empty := &sdk.PlotRun{Dir: "sdktest-empty", Summary: map[string]sdk.PlotStat{}}
	if compare {
		if len(runs) == 0 {
			runs = sampleSweep()
		}
		if ok, done := callNoErr(t, "Applies(one run) of a comparison plot", func() bool { return p.Applies(runs[0]) }); done && ok {
			t.Errorf("sdktest: Applies(one run) of a comparison plot = true: a comparison plot draws several runs, its single-run Applies reports false")
		}
		callNoErr(t, "AppliesToRuns(runs without data)", func() bool { return cp.AppliesToRuns([]*sdk.PlotRun{empty, empty}) })
		ok, done := callNoErr(t, "AppliesToRuns(sample runs)", func() bool { return cp.AppliesToRuns(runs) })
		if !done {
			return
		}
		if !ok {
			t.Errorf("sdktest: AppliesToRuns(sample runs) = false: pass runs with the data the plot needs")
			return
		}
		checkRenders(t, "RenderRuns", func(o sdk.PlotOptions, w io.Writer) error { return cp.RenderRuns(runs, o, w) })
		return
	}
	if len(runs) == 0 {
		runs = []*sdk.PlotRun{SamplePlotRun(500)}
	}
	callNoErr(t, "Applies(run without data)", func() bool { return p.Applies(empty) })
	ok, done := callNoErr(t, "Applies(sample run)", func() bool { return p.Applies(runs[0]) })
	if !done {
		return
	}
	if !ok {
		t.Errorf("sdktest: Applies(sample run) = false: pass a run with the data the plot needs")
		return
	}
	checkRenders(t, "Render", func(o sdk.PlotOptions, w io.Writer) error { return p.Render(runs[0], o, w) })
}

// checkRenders renders PNG at two sizes and SVG, and checks each image.
func checkRenders(t testing.TB, method string, render func(sdk.PlotOptions, io.Writer) error) {
	t.Helper()
	for _, o := range []sdk.PlotOptions{
		{Format: "png", Width: 1600, Height: 800, DPI: 150, Theme: "light"}, // aiperf plot's defaults
		{Format: "png", Width: 640, Height: 480, DPI: 100, Theme: "dark"},
		{Format: "svg", Width: 1600, Height: 800, DPI: 150, Theme: "dark"},
	} {
		what := fmt.Sprintf("%s(%s %dx%d at %d DPI, %s)", method, o.Format, o.Width, o.Height, o.DPI, o.Theme)
		var buf bytes.Buffer
		_, done, err := call(t, what, func() (struct{}, error) { return struct{}{}, render(o, &buf) })
		switch {
		case !done:
			continue
		case err != nil:
			t.Errorf("sdktest: %s returned error: %v", what, err)
			continue
		case buf.Len() == 0:
			t.Errorf("sdktest: %s wrote nothing", what)
			continue
		}
		if o.Format == "svg" {
			if root, err := xmlRoot(buf.Bytes()); err != nil || root != "svg" {
				t.Errorf("sdktest: %s: not an SVG document (root element %q, %v)", what, root, err)
			}
			continue
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Errorf("sdktest: %s: not a PNG: %v", what, err)
			continue
		}
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		wantW, wantH := o.Width*o.DPI/100, o.Height*o.DPI/100
		if abs(w-wantW) > 1 || abs(h-wantH) > 1 {
			t.Errorf("sdktest: %s: the PNG is %dx%d pixels, want %dx%d (Width and Height are pixels at 100 DPI, scaled by DPI)",
				what, w, h, wantW, wantH)
		}
	}
}

func abs(n int) int { return max(n, -n) }

// xmlRoot is the name of the document's root element.
func xmlRoot(b []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			return "", err
		}
		if se, ok := tok.(xml.StartElement); ok {
			// The rest must parse too: a truncated document is not an image.
			for {
				if _, err := d.Token(); err == io.EOF {
					return se.Name.Local, nil
				} else if err != nil {
					return se.Name.Local, err
				}
			}
		}
	}
}
