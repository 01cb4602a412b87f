package config

import (
	"strconv"
	"strings"
	"time"
)

// Names of the extension section that holds our settings AIPerf 0.13's
// configuration has no field for, and of the built-in defaults compared
// against when deciding whether a setting was left alone.
const (
	inputConfigExtension = "aiperf_go"
	defaultStrategy      = "round_robin"
)

// InputConfig returns the resolved configuration for input_config in the
// JSON export, in AIPerf 0.13's nested layout: the BenchmarkConfig its CLI
// converter (aiperf/config/flags/converter.py) builds from the same flags,
// dumped the way its JSON exporter dumps it (exclude_unset). The sections
// are models, endpoint, datasets, phases, artifacts, slos (with --goodput),
// tokenizer (with a tokenizer flag), gpu_telemetry, server_metrics,
// network_latency, otel, mlflow, wandb, runtime and logging (with a
// non-default log level).
//
// AIPerf writes only the fields a flag set; this configuration cannot
// always tell a flag given with its default value from an untouched one,
// so a setting at its default is left out, except where AIPerf always
// writes it (endpoint.type, the telemetry sections, artifacts.auto_plot).
// Counts are ints; what AIPerf types as floats (sequence-length and turn
// means, rates, durations, SLOs) is float64; an infinite grace period is
// nil (AIPerf writes null). Our own settings AIPerf has no field for
// (--ramp-type, --tokenizer-plugin, --plugins, --plugin-config) go into an
// "aiperf_go" section when not at their defaults. Every secret is
// "<redacted>": the api key, credential headers, credential-looking extra
// inputs and plugin settings, and URL userinfo and credential query
// parameters. The map is fresh: callers may keep or modify it.
func (c *RunConfig) InputConfig() map[string]any {
	m := map[string]any{
		"models":          c.modelsSection(),
		"endpoint":        c.endpointSection(),
		"datasets":        []any{c.datasetSection()},
		"phases":          c.phasesSection(),
		"artifacts":       c.artifactsSection(),
		"gpu_telemetry":   c.gpuTelemetrySection(),
		"server_metrics":  map[string]any{"enabled": true, "urls": []any{}, "formats": []any{"json", "csv"}},
		"network_latency": map[string]any{"enabled": false},
		"otel":            map[string]any{},
		"mlflow":          map[string]any{},
		"wandb":           map[string]any{},
	}
	if slos := c.slosSection(); len(slos) > 0 {
		m["slos"] = slos
	}
	if tok := c.tokenizerSection(); len(tok) > 0 {
		m["tokenizer"] = tok
	}
	if c.UIType != "" {
		m["runtime"] = map[string]any{"ui": c.UIType}
	}
	if lvl := strings.ToUpper(c.LogLevel); lvl != "" && !isDefault(keyLogLevel, lvl) {
		m["logging"] = map[string]any{"level": lvl}
	}
	if ext := c.extensionSection(); len(ext) > 0 {
		m[inputConfigExtension] = ext
	}
	return m
}

// isDefault reports whether v is the option's default value.
func isDefault(key string, v any) bool {
	o := optionByKey[key]
	return o != nil && o.def == v
}

func (c *RunConfig) modelsSection() map[string]any {
	items := make([]any, len(c.ModelNames))
	for i, n := range c.ModelNames {
		items[i] = map[string]any{"name": n}
	}
	m := map[string]any{"items": items}
	if s := c.ModelSelectionStrategy; s != "" && s != defaultStrategy {
		m["strategy"] = s
	}
	return m
}

func (c *RunConfig) endpointSection() map[string]any {
	urls := c.URLs()
	list := make([]any, len(urls))
	for i, u := range urls {
		list[i] = redactURL(u)
	}
	ep := map[string]any{"urls": list, "type": c.EndpointType}
	if s := c.URLStrategy; s != "" && s != defaultStrategy {
		ep["url_strategy"] = s
	}
	if c.CustomEndpoint != "" {
		ep["path"] = redactURL(c.CustomEndpoint)
	}
	if c.APIKey != "" {
		ep["api_key"] = Redacted
	}
	if !isDefault(keyRequestTimeout, c.RequestTimeoutSeconds) && c.RequestTimeoutSeconds != 0 {
		ep["timeout"] = c.RequestTimeoutSeconds
	}
	if c.Streaming {
		ep["streaming"] = true
	}
	if c.Transport != "" && !isDefault(keyTransport, c.Transport) {
		ep["transport"] = c.Transport
	}
	if c.ConnectionReuseStrategy != "" && !isDefault(keyConnectionReuse, c.ConnectionReuseStrategy) {
		ep["connection_reuse"] = c.ConnectionReuseStrategy
	}
	if c.UseLegacyMaxTokens {
		ep["use_legacy_max_tokens"] = true
	}
	if c.UseServerTokenCount {
		ep["use_server_token_count"] = true
	}
	if h := c.userHeaders(); len(h) > 0 {
		red := make(map[string]any, len(h))
		for k, v := range h {
			if isSensitiveName(k) {
				v = Redacted
			}
			red[k] = v
		}
		ep["headers"] = red
	}
	if x := c.ExtraInputs(); len(x) > 0 {
		ep["extra"] = redactValues(x)
	}
	if c.DownloadVideoContent {
		ep["download_video_content"] = true
	}
	if ct := c.inputContentType(); ct != "" {
		ep["request_content_type"] = ct
	}
	return ep
}

// datasetSection is datasets[0], "main": a synthetic dataset, or a file
// dataset with --input-file.
func (c *RunConfig) datasetSection() map[string]any {
	if c.PublicDataset != "" {
		return c.publicDatasetSection()
	}
	d := map[string]any{"name": "main"}
	file := c.InputFile != ""
	if file {
		d["type"] = "file"
		d["path"] = c.InputFile
		if c.CustomDatasetType != "" {
			d["format"] = c.CustomDatasetType
		}
	} else {
		d["type"] = "synthetic"
	}
	if c.DatasetSamplingStrategy != "" {
		d["sampling"] = c.DatasetSamplingStrategy
	}
	// AIPerf writes entries only when a count flag sized the dataset.
	if c.NumDatasetEntriesSet || c.NumSessions != nil || c.RequestCount != nil {
		d["entries"] = c.EffectiveNumDatasetEntries()
	}
	if c.RandomSeed != nil {
		d["random_seed"] = *c.RandomSeed
	}
	// AIPerf keeps these on every dataset type (SystemPromptMixin).
	if c.SystemPrompt != "" {
		d["system_prompt"] = c.SystemPrompt
	}
	if c.SystemPromptFile != "" {
		d["system_prompt_file"] = c.SystemPromptFile
	}
	osl := c.oslSection()
	if file {
		if osl != nil {
			d["osl"] = osl
		}
		if c.ISLBlockSize != nil {
			d["block_size"] = *c.ISLBlockSize
		}
		if syn := c.synthesisSection(); len(syn) > 0 {
			d["synthesis"] = syn
		}
		if c.CustomDatasetType == DatasetRandomPool {
			setInt(d, "prompt_batch_size", c.PromptBatchSize)
			setInt(d, "image_batch_size", c.ImageBatchSize)
			setInt(d, "audio_batch_size", c.AudioBatchSize)
			setInt(d, "video_batch_size", c.VideoBatchSize)
		}
		return d
	}
	isl := map[string]any{"mean": float64(c.InputTokensMean)}
	if c.InputTokensStddev != 0 {
		isl["stddev"] = c.InputTokensStddev
	}
	prompts := map[string]any{"isl": isl}
	if osl != nil {
		prompts["osl"] = osl
	}
	if c.ISLBlockSize != nil {
		prompts["block_size"] = *c.ISLBlockSize
	}
	setInt(prompts, "batch_size", c.PromptBatchSize)
	d["prompts"] = prompts
	c.addPrefixPromptSections(d, prompts)
	if c.SessionTurnsMean != defaultSessionTurnsMean || c.SessionTurnsStddev != 0 {
		d["turns"] = map[string]any{"mean": float64(c.SessionTurnsMean), "stddev": float64(c.SessionTurnsStddev)}
	}
	if c.TurnDelayMeanMs != 0 || c.TurnDelayStddevMs != 0 {
		d["turn_delay"] = map[string]any{"mean": c.TurnDelayMeanMs, "stddev": c.TurnDelayStddevMs}
	}
	if !isDefault(keyTurnDelayRatio, c.TurnDelayRatio) {
		d["turn_delay_ratio"] = c.TurnDelayRatio
	}
	c.addMediaSections(d)
	return d
}

func (c *RunConfig) oslSection() map[string]any {
	if c.OutputTokensMean == nil {
		return nil
	}
	osl := map[string]any{"mean": float64(*c.OutputTokensMean)}
	if c.OutputTokensStddev != 0 {
		osl["stddev"] = c.OutputTokensStddev
	}
	return osl
}

// phasesSection is the warmup phase (when a warmup trigger is set) and the
// profiling phase, built like AIPerf's build_warmup and build_profiling.
func (c *RunConfig) phasesSection() []any {
	var phases []any
	if c.HasWarmup() {
		phases = append(phases, c.warmupPhase())
	}
	return append(phases, c.profilingPhase())
}

func (c *RunConfig) profilingPhase() map[string]any {
	p := map[string]any{"name": "profiling", "kind": "profiling"}
	mode := c.Mode()
	switch mode {
	case ModeFixedSchedule:
		p["type"] = "fixed_schedule"
	case ModeUserCentric:
		p["type"] = "user_centric"
	case ModeRequestRate:
		p["type"] = ratePhaseType(c.configuredArrivalPattern())
	default:
		p["type"] = "concurrency"
	}
	if c.RequestCount != nil {
		p["requests"] = *c.RequestCount
	} else if mode == ModeFixedSchedule && c.trace.entries > 0 {
		p["requests"] = c.trace.entries // AIPerf: the trace's record count
	}
	if c.BenchmarkDuration != nil {
		p["duration"] = *c.BenchmarkDuration
		p["grace_period"] = graceSeconds(c.profilingGrace())
	}
	setInt(p, "sessions", c.NumSessions)
	setInt(p, "concurrency", c.Concurrency)
	setInt(p, "prefill_concurrency", c.PrefillConcurrency)
	setRamp(p, "concurrency_ramp", c.ConcurrencyRampDuration)
	setRamp(p, "prefill_ramp", c.PrefillConcurrencyRampDuration)
	if r := c.RequestCancellationRate; r != nil && *r > 0 {
		cancel := map[string]any{"rate": *r}
		if c.RequestCancellationDelay != nil {
			cancel["delay"] = *c.RequestCancellationDelay
		}
		p["cancellation"] = cancel
	}
	if rate := firstSet(c.UserCentricRate, c.RequestRate); rate != nil {
		p["rate"] = *rate
		setRamp(p, "rate_ramp", c.RequestRateRampDuration)
	}
	if p["type"] == "gamma" && c.ArrivalSmoothness != nil {
		p["smoothness"] = *c.ArrivalSmoothness
	}
	setInt(p, "users", c.NumUsers)
	if mode == ModeFixedSchedule {
		if c.FixedScheduleAutoOffset != nil {
			p["auto_offset"] = *c.FixedScheduleAutoOffset
		} else if c.FixedScheduleStartOffset != nil {
			p["auto_offset"] = false
		}
		setInt(p, "start_offset", c.FixedScheduleStartOffset)
		setInt(p, "end_offset", c.FixedScheduleEndOffset)
	}
	return p
}

// warmupPhase mirrors AIPerf's build_warmup: every trigger that is set,
// the rate, pattern and concurrency inherited from the profiling flags
// when the warmup ones are unset, and concurrency 1 for a concurrency
// warmup without any ceiling. The inherited pattern is the one our warmup
// runs (Warmup): gamma when only --arrival-smoothness is given, where
// AIPerf's converter records poisson.
func (c *RunConfig) warmupPhase() map[string]any {
	w := map[string]any{"name": "warmup", "kind": "warmup", "exclude_from_results": true}
	setInt(w, "requests", c.WarmupRequestCount)
	setInt(w, "sessions", c.NumWarmupSessions)
	if c.WarmupDuration != nil {
		w["duration"] = *c.WarmupDuration
	}
	pattern := c.WarmupArrivalPattern
	if pattern == "" {
		pattern = c.configuredArrivalPattern()
	}
	conc := firstSet(c.WarmupConcurrency, c.Concurrency)
	rate := firstSet(c.WarmupRequestRate, c.RequestRate)
	if rate != nil {
		w["rate"] = *rate
		w["type"] = ratePhaseType(pattern)
		if pattern == ArrivalGamma && c.ArrivalSmoothness != nil {
			w["smoothness"] = *c.ArrivalSmoothness
		}
		setInt(w, "concurrency", conc)
		setRamp(w, "rate_ramp", firstSet(c.WarmupRequestRateRampDuration, c.RequestRateRampDuration))
	} else {
		w["type"] = "concurrency"
		if conc == nil && firstSet(c.WarmupPrefillConcurrency, c.PrefillConcurrency) == nil {
			w["concurrency"] = defaultConcurrency
		}
		setInt(w, "concurrency", conc)
	}
	setRamp(w, "concurrency_ramp", firstSet(c.WarmupConcurrencyRampDuration, c.ConcurrencyRampDuration))
	setRamp(w, "prefill_ramp", firstSet(c.WarmupPrefillConcurrencyRampDuration, c.PrefillConcurrencyRampDuration))
	setInt(w, "prefill_concurrency", firstSet(c.WarmupPrefillConcurrency, c.PrefillConcurrency))
	if c.WarmupGracePeriod != nil {
		w["grace_period"] = graceSeconds(grace(*c.WarmupGracePeriod))
	}
	return w
}

// ratePhaseType is AIPerf's phase type of a rate-driven phase: gamma,
// constant, else poisson (also for concurrency_burst, as AIPerf's
// converter maps it).
func ratePhaseType(pattern string) string {
	switch pattern {
	case ArrivalGamma, ArrivalConstant:
		return pattern
	}
	return ArrivalPoisson
}

func setInt(m map[string]any, key string, v *int) {
	if v != nil {
		m[key] = *v
	}
}

// setRamp writes a ramp as AIPerf does: {"duration": seconds}.
func setRamp(m map[string]any, key string, v *float64) {
	if v != nil {
		m[key] = map[string]any{"duration": *v}
	}
}

// graceSeconds is a resolved grace period in seconds, nil when infinite.
func graceSeconds(d time.Duration) any {
	if d < 0 {
		return nil
	}
	return d.Seconds()
}

func (c *RunConfig) artifactsSection() map[string]any {
	a := map[string]any{}
	if c.ArtifactDirSet {
		a["dir"] = c.ArtifactDir
	}
	if stem := exportStem(c.ProfileExportPrefix); stem != "" {
		a["prefix"] = stem
	}
	switch c.ExportLevel {
	case "raw":
		a["records"] = []any{"jsonl"}
		a["raw"] = true
	case "summary":
		a["records"] = false
		a["raw"] = false
	}
	// AIPerf's converter copies the two trace flags when given:
	// --export-http-trace as artifacts.trace, --show-trace-timing as
	// artifacts.show_trace_timing.
	if c.ExportHTTPTrace {
		a["trace"] = true
	}
	if c.SliceDuration > 0 {
		a["slice_duration"] = c.SliceDuration
	}
	if c.ShowTraceTiming {
		a["show_trace_timing"] = true
	}
	a["auto_plot"] = false
	a["plot_required"] = false
	return a
}

// slosSection is --goodput as AIPerf's slos: {metric tag: threshold}.
// Items that do not parse are left out (validation reports them).
func (c *RunConfig) slosSection() map[string]any {
	slos := map[string]any{}
	for _, item := range strings.Fields(c.Goodput) {
		tag, val, ok := strings.Cut(item, ":")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil && tag != "" {
			slos[tag] = f
		}
	}
	return slos
}

func (c *RunConfig) tokenizerSection() map[string]any {
	t := map[string]any{}
	if c.Tokenizer != "" {
		t["name"] = c.Tokenizer
	}
	if c.TokenizerRevision != "" && !isDefault(keyTokenizerRevision, c.TokenizerRevision) {
		t["revision"] = c.TokenizerRevision
	}
	if c.TokenizerTrustRemoteCode {
		t["trust_remote_code"] = true
	}
	return t
}

// extensionSection holds our settings AIPerf has no field for, when they
// are not at their defaults.
func (c *RunConfig) extensionSection() map[string]any {
	x := map[string]any{}
	if c.RampType != "" && !isDefault(keyRampType, c.RampType) {
		x["ramp_type"] = c.RampType
	}
	if c.TokenizerPlugin != "" && !isDefault(keyTokenizerPlugin, c.TokenizerPlugin) {
		x["tokenizer_plugin"] = c.TokenizerPlugin
	}
	if len(c.Plugins) > 0 {
		x["plugins"] = append([]string(nil), c.Plugins...)
	}
	if len(c.PluginConfig) > 0 {
		x["plugin_config"] = redactPluginConfig(c.PluginConfig)
	}
	return x
}

// gpuTelemetrySection is AIPerf's build_gpu_telemetry: {"enabled": false}
// with --no-gpu-telemetry, {"enabled": true} without --gpu-telemetry, else
// the URL items as given (http:// added, no /metrics: the defaults are not
// listed), the collector ("dcgm" or "pynvml") and the mode ("summary", or
// "realtime_dashboard" with the dashboard keyword).
func (c *RunConfig) gpuTelemetrySection() map[string]any {
	if c.NoGPUTelemetry {
		return map[string]any{"enabled": false}
	}
	collector, mode, urls, given := "dcgm", "summary", []any{}, false
	for _, item := range c.GPUTelemetryItems {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		given = true
		switch low := strings.ToLower(item); {
		case low == "pynvml" || low == "nvml":
			collector = "pynvml"
		case low == "dashboard":
			mode = "realtime_dashboard"
		case strings.HasPrefix(item, "http"):
			urls = append(urls, item)
		case strings.Contains(item, ":"):
			urls = append(urls, "http://"+item)
		}
	}
	if !given {
		return map[string]any{"enabled": true}
	}
	return map[string]any{"enabled": true, "urls": urls, "collector": collector, "mode": mode}
}
