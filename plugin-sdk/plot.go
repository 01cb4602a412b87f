package sdk

import "io"

// Plots (issue 13): `aiperf plot` draws figures from a run's artifact
// directory after the run, so a plot type never touches the timed path.

// CategoryPlot names the plot category.
const CategoryPlot = "plot"

// PlotRequest is one request of a run's profile_export.jsonl, in file order:
// the monotonic wall-clock stamps of its metadata and its metric values keyed
// by AIPerf tag (time_to_first_token, request_latency, ...) in the unit the
// record states (ms, tokens). A metric the record lacks is absent.
type PlotRequest struct {
	StartNs int64
	EndNs   int64
	Error   bool
	Metrics map[string]float64
}

// PlotStat is one metric of profile_export_aiperf.json: its unit and its
// statistics (avg, p50, p99, min, max, ...).
type PlotStat struct {
	Unit  string
	Stats map[string]float64
}

// PlotRun is one run's artifacts as a plot reads them.
type PlotRun struct {
	Dir      string
	Summary  map[string]PlotStat
	Requests []PlotRequest
	// Config is what the run's input_config says about its target and load;
	// comparison plots group, label and check runs by it.
	Config PlotRunConfig
	// GPUCount is the number of GPUs across all endpoints of the summary's
	// telemetry_data, as AIPerf's plot loader counts them
	// (calculate_gpu_count_from_telemetry); 0 for a run without GPU
	// telemetry. Per-GPU throughput divides by it.
	GPUCount int

	// The optional time series below are empty when the run did not write
	// their file. Their times are seconds from StartNs.

	// StartNs is the run's time origin: the earliest request_start_ns of
	// profile_export.jsonl (AIPerf's origin for GPU telemetry); the first
	// telemetry sample's time when there are no requests.
	StartNs int64
	// Timeslices are the windows of profile_export_aiperf_timeslices.csv
	// (written with --slice-duration), in file order.
	Timeslices []PlotTimeslice
	// SliceDuration is input_config's slice_duration in seconds; 0 when unset.
	SliceDuration float64
	// GPUs are the GPUs of gpu_telemetry_export.jsonl, by source then GPU
	// index.
	GPUs []PlotGPU
	// ServerMetrics are the series of server_metrics_export.json that have
	// timeslices (written with --slice-duration), by metric name.
	ServerMetrics []PlotServerSeries
}

// PlotTimeslice is one window of the timeslice export: its index, its
// bounds and its metrics keyed by the CSV's metric name, AIPerf's display
// header ("Time to First Token"), which is how AIPerf's plots select them.
type PlotTimeslice struct {
	Index   int
	StartNs int64
	EndNs   int64
	Metrics map[string]PlotStat
}

// PlotGPU is one GPU's samples: Times[i] is sample i's time and
// Metrics[field][i] its value of an AIPerf telemetry field
// (nvidia_power_usage in W, nvidia_gpu_utilization in %, nvidia_memory_used
// in GB, nvidia_temperature in °C, ...); NaN where the sample lacks it.
type PlotGPU struct {
	Index   int
	UUID    string
	Name    string
	Source  string
	Times   []float64
	Metrics map[string][]float64
}

// PlotServerSeries is one series (metric, endpoint, labels) of the server
// metrics export with a value per timeslice at the slice's midpoint, as
// AIPerf's plot loader reads it: a gauge's avg, a counter's rate, a
// histogram's avg. Stats are the series' whole-run statistics.
type PlotServerSeries struct {
	Metric   string
	Type     string
	Unit     string
	Endpoint string
	Labels   map[string]string
	Stats    map[string]float64
	Times    []float64
	Values   []float64
}

// PlotRunConfig is the part of a run's input_config that comparison plots
// use. Concurrency and RequestRate are the profiling phase's load; 0 when the
// phase does not set it.
type PlotRunConfig struct {
	Model        string
	EndpointType string
	Streaming    bool
	Concurrency  float64
	RequestRate  float64
}

// PlotOptions say how to draw: Format is "png" or "svg"; Width and Height in
// pixels at 100 DPI (AIPerf's 1600x800) and DPI the raster resolution (150,
// AIPerf's scale 1.5); Theme is "light" or "dark".
type PlotOptions struct {
	Format string
	Width  int
	Height int
	DPI    int
	Theme  string
}

// Plot draws one figure of one run (category plot). Its file is the
// plugin's registered name plus the format's extension, as AIPerf names its
// plots ("ttft_over_time.png").
type Plot interface {
	// Applies reports whether the run has the data the plot needs; the
	// command skips the plot (and says so) when it does not.
	Applies(run *PlotRun) bool
	// Render writes the figure's encoded bytes.
	Render(run *PlotRun, opts PlotOptions, w io.Writer) error
}

// ComparisonPlot is a plot-category plugin that draws one figure over
// several runs (a sweep), as AIPerf's multi-run plots. `aiperf plot` with
// several runs draws only comparison plots, and with one run skips them; its
// single-run Applies should report false.
type ComparisonPlot interface {
	Plot
	// AppliesToRuns reports whether the runs have the data the plot needs.
	AppliesToRuns(runs []*PlotRun) bool
	// RenderRuns writes the figure's encoded bytes.
	RenderRuns(runs []*PlotRun, opts PlotOptions, w io.Writer) error
}

// Plots is the plot category, open to gRPC plugins: a vendor ships a plot
// type as a binary, and its calls stream the run in chunks (the
// RenderPlot RPC). WASM is refused: its ABI has no plot calls, and a
// run's per-request series outgrow the sandbox's default memory.
var Plots = define[Plot](Category{Name: CategoryPlot, Cardinality: Many, Order: 180,
	Description:   "Static figures of a run's artifacts drawn by `aiperf plot` (PNG, SVG)",
	ExternalKinds: []string{KindGRPC},
	BuiltinReason: "the WASM ABI has no plot calls: a run's per-request series outgrow the sandbox's 64 MiB default memory"})
