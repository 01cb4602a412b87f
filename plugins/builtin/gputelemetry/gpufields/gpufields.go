// Package gpufields is AIPerf 0.13's GPU telemetry vocabulary
// (aiperf/gpu_telemetry/constants.py): the metric field names, their
// display names and units, which of them are counters, and how DCGM
// exporter fields map onto them. The collectors and the GPU exporters share
// it so a name is spelt in one place.
package gpufields

import "strings"

// Field is one GPU telemetry metric: display name, field name (the key in
// sdk.GPUReading.Metrics) and unit, as GPU_TELEMETRY_METRICS_CONFIG lists
// them.
type Field struct {
	Display string
	Name    string
	Unit    string
	// Counter marks cumulative counters: their summary is the delta over
	// the window, not a distribution (GPU_TELEMETRY_COUNTER_METRICS).
	Counter bool
}

// AIPerf's field names used by name elsewhere.
const (
	PowerUsage        = "nvidia_power_usage"
	EnergyConsumption = "nvidia_energy_consumption"
	GPUUtilization    = "nvidia_gpu_utilization"
	MemoryUtilization = "nvidia_memory_utilization"
	MemoryUsed        = "nvidia_memory_used"
	Temperature       = "nvidia_temperature"
	SMUtilization     = "nvidia_sm_utilization"
	DecoderUtil       = "nvidia_decoder_utilization"
	EncoderUtil       = "nvidia_encoder_utilization"
	JPGUtil           = "nvidia_jpg_utilization"
	XIDErrors         = "nvidia_xid_errors"
	PowerViolation    = "nvidia_power_violation"

	AMDPower             = "amd_power"
	AMDEnergyConsumption = "amd_energy_consumption"
)

// Fields is GPU_TELEMETRY_METRICS_CONFIG in AIPerf's order, the order every
// export lists a GPU's metrics in.
var Fields = []Field{
	{"NVIDIA GPU Power Usage", PowerUsage, "W", false},
	{"NVIDIA Energy Consumption", EnergyConsumption, "MJ", true},
	{"NVIDIA GPU Utilization", GPUUtilization, "%", false},
	{"NVIDIA Memory Utilization", MemoryUtilization, "%", false},
	{"NVIDIA GPU Memory Used", MemoryUsed, "GB", false},
	{"NVIDIA GPU Temperature", Temperature, "°C", false},
	{"NVIDIA SM Utilization", SMUtilization, "%", false},
	{"NVIDIA Decoder Utilization", DecoderUtil, "%", false},
	{"NVIDIA Encoder Utilization", EncoderUtil, "%", false},
	{"NVIDIA JPEG Utilization", JPGUtil, "%", false},
	{"NVIDIA XID Errors", XIDErrors, "count", true},
	{"NVIDIA Power Violation", PowerViolation, "us", true},
	{"AMD GPU Power", AMDPower, "W", false},
	{"AMD Energy Consumption", AMDEnergyConsumption, "MJ", true},
	{"AMD GFX Activity", "amd_gfx_activity", "%", false},
	{"AMD UMC Activity", "amd_umc_activity", "%", false},
	{"AMD MM Activity", "amd_mm_activity", "%", false},
	{"AMD GPU Memory Used", "amd_memory_used", "GB", false},
	{"AMD GPU Temperature", "amd_temperature", "°C", false},
	{"AMD ECC Uncorrectable", "amd_ecc_uncorrectable", "count", true},
	{"AMD Throttle Status", "amd_throttle_status", "count", false},
}

// DCGMFields is DCGM_TO_FIELD_MAPPING: DCGM exporter metric name (without a
// _total suffix) to AIPerf field name.
var DCGMFields = map[string]string{
	"DCGM_FI_DEV_POWER_USAGE":              PowerUsage,
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": EnergyConsumption,
	"DCGM_FI_DEV_GPU_UTIL":                 GPUUtilization,
	"DCGM_FI_DEV_MEM_COPY_UTIL":            MemoryUtilization,
	"DCGM_FI_DEV_FB_USED":                  MemoryUsed,
	"DCGM_FI_DEV_GPU_TEMP":                 Temperature,
	"DCGM_FI_DEV_ENC_UTIL":                 EncoderUtil,
	"DCGM_FI_DEV_DEC_UTIL":                 DecoderUtil,
	"DCGM_FI_PROF_SM_ACTIVE":               SMUtilization,
	"DCGM_FI_DEV_XID_ERRORS":               XIDErrors,
	"DCGM_FI_DEV_POWER_VIOLATION":          PowerViolation,
}

// DCGMScale is the DCGM collector's SCALING_FACTORS: raw exporter units to
// AIPerf's (fields not listed are taken as they come: W, %, °C).
var DCGMScale = map[string]float64{
	EnergyConsumption: 1e-9,        // mJ -> MJ
	MemoryUsed:        1.048576e-3, // MiB -> GB
	SMUtilization:     100,         // ratio 0-1 -> %
	PowerViolation:    1e-3,        // ns -> µs
}

// PyNVMLSource is the source name of local NVML readings (AIPerf's
// PYNVML_SOURCE_IDENTIFIER).
const PyNVMLSource = "pynvml://localhost"

// Platform names a GPU's vendor namespace as AIPerf's GpuSummary.platform
// does: "amd" when its metrics are amd_* ones, else "nvidia" (every
// collector here reads NVIDIA GPUs).
func Platform(metrics map[string]float64) string {
	for k := range metrics {
		if strings.HasPrefix(k, "amd_") {
			return "amd"
		}
	}
	return "nvidia"
}

// Lookup returns the field with the given name.
func Lookup(name string) (Field, bool) {
	for _, f := range Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}
