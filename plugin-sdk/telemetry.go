package sdk

import "context"

// Telemetry collectors (issue 12): what the server side does while a run
// executes. The core calls them from its own sampling goroutine, never from
// the timed path, at the configured interval, and stamps every sample with
// the run's monotonic clock (the records' perf_ns) and the wall clock, so
// samples line up with phases and timeslices.

// Category names.
const (
	CategoryGPUTelemetry  = "gpu_telemetry_collector"
	CategoryServerMetrics = "server_metrics_collector"
)

// GPUReading is one GPU's values at one sample.
type GPUReading struct {
	// Index is the GPU's index on its host; UUID, Name (the model, e.g.
	// "NVIDIA H100 80GB HBM3"), PCIBusID and Hostname identify it as AIPerf's
	// telemetry export does.
	Index    int    `json:"index"`
	UUID     string `json:"uuid"`
	Name     string `json:"name,omitempty"`
	PCIBusID string `json:"pci_bus_id,omitempty"`
	// Device is the device node name ("nvidia0"), AIPerf's GpuMetadata.device.
	Device   string `json:"device,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	// Metrics are the values read, keyed by AIPerf 0.13's GPU telemetry field
	// names (gpu_telemetry/constants.py: nvidia_power_usage in W,
	// nvidia_energy_consumption in MJ, nvidia_gpu_utilization in %,
	// nvidia_memory_used in GB, nvidia_temperature in °C, ...). A value the
	// GPU or driver does not report is absent, never 0.
	Metrics map[string]float64 `json:"metrics"`
}

// GPUTelemetryCollector reads GPUs (category gpu_telemetry_collector): local
// ones through NVML, remote ones from DCGM exporter endpoints. Source names
// where the readings come from ("pynvml://localhost" or the exporter's URL,
// as AIPerf names its sources).
type GPUTelemetryCollector interface {
	Source() string
	// Sample reads every GPU once. An error is reported once per source and
	// the run goes on; the next call may succeed.
	Sample(ctx context.Context) ([]GPUReading, error)
}

// ServerMetricsScrape is one scrape of a metrics endpoint, as received: the
// core parses the body (Prometheus text or OpenMetrics, by ContentType) with
// github.com/prometheus/common/expfmt.
type ServerMetricsScrape struct {
	Body        []byte
	ContentType string
}

// ServerMetricsCollector fetches an inference server's own metrics
// (category server_metrics_collector): by default the endpoint's Prometheus
// /metrics. Source is the URL (credentials removed) the scrapes come from.
type ServerMetricsCollector interface {
	Source() string
	Scrape(ctx context.Context) (ServerMetricsScrape, error)
}

// noNetwork is why the telemetry categories take no WASM plugins.
const noNetwork = "the WASM sandbox grants no network or device access"

// The telemetry categories. A collector is built once per source (the core
// passes the source's URL in the plugin's settings, key "url"), so a run
// with three DCGM endpoints has three dcgm collectors.
var (
	GPUTelemetryCollectors = define[GPUTelemetryCollector](Category{Name: CategoryGPUTelemetry, Cardinality: One, Order: 160,
		Description:   "Reads GPU utilization, memory, power and energy while a run executes (NVML, DCGM exporters)",
		ExternalKinds: []string{KindGRPC}, BuiltinReason: noNetwork})
	ServerMetricsCollectors = define[ServerMetricsCollector](Category{Name: CategoryServerMetrics, Cardinality: One, Order: 170,
		Description:   "Scrapes the inference server's own metrics (Prometheus /metrics) while a run executes",
		ExternalKinds: []string{KindGRPC}, BuiltinReason: noNetwork})
)

// GPUSample is one sample of one source: when it was taken (PerfNs on the
// records' monotonic clock, TimestampNs wall clock) and every GPU's values.
type GPUSample struct {
	PerfNs      int64        `json:"perf_ns"`
	TimestampNs int64        `json:"timestamp_ns"`
	GPUs        []GPUReading `json:"gpus"`
}

// GPUTelemetrySeries is what one GPU source gave during the run, in time
// order; Error is the last failure to read it ("" when none).
type GPUTelemetrySeries struct {
	Source  string      `json:"source"`
	Samples []GPUSample `json:"samples"`
	Error   string      `json:"error,omitempty"`
}
