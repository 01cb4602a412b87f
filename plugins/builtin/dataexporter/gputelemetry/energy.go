package gputelemetry

import (
	"math"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
)

// Console groups of the energy-efficiency metrics (AIPerf's
// MetricConsoleGroup.GPU_POWER_EFFICIENCY_*).
const (
	GroupPowerEfficiencyNVIDIA = "gpu_power_efficiency_nvidia"
	GroupPowerEfficiencyAMD    = "gpu_power_efficiency_amd"
)

// energyMetric is one member of AIPerf's energy-efficiency family
// (metrics/types/power_efficiency_metrics.py) without its vendor prefix.
type energyMetric struct {
	tag, header, unit string
	order             int // display order of the NVIDIA variant; AMD adds 100
	flags             sdk.MetricFlags
}

var (
	mTotalPower     = energyMetric{"total_gpu_power", "Total GPU Power", "W", 740, 0}
	mAveragePower   = energyMetric{"average_gpu_power", "Average GPU Power", "W", 720, 0}
	mTotalEnergy    = energyMetric{"total_gpu_energy", "Total GPU Energy", "J", 730, 0}
	mTokensPerJoule = energyMetric{"output_tokens_per_joule", "Output Tokens per Joule", "tokens/J", 760, sdk.FlagLargerIsBetter | sdk.FlagProducesTokensOnly}
	mPerOutputToken = energyMetric{"energy_per_output_token", "Energy per Output Token", "mJ/token", 750, sdk.FlagProducesTokensOnly}
	mPerTotalToken  = energyMetric{"energy_per_total_token", "Energy per Total Token", "mJ/token", 745, 0}
	mPerRequest     = energyMetric{"energy_per_request", "Energy per Request", "joules/request", 755, 0}
	mPerUser        = energyMetric{"energy_per_user", "Energy per User", "joules/user", 765, 0}
	mDelayProduct   = energyMetric{"energy_delay_product", "Energy Delay Product", "J*s", 700, 0}
	mPerfPerWatt    = energyMetric{"performance_per_watt", "Performance per Watt", "requests/sec/W", 710, sdk.FlagLargerIsBetter}
	mTPSPerWatt     = energyMetric{"output_tps_per_watt", "Output Tokens per Second per Watt", "tokens/sec/W", 712, sdk.FlagLargerIsBetter | sdk.FlagProducesTokensOnly}
	mGoodputPerWatt = energyMetric{"goodput_per_watt", "Goodput per Watt", "good-req/s/W", 714, sdk.FlagLargerIsBetter}
)

// vendor is one platform's prefix, console group and telemetry fields.
type vendor struct {
	platform, group  string
	power, energy    string
	displayOrderPlus int
}

var vendors = []vendor{
	{"amd", GroupPowerEfficiencyAMD, gpufields.AMDPower, gpufields.AMDEnergyConsumption, 100},
	{"nvidia", GroupPowerEfficiencyNVIDIA, gpufields.PowerUsage, gpufields.EnergyConsumption, 0},
}

func (v vendor) result(m energyMetric, value float64) sdk.MetricResult {
	return sdk.MetricResult{Tag: v.platform + "_" + m.tag, Header: m.header, Unit: m.unit,
		Flags: m.flags, DisplayOrder: m.order + v.displayOrderPlus, ConsoleGroup: v.group, Avg: &value}
}

// gpuPoints is one GPU's samples in time order.
type gpuPoints struct {
	platform string
	series   []point
}

// EnergyMetrics is AIPerf 0.13's EnergyEfficiencyAnalyzer over ec: the
// nvidia_* (and amd_*) energy-efficiency results, in the order AIPerf
// appends them to the run's metrics. Energy is the sum over GPUs of the
// energy counter's delta over [start, requests end + FinalScrapeGrace]
// (baseline: the last sample before the start), else the summed mean power
// over [start, requests end] times the window's length; token counts,
// request count, latency and throughputs are the run's own results. Nil
// without GPU telemetry or when no GPU reported power or energy.
func EnergyMetrics(ec *sdk.ExportContext) []sdk.MetricResult {
	if ec == nil || ec.GPUTelemetry == nil || ec.Results == nil {
		return nil
	}
	res := ec.Results
	var startNs, endNs int64 = math.MinInt64, math.MaxInt64
	durationS := 0.0
	if !res.StartTime.IsZero() {
		startNs = res.StartTime.UnixNano()
	}
	if !res.EndTime.IsZero() {
		endNs = res.EndTime.UnixNano()
	}
	if startNs != math.MinInt64 && endNs != math.MaxInt64 && endNs > startNs {
		durationS = float64(endNs-startNs) / 1e9
	}
	gpus, firstTs, lastTs := collectGPUs(ec.GPUTelemetry)
	if len(gpus) == 0 {
		return nil
	}
	// An unbounded window still needs a duration: AIPerf takes the span of
	// the scrapes.
	if durationS <= 0 && lastTs > firstTs {
		durationS = float64(lastTs-firstTs) / 1e9
	}
	energyEnd := endNs
	if endNs != math.MaxInt64 {
		energyEnd = endNs + FinalScrapeGrace.Nanoseconds()
	}
	metric := func(tag string) (float64, bool) {
		m, ok := res.Metric(tag)
		if !ok || m.Avg == nil {
			return 0, false
		}
		return *m.Avg, true
	}
	concurrency := profilingConcurrency(ec.InputConfig)

	var out []sdk.MetricResult
	for _, v := range vendors { // AIPerf: sorted(platforms)
		var powerW, energyJ float64
		var powerN, energyN int
		present := false
		for _, g := range gpus {
			if g.platform != v.platform {
				continue
			}
			present = true
			if r, ok := fieldResult(g.series, gpufields.Field{Name: v.power}, startNs, endNs); ok {
				powerW += *r.Avg
				powerN++
			}
			if r, ok := fieldResult(g.series, gpufields.Field{Name: v.energy, Counter: true}, startNs, energyEnd); ok {
				energyJ += *r.Avg * 1e6 // MJ
				energyN++
			}
		}
		if !present {
			continue
		}
		if powerN > 0 {
			out = append(out, v.result(mTotalPower, powerW))
		}
		// AIPerf's _resolve_energy: the energy counter first, else power
		// integrated over the window.
		var totalJ, avgW float64
		switch {
		case energyN > 0 && energyJ > 0:
			totalJ = energyJ
			if durationS > 0 {
				avgW = energyJ / durationS
			}
		case powerN > 0 && powerW > 0 && durationS > 0:
			totalJ, avgW = powerW*durationS, powerW
		default:
			continue
		}
		if avgW > 0 {
			out = append(out, v.result(mAveragePower, avgW))
		}
		out = append(out, v.result(mTotalEnergy, totalJ))

		osl, _ := metric("total_osl")
		if osl != 0 {
			out = append(out, v.result(mTokensPerJoule, osl/totalJ), v.result(mPerOutputToken, totalJ*1000/osl))
		}
		isl, _ := metric("total_isl")
		if isl+osl > 0 {
			out = append(out, v.result(mPerTotalToken, totalJ*1000/(isl+osl)))
		}
		perRequest, havePerRequest := 0.0, false
		if n, _ := metric("request_count"); n != 0 {
			perRequest, havePerRequest = totalJ/n, true
			out = append(out, v.result(mPerRequest, perRequest))
		}
		if concurrency > 0 {
			out = append(out, v.result(mPerUser, totalJ/float64(concurrency)))
		}
		if lat, _ := metric("request_latency"); havePerRequest && lat != 0 {
			out = append(out, v.result(mDelayProduct, perRequest*lat/1000))
		}
		if avgW > 0 {
			// A zero throughput is a result here, unlike the counts above.
			if x, ok := metric("request_throughput"); ok {
				out = append(out, v.result(mPerfPerWatt, x/avgW))
			}
			if x, ok := metric("output_token_throughput"); ok {
				out = append(out, v.result(mTPSPerWatt, x/avgW))
			}
			if x, ok := metric("goodput"); ok {
				out = append(out, v.result(mGoodputPerWatt, x/avgW))
			}
		}
	}
	return out
}

// collectGPUs gathers every GPU's samples (one entry per source and UUID)
// in time order, and the first and last sample times of all sources.
func collectGPUs(all []sdk.GPUTelemetrySeries) (gpus []gpuPoints, firstTs, lastTs int64) {
	firstTs, lastTs = math.MaxInt64, math.MinInt64
	for _, series := range all {
		byUUID := map[string]int{}
		for _, smp := range series.Samples {
			firstTs, lastTs = min(firstTs, smp.TimestampNs), max(lastTs, smp.TimestampNs)
			for _, r := range smp.GPUs {
				i, ok := byUUID[r.UUID]
				if !ok {
					i = len(gpus)
					byUUID[r.UUID] = i
					gpus = append(gpus, gpuPoints{platform: gpufields.Platform(r.Metrics)})
				}
				gpus[i].series = append(gpus[i].series, point{smp.TimestampNs, r.Metrics})
			}
		}
	}
	for i := range gpus {
		slices.SortStableFunc(gpus[i].series, func(a, b point) int { return cmpInt(a.ts, b.ts) })
	}
	return gpus, firstTs, lastTs
}

// profilingConcurrency is the first profiling phase's concurrency in
// AIPerf's input_config (phases[].concurrency); 0 when unset (rate-only
// runs), which leaves energy_per_user out as AIPerf does.
func profilingConcurrency(cfg map[string]any) int {
	phases, _ := cfg["phases"].([]any)
	for _, p := range phases {
		ph, _ := p.(map[string]any)
		if ph == nil || ph["kind"] != "profiling" {
			continue
		}
		switch c := ph["concurrency"].(type) {
		case int:
			return max(c, 0)
		case int64:
			return int(max(c, 0))
		case float64:
			if c > 0 && c == math.Trunc(c) {
				return int(c)
			}
		}
		return 0
	}
	return 0
}
