package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/gate"
	"github.com/aiperf-go/aiperf/core/live"
	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/records"
	"github.com/aiperf-go/aiperf/core/redact"
	"github.com/aiperf-go/aiperf/core/telemetry"
	"github.com/aiperf-go/aiperf/core/validity"
	"github.com/aiperf-go/aiperf/core/version"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/google/uuid"
)

// Runner executes one profile run with fully built components.
type Runner struct {
	Settings  *Settings
	Log       *slog.Logger
	Endpoint  sdk.Endpoint
	Tokenizer sdk.Tokenizer
	Composer  sdk.DatasetComposer
	Transport sdk.Transport
	Host      *Host
	UI        sdk.UI
	// LogGate holds stderr log lines while a full-screen UI runs.
	LogGate *LogGate
	Outputs *Outputs
	RunInfo sdk.RunInfo
	// Stdout receives the console exporters' tables and the footer.
	Stdout io.Writer

	// warmupAccs fold the warmup phase's records (nil without one).
	warmupAccs []registry.Named[sdk.Accumulator]
	// phases are the bounds of the phases that ran, in run order.
	phases []sdk.PhaseInfo
	// schedule holds the fixed-schedule send offsets (trace replay only).
	schedule []time.Duration
	// sampler samples the telemetry collectors (nil when none).
	sampler *telemetry.Sampler
	// validity gathers the run-validity verdict's inputs (validity.go).
	validity *validity.Collector
	// graceCut counts the requests grace periods cut off (the footer says).
	graceCut int64
	// planHash is a shard's plan hash (shardstart.go; "" when not sharded).
	planHash string
}

// Outcome summarizes a finished run.
type Outcome struct {
	Results  *sdk.Results
	Exported []sdk.ExportedFile
	// ExitCode is the run's exit status (exitcodes.go); Verdict says why
	// it is not ExitOK.
	ExitCode int
	Verdict  string
	// Thresholds are the evaluated --threshold checks; Abort is why the
	// gate stopped the run early (nil: it did not).
	Thresholds []gate.Outcome
	Abort      *gate.Abort
	// Validity is the run-validity verdict (validity.json; nil when it
	// could not be evaluated).
	Validity *validity.Report
	// PlanHash identifies the plan a shard of a sharded run ran ("" when
	// not sharded; shardstart.go).
	PlanHash string
}

// Run composes the dataset, runs warmup and profiling, and exports results.
// Cancelling ctx stops sending; what was measured is still exported.
func (r *Runner) Run(ctx context.Context) (*Outcome, error) {
	s := r.Settings
	ec := r.exportContext()
	// Thresholds name metrics: checked against the run's catalog before
	// anything is composed or sent.
	if err := gate.Check(s.Gate.Thresholds, r.Outputs.Catalog); err != nil {
		return nil, err
	}

	opts := s.Dataset
	opts.Tokenizer = r.Tokenizer
	convs, err := r.Composer.Compose(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("compose dataset: %w", err)
	}
	addSystemPrompt(convs, s.SystemPrompt)
	if s.FixedSchedule {
		// Trace replay sends entries in time order, each at its offset (the
		// selection picked the sequential sampler).
		if convs, r.schedule, err = fixedSchedule(convs, s.ScheduleWindow); err != nil {
			return nil, err
		}
	}
	// Both phases are built (settings decoded and validated) before anything
	// is sent or written, so a bad setting costs no warmup and leaves no
	// empty result files.
	// Telemetry collectors are built with the phases, before anything is
	// sent (a bad source setting costs no requests).
	sampler, err := r.newSampler(ctx)
	if err != nil {
		return nil, err
	}
	r.sampler = sampler
	warmup, profiling, err := r.buildPhases(ctx)
	if err != nil {
		return nil, err
	}
	if warmup != nil {
		// A second set of accumulators folds the warmup records into
		// AIPerf's warmup_metrics and the phases/warmup exports.
		if r.warmupAccs, err = r.Outputs.PhaseAccumulators(ctx, r.Host, sdk.PhaseWarmup); err != nil {
			return nil, err
		}
	}
	popts := engine.PrepareOptions{
		Models: s.Models, Streaming: r.RunInfo.Streaming, UseLegacyMaxTokens: s.LegacyMaxToks,
		ExtraInputs: s.ExtraInputs, Tokenizer: r.Tokenizer, IncludeUsage: s.UseServerTokenCount,
		ModelSelection: s.ModelSelection, Seed: s.Seed,
	}
	reqs, inputs, err := engine.PrepareContext(ctx, r.Endpoint, convs, popts)
	if err != nil {
		return nil, err
	}
	if s.SkipInputs {
		ec.SkipInputs = true
		r.Log.Info("Skipping inputs.json generation (trace dataset)")
	} else {
		ec.Inputs = inputs
	}

	urls := r.endpointURLs()
	// Once, before the first request: the URL actually posted to, after
	// joining the endpoint path (secrets in its query redacted).
	for _, u := range urls {
		r.Log.Info("Sending requests to " + redact.URL(u))
	}
	eng, err := engine.New(r.Transport, nil, reqs, engine.Options{
		URLs: urls, Headers: r.headers(), Streaming: r.RunInfo.Streaming,
		Timeout: s.Timeout, Seed: s.Seed, Endpoint: r.Endpoint, Prepare: popts,
		ConnectionReuse: s.ConnectionReuse, Plugins: r.Host,
		VideoPollInterval: s.VideoPollInterval, DownloadVideoContent: s.DownloadVideoContent,
	})
	if err != nil {
		return nil, err
	}

	// Building the dataset left garbage (decoded files, intermediate
	// strings): return it now, then let the CLI switch the collector to its
	// timed-run policy (a soft limit that would otherwise fill with it).
	debug.FreeOSMemory()
	if s.BeforeSend != nil {
		s.BeforeSend()
	}

	if s.Shard.Count > 1 {
		// Everything is built and prepared: the shards start together.
		r.planHash = planHash(s.InputConfig, s.Seed, reqs)
		if err := r.awaitShards(ctx, r.planHash); err != nil {
			return nil, err
		}
	}
	sinks, err := r.openSinks(ec)
	if err != nil {
		return nil, err
	}
	// The gate's watch stops the phases (not the UI or telemetry) through
	// runCtx when --failed-request-threshold or a live threshold trips; it
	// runs on the record collector, off the timed path.
	runCtx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	watch := r.newWatch(stopRun)
	r.validity = r.newValidity()
	// A UI other than "none" gets live statistics beside the progress.
	var progress sdk.ProgressSource = eng
	var tap *live.Tap
	if s.Plugins.Names[sdk.CategoryUI] != "none" {
		tap = live.NewTap(r.Outputs.Catalog)
		progress = &live.Source{Progress: eng, Tap: tap, GPUs: sampler.Latest, Servers: sampler.ServerSources()}
	}
	pipe := records.NewPipeline(records.Config{
		Endpoint: r.Endpoint, Tokenizer: r.Tokenizer, Processors: plugins(r.Outputs.Processors),
		Accumulators: plugins(r.Outputs.Accumulators), WarmupAccumulators: plugins(r.warmupAccs), Sinks: recordSinks(sinks), Logger: r.Log, TokenSource: tokenSource(s),
		Catalog: r.Outputs.Catalog, ProcessorNames: ids(r.Outputs.Processors),
		Phases: metrics.PhaseLayout{Warmup: s.Warmup != nil}, Hooks: collectorHooks(tap, watch, r.validity),
		// Requests cut off by a grace period reach the per-record exports as
		// cancellations but no metric, live statistic, gate or validity
		// count: AIPerf leaves them out of its results.
		Exclude: engine.GraceCut,
	})

	r.UI.Start(ctx, progress)
	if t, ok := r.UI.(sdk.TerminalUI); ok && t.OwnsTerminal() && r.LogGate != nil {
		r.LogGate.Hold()
	}
	// The sampler runs on its own goroutines from before the first phase
	// to after the last one.
	sampler.Start(ctx)
	runErr := r.runPhases(runCtx, eng, pipe, warmup, profiling)
	if s.AfterSend != nil {
		s.AfterSend()
	}
	r.graceCut = eng.GraceCutCount()
	r.telemetryResults(sampler, ec)
	r.UI.Stop()
	if r.LogGate != nil {
		r.LogGate.Release(filepath.Join(s.ArtifactDir, s.Files.Log))
	}

	// How long record processing (parsing, token counting, metrics) trails
	// the last response: near zero means it kept up with the send rate.
	drainStart := time.Now()
	pipeErr := pipe.Close()
	r.Log.Info("record processing drained", "records", pipe.Records(), "lag_after_last_response", time.Since(drainStart).Round(time.Microsecond))
	for _, sink := range sinks {
		if err := sink.Close(); err != nil {
			pipeErr = errors.Join(pipeErr, fmt.Errorf("plugin %s: close record sink: %w", sink.id, err))
		}
	}
	results, err := summarize(r.Outputs.Accumulators)
	if err != nil {
		return nil, errors.Join(runErr, pipeErr, err)
	}
	profilingPhase := r.phase(sdk.PhaseProfiling)
	results.StartTime, results.EndTime = phaseTime(profilingPhase.StartNs), phaseTime(profilingPhase.EndNs)
	// An abort by the gate cancels the run as Ctrl-C does (AIPerf marks it
	// cancelled), even when it tripped on a record after the last send.
	results.WasCancelled = runCtx.Err() != nil
	ec.Results = results
	if r.warmupAccs != nil {
		if ec.Warmup, err = summarize(r.warmupAccs); err != nil {
			return nil, errors.Join(runErr, pipeErr, err)
		}
		w := r.phase(sdk.PhaseWarmup)
		ec.Warmup.StartTime, ec.Warmup.EndTime = phaseTime(w.StartNs), phaseTime(w.EndNs)
		ec.Warmup.WasCancelled = w.WasCancelled
	}

	// validity.json is written before the exports, so the results-ready
	// marker they end with covers it.
	vrep, vfiles, validityErr := r.validityReport(r.validity)
	// Export even when the run failed part-way: nothing measured is lost.
	exported, exportErr := r.export(ec)
	out := &Outcome{Results: results, Exported: append(exported, vfiles...), ExitCode: ExitOK, Validity: vrep, PlanHash: r.planHash}
	// The verdict (exit status, thresholds) and the CI reports come after
	// the exports, from the same results; the footer lists the reports.
	gateErr := r.gateVerdict(out, watch.Tripped())
	r.validityExit(out)
	r.printFooter(ec, out.Exported)
	r.printGate(r.Stdout, out)
	r.printValidity(r.Stdout, out)
	return out, errors.Join(runErr, pipeErr, exportErr, gateErr, validityErr)
}

// buildPhases builds the warmup phase (nil without one) and the profiling
// phase through the host.
func (r *Runner) buildPhases(ctx context.Context) (warmup, profiling *Phase, err error) {
	s := r.Settings
	if s.Warmup != nil {
		if warmup, err = buildPhase(ctx, r.Host, sdk.PhaseWarmup, *s.Warmup, s.Plugins.Name(sdk.CategoryRamp), nil); err != nil {
			return nil, nil, err
		}
	}
	if profiling, err = buildPhase(ctx, r.Host, sdk.PhaseProfiling, s.Profiling, s.Plugins.Name(sdk.CategoryRamp), r.schedule); err != nil {
		return nil, nil, err
	}
	for _, id := range r.Host.Unused() {
		r.Log.Warn("--plugin-config names a plugin this run does not use; its settings are ignored", "plugin", id)
	}
	return warmup, profiling, nil
}

func (r *Runner) runPhases(ctx context.Context, eng *engine.Engine, pipe *records.Pipeline, warmup, ph *Phase) error {
	s := r.Settings
	if warmup != nil {
		r.Log.Info("warmup phase", "mode", s.Warmup.Mode, "requests", warmup.Plan.RequestCount, "duration", warmup.Plan.Duration)
		eng.SetPhaseOptions(engine.PhaseOptions{RequestBudget: budgetShare(warmup.Budget, s.WarmupStripe), Stripe: s.WarmupStripe})
		// Warmup records are measured and exported per record and as
		// warmup_metrics, but never reach the profiling results.
		err := r.observed(ctx, sdk.PhaseWarmup, r.warmupAccs, func() error {
			return eng.RunPhaseWith(ctx, warmup.Strategy, warmup.Plan, pipe.Submit)
		})
		// A scrape at the warmup boundary separates its counters from
		// profiling's (AIPerf's end-of-warmup scrape).
		r.sampler.Boundary()
		if err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	r.Log.Info("profiling phase", "mode", s.Profiling.Mode, "requests", ph.Plan.RequestCount, "duration", ph.Plan.Duration,
		"concurrency", ph.Plan.Concurrency)
	eng.SetPhaseOptions(engine.PhaseOptions{RequestBudget: budgetShare(ph.Budget, s.ProfilingStripe), Stripe: s.ProfilingStripe, TurnGap: ph.TurnGap,
		CancellationRate: s.Cancellation.Rate, CancellationDelay: s.Cancellation.Delay})
	return r.observed(ctx, sdk.PhaseProfiling, r.Outputs.Accumulators, func() error {
		// The validity verdict's CPU time and windows are the phase's.
		r.validity.Begin()
		defer r.validity.End()
		return eng.RunPhaseWith(ctx, ph.Strategy, ph.Plan, pipe.Submit)
	})
}

// observed runs one phase and records its bounds: read on the records'
// clock, kept for the exports' start_time/end_time and phase_manifest.json,
// and told to the phase's accumulators that observe phases (the throughputs
// divide by this window, as AIPerf's do).
func (r *Runner) observed(ctx context.Context, phase string, accs []registry.Named[sdk.Accumulator], run func() error) error {
	notify := func(call func(sdk.PhaseObserver, string, int64)) int64 {
		ns := clock.WallNs(clock.Now())
		for _, acc := range accs {
			if o, ok := acc.Plugin.(sdk.PhaseObserver); ok {
				call(o, phase, ns)
			}
		}
		return ns
	}
	info := sdk.PhaseInfo{Name: phase, Kind: phase, Index: len(r.phases), ProfilingIndex: -1}
	if phase == sdk.PhaseProfiling {
		info.ProfilingIndex = 0
	}
	info.StartNs = notify(sdk.PhaseObserver.PhaseStarted)
	err := run()
	info.EndNs = notify(sdk.PhaseObserver.PhaseEnded)
	info.WasCancelled = ctx.Err() != nil
	r.phases = append(r.phases, info)
	return err
}

// phase returns the bounds of the named phase; zero when it did not run.
func (r *Runner) phase(name string) sdk.PhaseInfo {
	for _, p := range r.phases {
		if p.Name == name {
			return p
		}
	}
	return sdk.PhaseInfo{}
}

// phaseTime converts epoch ns to a time; zero stays the zero time.
func phaseTime(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// summarize merges the results of one phase's accumulators.
func summarize(accs []registry.Named[sdk.Accumulator]) (*sdk.Results, error) {
	var merged *sdk.Results
	for _, acc := range accs {
		res, err := acc.Plugin.Summarize()
		if err != nil {
			return nil, fmt.Errorf("plugin %s: summarize: %w", acc.ID(), err)
		}
		if merged == nil {
			merged = res
			continue
		}
		merged.Metrics = append(merged.Metrics, res.Metrics...)
	}
	if merged == nil {
		merged = &sdk.Results{}
	}
	return merged, nil
}

// namedSink is an opened record sink and the exporter it belongs to; its
// errors name that exporter.
type namedSink struct {
	sdk.RecordSink
	id string
}

func (s namedSink) WriteRecord(rec *sdk.RecordInfo) error {
	if err := s.RecordSink.WriteRecord(rec); err != nil {
		return fmt.Errorf("plugin %s: %w", s.id, err)
	}
	return nil
}

func (r *Runner) openSinks(ec *sdk.ExportContext) ([]namedSink, error) {
	var sinks []namedSink
	for _, ex := range r.Outputs.Exporters {
		sink, ok := ex.Plugin.(sdk.RecordSink)
		if !ok {
			continue
		}
		if err := sink.Open(ec); err != nil {
			for _, opened := range sinks {
				_ = opened.Close()
			}
			return nil, fmt.Errorf("plugin %s: open record sink: %w", ex.ID(), err)
		}
		sinks = append(sinks, namedSink{RecordSink: sink, id: ex.ID()})
	}
	return sinks, nil
}

// plugins drops the names of named plugins.
func plugins[T any](named []registry.Named[T]) []T {
	out := make([]T, len(named))
	for i, n := range named {
		out[i] = n.Plugin
	}
	return out
}

// ids names named plugins (category.name).
func ids[T any](named []registry.Named[T]) []string {
	out := make([]string, len(named))
	for i, n := range named {
		out[i] = n.ID()
	}
	return out
}

// recordSinks are the sinks the pipeline writes to.
func recordSinks(sinks []namedSink) []sdk.RecordSink {
	out := make([]sdk.RecordSink, len(sinks))
	for i, s := range sinks {
		out[i] = s
	}
	return out
}

// export runs the export step: the console exporters render into
// ec.ConsoleText (plain text, for the console_text exporter), the data
// exporters write their files, the console exporters print to stdout, and
// .aiperf_results_ready.json is written last, as AIPerf 0.13 does.
func (r *Runner) export(ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	var files []sdk.ExportedFile
	var errs []error
	// Exports run even after Ctrl-C: nothing measured is lost.
	ctx := context.Background()
	// A marker left by an earlier run in this directory must not announce
	// files this run is about to replace.
	marker := filepath.Join(ec.ArtifactDir, ResultsReadyFile)
	if err := os.Remove(marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove stale %s: %w", ResultsReadyFile, err))
	}
	// The text copy is rendered first, never on a terminal, so it holds no
	// colour codes; its errors show up again in the stdout pass below.
	var text bytes.Buffer
	for _, c := range r.Outputs.Consoles {
		_ = c.Plugin.Render(ctx, &text, ec)
	}
	ec.ConsoleText = text.Bytes()
	var failed []string
	for _, ex := range r.Outputs.Exporters {
		f, err := ex.Plugin.Export(ctx, ec)
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: export: %w", ex.ID(), err))
			failed = append(failed, ex.ID())
			continue
		}
		files = append(files, f...)
	}
	if len(r.phases) > 1 {
		// AIPerf writes per-phase artifacts and their index only when a
		// phase other than profiling ran (a warmup phase).
		phaseFailed, err := r.exportPhases(ctx, ec)
		failed = append(failed, phaseFailed...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range r.Outputs.Consoles {
		if err := c.Plugin.Render(ctx, r.Stdout, ec); err != nil {
			errs = append(errs, fmt.Errorf("plugin %s: render: %w", c.ID(), err))
		}
	}
	if err := writeResultsReady(marker, ec.Results.WasCancelled, failed); err != nil {
		errs = append(errs, err)
	}
	return files, errors.Join(errs...)
}

// ResultsReadyFile is AIPerf 0.13's completion marker in the artifact
// directory, written once every result file is in place.
const ResultsReadyFile = ".aiperf_results_ready.json"

// writeResultsReady writes the marker atomically with mode 0600, as AIPerf
// does: {"ready":true,"was_cancelled":…,"partial":…}, plus the exporters
// that failed when some did (the files that exported are still usable).
func writeResultsReady(path string, cancelled bool, failed []string) error {
	payload := struct {
		Ready           bool     `json:"ready"`
		WasCancelled    bool     `json:"was_cancelled"`
		Partial         bool     `json:"partial"`
		FailedExporters []string `json:"failed_exporters,omitempty"`
	}{true, cancelled, len(failed) > 0, failed}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	// CreateTemp makes the file 0600.
	tmp, err := os.CreateTemp(filepath.Dir(path), ResultsReadyFile+".partial-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", ResultsReadyFile, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", ResultsReadyFile, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", ResultsReadyFile, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", ResultsReadyFile, err)
	}
	return nil
}

func (r *Runner) printFooter(ec *sdk.ExportContext, files []sdk.ExportedFile) {
	w := r.Stdout
	fmt.Fprintf(w, "\nCLI Command: %s\n", r.Settings.CLICommand)
	cancelled := ""
	if ec.Results.WasCancelled {
		cancelled = " (cancelled early)"
	}
	duration := ec.Results.BenchmarkDurationS
	if p := r.phase(sdk.PhaseProfiling); duration == 0 && p.EndNs > p.StartNs {
		// No request completed (all cut off, say): the phase's span.
		duration = float64(p.EndNs-p.StartNs) / 1e9
	}
	fmt.Fprintf(w, "Benchmark Duration: %.2f sec%s\n", duration, cancelled)
	if r.graceCut > 0 {
		fmt.Fprintf(w, "%d requests were cut off by the grace period\n", r.graceCut)
	}
	for _, f := range files {
		fmt.Fprintf(w, "%s: %s\n", f.Label, f.Path)
	}
	fmt.Fprintf(w, "Log File: %s\n", filepath.Join(ec.ArtifactDir, ec.Files.Log))
	if ec.Results.WasCancelled {
		fmt.Fprintln(w, "The profile run was cancelled early. Results shown may be incomplete or inaccurate.")
	}
}

func (r *Runner) exportContext() *sdk.ExportContext {
	s := r.Settings
	seed := s.Seed
	return &sdk.ExportContext{
		ArtifactDir: s.ArtifactDir, Files: s.Files, ExportLevel: s.ExportLevel,
		Endpoint: r.RunInfo.Endpoint, Streaming: r.RunInfo.Streaming,
		AIPerfVersion: version.Version, BenchmarkID: newBenchmarkID(),
		CLICommand: s.CLICommand, RandomSeed: &seed, InputConfig: s.InputConfig,
	}
}

// newBenchmarkID is a run id as AIPerf 0.13 makes it: uuid4().hex[:12],
// 12 lowercase hex characters.
func newBenchmarkID() string {
	return strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
}

// endpointURLs joins each base URL with the endpoint path (or --endpoint).
func (r *Runner) endpointURLs() []string {
	meta := r.Endpoint.Metadata()
	path := meta.EndpointPath
	if r.RunInfo.Streaming && meta.StreamingPath != "" {
		path = meta.StreamingPath
	}
	if r.Settings.CustomEndpoint != "" {
		path = r.Settings.CustomEndpoint
	}
	urls := make([]string, len(r.Settings.URLs))
	for i, base := range r.Settings.URLs {
		// An endpoint without a path (template) posts to the URL as given,
		// as AIPerf does.
		if path == "" {
			urls[i] = base
			continue
		}
		// The path goes before the base URL's query (--url 'host?api-key=...'),
		// as AIPerf's urlsplit/urlunsplit join does.
		base, query, hasQuery := strings.Cut(base, "?")
		urls[i] = JoinEndpointPath(base, path)
		if hasQuery {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			urls[i] += sep + query
		}
	}
	return urls
}

// JoinEndpointPath appends an endpoint path to a base URL (without its
// query) as AIPerf 0.13's _dedup_path_overlap does, so the URLs people
// paste work: a base that already ends with the whole path (the full
// endpoint URL) is used as is, and an OpenAI "base URL" ending in /v1
// (also behind a gateway prefix, /openai/v1) does not get a second v1/.
// Overlap is an exact match on the raw path, as in AIPerf.
func JoinEndpointPath(base, path string) string {
	prefix, basePath := base, ""
	if i := strings.Index(base, "://"); i >= 0 {
		if j := strings.IndexByte(base[i+3:], '/'); j >= 0 {
			prefix, basePath = base[:i+3+j], base[i+3+j:]
		}
	}
	basePath = strings.TrimRight(basePath, "/")
	sub := strings.TrimLeft(path, "/")
	switch {
	case sub == "":
	case strings.HasSuffix(basePath, "/"+sub):
	default:
		if strings.HasSuffix(basePath, "/v1") && strings.HasPrefix(sub, "v1/") {
			sub = strings.TrimPrefix(sub, "v1/")
		}
		basePath += "/" + sub
	}
	return prefix + basePath
}

// headers builds the per-run headers: the endpoint's own (sdk.HeaderProvider)
// first, then user headers, then the ones AIPerf always controls
// (Content-Type is forced; Accept follows --streaming).
func (r *Runner) headers() map[string]string {
	h := map[string]string{"User-Agent": version.UserAgent()}
	hp, ownAuth := r.Endpoint.(sdk.HeaderProvider)
	if ownAuth {
		for k, v := range hp.Headers(r.Settings.APIKey) {
			h[http.CanonicalHeaderKey(k)] = v
		}
	}
	// UserHeaders already carry Authorization from --api-key (a -H of the
	// same name replaces it, as in AIPerf). Names are canonicalized so the
	// forced headers below replace a user's value whatever its spelling.
	bearer := "Bearer " + r.Settings.APIKey
	for k, v := range r.Settings.UserHeaders {
		k = http.CanonicalHeaderKey(k)
		// An endpoint with its own auth (Anthropic's x-api-key) gets no
		// Bearer header from --api-key; a -H Authorization with another
		// value is the user's and stays.
		if ownAuth && r.Settings.APIKey != "" && k == "Authorization" && v == bearer {
			continue
		}
		h[k] = v
	}
	// A form-data endpoint's Content-Type (with its boundary) is set by the
	// transport when it builds the form.
	if r.Endpoint == nil || !r.Endpoint.Metadata().RequiresFormData {
		h["Content-Type"] = "application/json"
	}
	if r.RunInfo.Streaming {
		h["Accept"] = "text/event-stream"
	} else {
		h["Accept"] = "application/json"
	}
	return h
}

func allFailed(res *sdk.Results) bool {
	ok, hasOK := res.Metric("request_count")
	_, hasErr := res.Metric("error_request_count")
	return hasErr && (!hasOK || ok.Avg == nil || *ok.Avg == 0)
}

// ensureDir creates the artifact directory.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create artifact directory %s: %w", dir, err)
	}
	return nil
}

func tokenSource(s *Settings) records.TokenSource {
	if s.UseServerTokenCount {
		return records.ServerUsage
	}
	return records.ClientTokenizer
}

// addSystemPrompt puts --system-prompt before every conversation's own
// system message (AIPerf's _inject_custom_system_prompt): the same text for
// every dataset, synthetic, file or public.
func addSystemPrompt(convs []sdk.Conversation, prompt string) {
	if prompt == "" {
		return
	}
	for i := range convs {
		if own := convs[i].SystemMessage; own != "" {
			convs[i].SystemMessage = prompt + systemPromptJoin + own
		} else {
			convs[i].SystemMessage = prompt
		}
	}
}

// systemPromptJoin separates --system-prompt from a dataset's own system
// message (AIPerf's SYSTEM_PROMPT_JOIN_SEP).
const systemPromptJoin = "\n\n"
