// Package telemetry samples the run's telemetry collectors (GPU telemetry
// and server metrics) on their own goroutines, off the timed path, and
// stamps every sample with the records' clock (core/clock).
package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/telemetry/servermetrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Defaults from AIPerf 0.13 (common/environment.py).
const (
	// DefaultInterval is AIPERF_GPU_COLLECTION_INTERVAL and
	// AIPERF_SERVER_METRICS_COLLECTION_INTERVAL (0.333 s).
	DefaultInterval = 333 * time.Millisecond
	// DefaultTimeout bounds one sample or scrape. AIPerf allows 30 s per
	// scrape; a shorter bound keeps a stalled target from holding the end
	// of the run (our choice, docs/METRICS.md).
	DefaultTimeout = 5 * time.Second
)

// Options tune a Sampler; zero values take the defaults.
type Options struct {
	Interval time.Duration
	Timeout  time.Duration
	Log      *slog.Logger
	// Optional are sources the user did not ask for (AIPerf's default DCGM
	// endpoints, tried on every run): their failure is an info line, not a
	// warning, since most hosts run no exporter there.
	Optional map[string]bool
}

// Result is what a stopped Sampler collected.
type Result struct {
	GPU []sdk.GPUTelemetrySeries
	// Server holds one store per server-metrics source, in the order given.
	Server []*servermetrics.Store
	// ServerSources are the server-metrics sources, in the order given.
	ServerSources []string
}

// Sampler runs every collector on its own goroutine.
type Sampler struct {
	opts    Options
	gpus    []*gpuSource
	servers []*serverSource

	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool
}

// source is what both kinds share: a ticker loop, a boundary trigger and
// one warning per source.
type source struct {
	name    string
	kick    chan chan struct{}
	warned  bool
	lastErr string
}

type gpuSource struct {
	source
	c sdk.GPUTelemetryCollector
	// samples is only touched by the source's goroutine until Stop.
	samples []sdk.GPUSample
	// latest is the newest sample, for live displays (Latest).
	latest atomic.Pointer[sdk.GPUSample]
}

type serverSource struct {
	source
	c     sdk.ServerMetricsCollector
	store *servermetrics.Store
}

// New returns a sampler over the given collectors; Start runs it.
func New(gpus []sdk.GPUTelemetryCollector, servers []sdk.ServerMetricsCollector, opts Options) *Sampler {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	s := &Sampler{opts: opts}
	for _, c := range gpus {
		s.gpus = append(s.gpus, &gpuSource{source: source{name: c.Source(), kick: make(chan chan struct{}, 1)}, c: c})
	}
	for _, c := range servers {
		s.servers = append(s.servers, &serverSource{source: source{name: c.Source(), kick: make(chan chan struct{}, 1)}, c: c,
			store: servermetrics.NewStore(c.Source())})
	}
	return s
}

// Empty says whether there is nothing to sample.
func (s *Sampler) Empty() bool { return s == nil || len(s.gpus)+len(s.servers) == 0 }

// Start samples every source now and then every Interval until Stop.
func (s *Sampler) Start(ctx context.Context) {
	if s.Empty() || s.started {
		return
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	var firsts []chan struct{}
	for _, g := range s.gpus {
		firsts = append(firsts, s.loop(ctx, &g.source, func(ctx context.Context) { s.sampleGPU(ctx, g) }))
	}
	for _, sv := range s.servers {
		firsts = append(firsts, s.loop(ctx, &sv.source, func(ctx context.Context) { s.scrape(ctx, sv) }))
	}
	// The first samples are the baseline the first phase's deltas start
	// from: wait for them (at most BoundaryWait) before anything is sent.
	waitAll(firsts, BoundaryWait)
}

// waitAll waits for every channel to close, at most d in all.
func waitAll(chs []chan struct{}, d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for _, c := range chs {
		select {
		case <-c:
		case <-deadline.C:
			return
		}
	}
}

// loop samples now and then every Interval (or when kicked) until ctx
// ends; the returned channel closes after the first sample.
func (s *Sampler) loop(ctx context.Context, src *source, sample func(context.Context)) chan struct{} {
	s.wg.Add(1)
	first := make(chan struct{})
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.opts.Interval)
		defer t.Stop()
		done := first
		for {
			sample(ctx)
			if done != nil {
				close(done)
				done = nil
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case done = <-src.kick:
			}
		}
	}()
	return first
}

// BoundaryWait bounds how long Boundary waits for its samples.
const BoundaryWait = time.Second

// Boundary takes a sample of every source now (a phase ended) and waits
// for them, at most BoundaryWait: the ended phase's window extends to it
// and the next phase's deltas start from it, as AIPerf's end-of-warmup
// scrape. It runs between phases, never while requests are timed.
func (s *Sampler) Boundary() {
	if s.Empty() || !s.started {
		return
	}
	var dones []chan struct{}
	kick := func(c chan chan struct{}) {
		d := make(chan struct{})
		select {
		case c <- d:
			dones = append(dones, d)
		default: // one is already pending
		}
	}
	for _, g := range s.gpus {
		kick(g.kick)
	}
	for _, sv := range s.servers {
		kick(sv.kick)
	}
	waitAll(dones, BoundaryWait)
}

// Stop ends sampling, takes one final sample of every source (bounded by
// Timeout, in parallel) so the last phase's counters include its end, and
// returns everything collected.
func (s *Sampler) Stop() Result {
	var r Result
	if s.Empty() {
		return r
	}
	if s.started {
		s.cancel()
		s.wg.Wait()
		var wg sync.WaitGroup
		for _, g := range s.gpus {
			wg.Go(func() { s.sampleGPU(context.Background(), g) })
		}
		for _, sv := range s.servers {
			wg.Go(func() { s.scrape(context.Background(), sv) })
		}
		wg.Wait()
		s.started = false
	}
	for _, g := range s.gpus {
		r.GPU = append(r.GPU, sdk.GPUTelemetrySeries{Source: g.name, Samples: g.samples, Error: g.lastErr})
	}
	for _, sv := range s.servers {
		r.Server = append(r.Server, sv.store)
		r.ServerSources = append(r.ServerSources, sv.name)
	}
	return r
}

// fail warns once per source, naming it; later failures only update
// lastErr.
func (s *Sampler) fail(src *source, kind string, err error) {
	src.lastErr = err.Error()
	if src.warned {
		return
	}
	src.warned = true
	if s.opts.Optional[src.name] {
		s.opts.Log.Info(kind+" default source not reachable; the run goes on without it", "url", src.name, "error", err)
		return
	}
	s.opts.Log.Warn(kind+" source failed; the run goes on without it until it answers", "url", src.name, "error", err)
}

func (s *Sampler) sampleGPU(parent context.Context, g *gpuSource) {
	ctx, cancel := context.WithTimeout(parent, s.opts.Timeout)
	defer cancel()
	readings, err := safeCall(func() ([]sdk.GPUReading, error) { return g.c.Sample(ctx) })
	if err != nil && parent.Err() != nil {
		return // Stop interrupted it: not the source's fault (Stop samples again)
	}
	if err != nil {
		s.fail(&g.source, "GPU telemetry", err)
		return
	}
	if len(readings) == 0 {
		return // nothing new (a DCGM exporter that had not refreshed)
	}
	perf := clock.Now()
	g.samples = append(g.samples, sdk.GPUSample{PerfNs: perf, TimestampNs: clock.WallNs(perf), GPUs: readings})
	g.latest.Store(&g.samples[len(g.samples)-1])
}

// ServerSources names the server-metrics sources being scraped.
func (s *Sampler) ServerSources() []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s.servers))
	for i, sv := range s.servers {
		out[i] = sv.name
	}
	return out
}

// Latest returns the newest reading of every GPU, source by source, for a
// live display; safe to call while sampling runs. A metric the GPU did not
// report is NaN.
func (s *Sampler) Latest() []sdk.LiveGPU {
	if s == nil {
		return nil
	}
	var out []sdk.LiveGPU
	for _, g := range s.gpus {
		sample := g.latest.Load()
		if sample == nil {
			continue
		}
		for _, r := range sample.GPUs {
			out = append(out, sdk.LiveGPU{Source: g.name, Index: r.Index, Name: r.Name,
				PowerW: first(r.Metrics, "nvidia_power_usage", "amd_power"), UtilPct: first(r.Metrics, "nvidia_gpu_utilization", "amd_gfx_activity"),
				MemUsedGB: first(r.Metrics, "nvidia_memory_used", "amd_memory_used"), MemUtilPct: first(r.Metrics, "nvidia_memory_utilization", "amd_umc_activity"),
				TempC: first(r.Metrics, "nvidia_temperature", "amd_temperature")})
		}
	}
	return out
}

// first is the first of keys (AIPerf 0.13's GPU telemetry field names,
// NVIDIA then AMD) that the reading has; NaN when none.
func first(m map[string]float64, keys ...string) float64 {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return math.NaN()
}

func (s *Sampler) scrape(parent context.Context, sv *serverSource) {
	ctx, cancel := context.WithTimeout(parent, s.opts.Timeout)
	defer cancel()
	sent := clock.Now()
	sc, err := safeCall(func() (sdk.ServerMetricsScrape, error) { return sv.c.Scrape(ctx) })
	got := clock.Now()
	if err != nil && parent.Err() != nil {
		return // Stop interrupted it: not the source's fault (Stop scrapes again)
	}
	if err != nil {
		s.fail(&sv.source, "server metrics", err)
		return
	}
	fams, err := servermetrics.Parse(sc.Body)
	if err != nil {
		s.fail(&sv.source, "server metrics", fmt.Errorf("parse %s response (%d bytes): %w", sc.ContentType, len(sc.Body), err))
		return
	}
	if len(fams) == 0 {
		s.fail(&sv.source, "server metrics", fmt.Errorf("no metrics in the response (%d bytes)", len(sc.Body)))
		return
	}
	sv.store.Add(clock.WallNs(got), got-sent, sc.Body, fams)
}

// safeCall keeps a plugin's panic from ending the run.
func safeCall[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("collector panicked: %v", p)
		}
	}()
	return f()
}
