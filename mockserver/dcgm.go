package mockserver

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DCGMPath is where the mock serves its fake DCGM exporter page. Point
// --gpu-telemetry at http://<host>:<port>/dcgm/metrics (or <host>:<port>/dcgm,
// which AIPerf completes with /metrics); /metrics itself is the vLLM page.
const DCGMPath = "/dcgm/metrics"

// dcgmGPU is one fake GPU's fixed identity and how hard it works per
// request in flight.
type dcgmGPU struct {
	index      int
	uuid       string
	pciBusID   string
	utilPerReq float64 // % GPU utilization per request in flight
	energy0    float64 // energy counter at start, mJ since "boot"
}

var dcgmGPUs = []dcgmGPU{
	{0, "GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000000", "00000000:18:00.0", 25, 81_000_000_000},
	{1, "GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000001", "00000000:2A:00.0", 20, 79_500_000_000},
}

const (
	dcgmModel    = "NVIDIA H100 80GB HBM3"
	dcgmHost     = "mock-dcgm"
	dcgmDriver   = "550.54.15"
	dcgmIdleW    = 70.0  // W at 0% utilization
	dcgmWPerUtil = 6.3   // W per % utilization (700 W at 100%)
	dcgmFBBase   = 1024  // MiB used at idle (the model's weights, say)
	dcgmFBPerReq = 512   // MiB of KV cache per request in flight
	dcgmFBTotal  = 81559 // MiB on an H100 80GB
)

// dcgmState is the fake exporter: every value is a function of the
// requests in flight at the scrape, and the energy counter integrates the
// power between scrapes, so power, energy and utilization move with the
// load and are reproducible for a given load and clock.
type dcgmState struct {
	load func() int       // requests in flight
	now  func() time.Time // the clock (tests step it)

	mu     sync.Mutex
	last   time.Time
	energy []float64 // mJ per GPU
	power  []float64 // W per GPU at the last scrape
}

func newDCGMState(load func() int, now func() time.Time) *dcgmState {
	d := &dcgmState{load: load, now: now, last: now()}
	for _, g := range dcgmGPUs {
		d.energy = append(d.energy, g.energy0)
		d.power = append(d.power, dcgmIdleW)
	}
	return d
}

// dcgmMetric is one family of the page, in dcgm-exporter's default
// counter set order and wording.
type dcgmMetric struct {
	name, kind, help string
	value            func(g dcgmGPU, i int, util float64, load int) float64
}

func (d *dcgmState) metrics() []dcgmMetric {
	return []dcgmMetric{
		{"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", func(_ dcgmGPU, _ int, u float64, _ int) float64 { return 1095 + math.Round(u*8.85) }},
		{"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", func(dcgmGPU, int, float64, int) float64 { return 2619 }},
		{"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", func(_ dcgmGPU, _ int, u float64, _ int) float64 { return 33 + math.Round(u/2) }},
		{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", func(_ dcgmGPU, i int, _ float64, _ int) float64 { return d.power[i] }},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", func(_ dcgmGPU, i int, _ float64, _ int) float64 { return math.Round(d.energy[i]) }},
		{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", func(dcgmGPU, int, float64, int) float64 { return 0 }},
		{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", func(_ dcgmGPU, _ int, u float64, _ int) float64 { return u }},
		{"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", func(_ dcgmGPU, _ int, u float64, _ int) float64 { return math.Round(u * 0.6) }},
		{"DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", func(dcgmGPU, int, float64, int) float64 { return 0 }},
		{"DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", func(dcgmGPU, int, float64, int) float64 { return 0 }},
		{"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", func(dcgmGPU, int, float64, int) float64 { return 0 }},
		{"DCGM_FI_DEV_POWER_VIOLATION", "counter", "Throttling duration due to power constraints (in us).", func(dcgmGPU, int, float64, int) float64 { return 0 }},
		{"DCGM_FI_DEV_FB_FREE", "gauge", "Frame buffer memory free (in MB).", func(_ dcgmGPU, _ int, _ float64, l int) float64 { return dcgmFBTotal - fbUsed(l) }},
		{"DCGM_FI_DEV_FB_USED", "gauge", "Frame buffer memory used (in MB).", func(_ dcgmGPU, _ int, _ float64, l int) float64 { return fbUsed(l) }},
		{"DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned (in %).", func(_ dcgmGPU, _ int, u float64, _ int) float64 { return math.Round(u*0.9) / 100 }},
	}
}

func fbUsed(load int) float64 {
	return math.Min(dcgmFBBase+dcgmFBPerReq*float64(load), dcgmFBTotal)
}

func gpuUtil(g dcgmGPU, load int) float64 {
	return math.Min(100, g.utilPerReq*float64(load))
}

// render advances the energy counters to now at the power of the previous
// scrape, then writes the page for the current load.
func (d *dcgmState) render() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	dt := now.Sub(d.last).Seconds()
	if dt < 0 {
		dt = 0
	}
	d.last = now
	load := max(d.load(), 0)
	utils := make([]float64, len(dcgmGPUs))
	for i, g := range dcgmGPUs {
		d.energy[i] += d.power[i] * dt * 1000 // W·s = J; mJ
		utils[i] = gpuUtil(g, load)
		d.power[i] = math.Round((dcgmIdleW+dcgmWPerUtil*utils[i])*1000) / 1000
	}
	var b strings.Builder
	for _, m := range d.metrics() {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", m.name, m.help, m.name, m.kind)
		for i, g := range dcgmGPUs {
			fmt.Fprintf(&b, "%s{gpu=\"%d\",UUID=\"%s\",pci_bus_id=\"%s\",device=\"nvidia%d\",modelName=\"%s\",Hostname=\"%s\",DCGM_FI_DRIVER_VERSION=\"%s\"} %s\n",
				m.name, g.index, g.uuid, g.pciBusID, g.index, dcgmModel, dcgmHost, dcgmDriver,
				strconv.FormatFloat(m.value(g, i, utils[i], load), 'f', -1, 64))
		}
	}
	return b.String()
}

func (d *dcgmState) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(d.render()))
	})
}
