// Package nvml is the "nvml" GPU telemetry collector: it reads the local
// GPUs through NVIDIA's NVML library (github.com/NVIDIA/go-nvml, loaded at
// run time), the same fields with the same units as AIPerf 0.13's pynvml
// collector (aiperf/gpu_telemetry/pynvml_collector.py). Its source is
// "pynvml://localhost", as AIPerf names it, so exports match.
//
// The NVML calls sit behind Library and Device so tests inject a fake; the
// real binding is in real.go (cgo builds) and reports a missing library as
// one error, never a crash.
package nvml

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
)

// Name is the plugin name. AIPerf's keyword "pynvml" selects it.
const Name = "nvml"

// Library is the slice of NVML the collector uses.
type Library interface {
	// Init loads and initializes NVML. Nothing else is called unless it
	// succeeded (go-nvml kills the process on a call after a failed Init).
	Init() error
	Shutdown() error
	DeviceCount() (int, error)
	Device(index int) (Device, error)
}

// Device is one GPU's NVML handle. Each getter returns an error when the
// GPU or driver does not support it; the value is then left out.
type Device interface {
	UUID() (string, error)
	Name() (string, error)
	PCIBusID() (string, error)
	PowerUsageMilliwatts() (uint32, error)
	TotalEnergyMillijoules() (uint64, error)
	// UtilizationRates are the GPU and memory utilization in percent.
	UtilizationRates() (gpu, memory uint32, err error)
	MemoryUsedBytes() (uint64, error)
	TemperatureC() (uint32, error)
	DecoderUtilization() (uint32, error)
	EncoderUtilization() (uint32, error)
	JpgUtilization() (uint32, error)
	// SMUtilization is the SM utilization in percent: from GPM where the
	// GPU supports it, else the sum over processes (AIPerf's fallback).
	SMUtilization() (float64, error)
	PowerViolationNs() (uint64, error)
}

// Collector reads every local GPU at each Sample.
type Collector struct {
	cfg Config
	lib Library
	log *slog.Logger

	mu      sync.Mutex
	inited  bool
	initErr error
	gpus    []gpu
}

// Config is the collector's settings. The core passes "url" (the source,
// "pynvml://localhost"); it is accepted and not needed.
type Config struct {
	URL string `json:"url"`
}

type gpu struct {
	dev     Device
	reading sdk.GPUReading // identity; Metrics filled per sample
}

var (
	_ sdk.GPUTelemetryCollector = (*Collector)(nil)
	_ sdk.Configurable          = (*Collector)(nil)
	_ sdk.Logging               = (*Collector)(nil)
)

// New returns a collector over the real NVML library.
func New() *Collector { return NewWithLibrary(realLibrary()) }

// NewWithLibrary returns a collector over lib (tests pass a fake).
func NewWithLibrary(lib Library) *Collector { return &Collector{lib: lib} }

// PluginConfig implements sdk.Configurable.
func (c *Collector) PluginConfig() any { return &c.cfg }

// SetLogger implements sdk.Logging.
func (c *Collector) SetLogger(l *slog.Logger) { c.log = l }

// Source implements sdk.GPUTelemetryCollector.
func (c *Collector) Source() string { return gpufields.PyNVMLSource }

// open initializes NVML and enumerates the GPUs once; a failure is kept and
// returned by every later Sample (the sampler reports it once).
func (c *Collector) open() error {
	if c.inited {
		return c.initErr
	}
	c.inited = true
	if err := c.lib.Init(); err != nil {
		c.initErr = fmt.Errorf("nvml: %w", err)
		return c.initErr
	}
	n, err := c.lib.DeviceCount()
	if err != nil {
		_ = c.lib.Shutdown()
		c.initErr = fmt.Errorf("nvml: device count: %w", err)
		return c.initErr
	}
	for i := range n {
		dev, err := c.lib.Device(i)
		if err != nil {
			c.warn("nvml: no handle for GPU", "index", i, "error", err)
			continue
		}
		r := sdk.GPUReading{Index: i, Device: fmt.Sprintf("nvidia%d", i), Hostname: "localhost"}
		// AIPerf's fallbacks when identity queries fail.
		if r.UUID, err = dev.UUID(); err != nil {
			r.UUID = fmt.Sprintf("GPU-unknown-%d", i)
		}
		if r.Name, err = dev.Name(); err != nil {
			r.Name = "Unknown GPU"
		}
		if bus, err := dev.PCIBusID(); err == nil {
			r.PCIBusID = bus
		}
		c.gpus = append(c.gpus, gpu{dev: dev, reading: r})
	}
	if len(c.gpus) == 0 {
		c.initErr = errors.New("nvml: no GPUs found")
		_ = c.lib.Shutdown()
		return c.initErr
	}
	return nil
}

func (c *Collector) warn(msg string, args ...any) {
	if c.log != nil {
		c.log.Warn(msg, args...)
	}
}

// Sample reads every GPU: power (mW -> W), total energy (mJ -> MJ), GPU
// and memory utilization (%), memory used (bytes -> GB, 1e9), temperature
// (°C), decoder/encoder/JPEG utilization (%), SM utilization (%, at most
// 100) and power violation time (ns -> µs), each left out when NVML cannot
// read it. A GPU none of whose fields could be read is left out.
func (c *Collector) Sample(ctx context.Context) ([]sdk.GPUReading, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.open(); err != nil {
		return nil, err
	}
	out := make([]sdk.GPUReading, 0, len(c.gpus))
	for _, g := range c.gpus {
		m := readMetrics(g.dev)
		if len(m) == 0 {
			continue
		}
		r := g.reading
		r.Metrics = m
		out = append(out, r)
	}
	return out, nil
}

func readMetrics(d Device) map[string]float64 {
	m := make(map[string]float64, 12)
	if v, err := d.PowerUsageMilliwatts(); err == nil {
		m[gpufields.PowerUsage] = float64(v) * 1e-3
	}
	if v, err := d.TotalEnergyMillijoules(); err == nil {
		m[gpufields.EnergyConsumption] = float64(v) * 1e-9
	}
	if g, mem, err := d.UtilizationRates(); err == nil {
		m[gpufields.GPUUtilization] = float64(g)
		m[gpufields.MemoryUtilization] = float64(mem)
	}
	if v, err := d.MemoryUsedBytes(); err == nil {
		m[gpufields.MemoryUsed] = float64(v) * 1e-9
	}
	if v, err := d.TemperatureC(); err == nil {
		m[gpufields.Temperature] = float64(v)
	}
	if v, err := d.DecoderUtilization(); err == nil {
		m[gpufields.DecoderUtil] = float64(v)
	}
	if v, err := d.EncoderUtilization(); err == nil {
		m[gpufields.EncoderUtil] = float64(v)
	}
	if v, err := d.JpgUtilization(); err == nil {
		m[gpufields.JPGUtil] = float64(v)
	}
	if v, err := d.SMUtilization(); err == nil && !math.IsNaN(v) {
		m[gpufields.SMUtilization] = math.Min(v, 100)
	}
	if v, err := d.PowerViolationNs(); err == nil {
		m[gpufields.PowerViolation] = float64(v) * 1e-3
	}
	return m
}

// Close shuts NVML down (sdk's io.Closer lifecycle step).
func (c *Collector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.inited || c.initErr != nil {
		return nil
	}
	for _, g := range c.gpus {
		if cl, ok := g.dev.(interface{ Free() }); ok {
			cl.Free()
		}
	}
	c.gpus = nil
	c.inited = false
	if err := c.lib.Shutdown(); err != nil {
		return fmt.Errorf("nvml: shutdown: %w", err)
	}
	return nil
}
