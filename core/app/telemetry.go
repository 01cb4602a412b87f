package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/telemetry"
	"github.com/aiperf-go/aiperf/core/telemetry/servermetrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// DefaultServerMetricsCollector is the server_metrics_collector built for
// each --server-metrics URL when none is selected.
const DefaultServerMetricsCollector = "prometheus"

// newSampler builds one collector per telemetry source (settings
// {"url": source}) and a sampler over them; nil when telemetry is off.
func (r *Runner) newSampler(ctx context.Context) (*telemetry.Sampler, error) {
	s := r.Settings
	var gpus []sdk.GPUTelemetryCollector
	optional := map[string]bool{}
	if s.GPUTelemetryCollector != "" {
		for _, src := range s.GPUTelemetryURLs {
			c, err := Use(ctx, r.Host, sdk.GPUTelemetryCollectors, s.GPUTelemetryCollector, map[string]any{"url": src}, "")
			if err != nil {
				return nil, fmt.Errorf("GPU telemetry source %s: %w", src, err)
			}
			gpus = append(gpus, c)
			if slices.Contains(config.DefaultDCGMURLs, src) {
				optional[c.Source()] = true
			}
		}
	}
	var servers []sdk.ServerMetricsCollector
	name := s.Plugins.Name(sdk.CategoryServerMetrics)
	if name == "" {
		name = DefaultServerMetricsCollector
	}
	for _, u := range s.ServerMetricsURLs {
		c, err := Use(ctx, r.Host, sdk.ServerMetricsCollectors, name, map[string]any{"url": u}, "")
		if err != nil {
			return nil, fmt.Errorf("--server-metrics %s: %w", u, err)
		}
		servers = append(servers, c)
	}
	if len(gpus)+len(servers) == 0 {
		return nil, nil
	}
	return telemetry.New(gpus, servers, telemetry.Options{Interval: s.TelemetryInterval, Log: r.Log, Optional: optional}), nil
}

// telemetryResults stops the sampler and puts what it collected into ec:
// GPU series as sampled, server metrics computed over the phase windows.
func (r *Runner) telemetryResults(sampler *telemetry.Sampler, ec *sdk.ExportContext) {
	if sampler == nil {
		return
	}
	res := sampler.Stop()
	if len(res.GPU) > 0 {
		ec.GPUTelemetry = res.GPU
	}
	if len(res.Server) == 0 {
		return
	}
	prof := r.phase(sdk.PhaseProfiling)
	var warm *servermetrics.Window
	if w := r.phase(sdk.PhaseWarmup); w.StartNs != 0 {
		warm = &servermetrics.Window{StartNs: w.StartNs, EndNs: w.EndNs}
	}
	slice, _ := r.Settings.Plugins.Settings[sdk.Accumulators.Name+".metric_results"]["slice_duration"].(float64) // --slice-duration
	ec.ServerMetrics = servermetrics.Build(res.Server, res.ServerSources,
		servermetrics.Window{StartNs: prof.StartNs, EndNs: prof.EndNs}, warm, r.Settings.ServerMetricsFormats,
		servermetrics.WithSliceDuration(slice))
	for _, st := range res.Server {
		if st.Info().TotalFetches == 0 {
			r.Log.Warn("server metrics: no successful scrape during the run", "url", st.URL)
		}
	}
}
