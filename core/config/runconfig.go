package config

import "strings"

// RunConfig is the resolved configuration of one `aiperf profile` run.
// Pointer fields are nil when the user did not set them (unset differs from
// any default); the Effective* methods apply AIPerf's computed defaults.
type RunConfig struct {
	// Endpoint
	ModelNames            []string `koanf:"model_names"`
	URL                   []string `koanf:"url"`
	EndpointType          string   `koanf:"endpoint_type"`
	CustomEndpoint        string   `koanf:"custom_endpoint"`
	Streaming             bool     `koanf:"streaming"`
	APIKey                string   `koanf:"api_key"`
	RequestTimeoutSeconds float64  `koanf:"request_timeout_seconds"`
	UseLegacyMaxTokens    bool     `koanf:"use_legacy_max_tokens"`
	UseServerTokenCount   bool     `koanf:"use_server_token_count"`
	// Strategies (resolved to lower case by Load).
	ModelSelectionStrategy  string `koanf:"model_selection_strategy"`
	URLStrategy             string `koanf:"url_strategy"`
	ConnectionReuseStrategy string `koanf:"connection_reuse_strategy"`
	// DownloadVideoContent (--download-video-content) fetches a generated
	// video after its job completes. RequestContentType
	// (--request-content-type) is "" when not given; CheckEndpoint resolves
	// it against the endpoint type.
	DownloadVideoContent bool   `koanf:"download_video_content"`
	RequestContentType   string `koanf:"request_content_type"`

	// Input. Header and ExtraInputsRaw keep the raw items; use Headers() and
	// ExtraInputs() for the parsed maps.
	Header         []string `koanf:"header"`
	ExtraInputsRaw []string `koanf:"extra_inputs"`
	RandomSeed     *int64   `koanf:"random_seed"`
	// Goodput is the raw --goodput string; core/metrics.ParseGoodput checks it.
	Goodput string `koanf:"goodput"`

	// Dataset files and trace replay. FixedSchedule and NoFixedSchedule are
	// nil unless the user set them; use FixedSchedule() for the decision.
	// Empty strings mean unset.
	InputFile                string `koanf:"input_file"`
	FixedScheduleFlag        *bool  `koanf:"fixed_schedule"`
	FixedScheduleAutoOffset  *bool  `koanf:"fixed_schedule_auto_offset"`
	FixedScheduleStartOffset *int   `koanf:"fixed_schedule_start_offset"`
	FixedScheduleEndOffset   *int   `koanf:"fixed_schedule_end_offset"`
	NoFixedSchedule          bool   `koanf:"no_fixed_schedule"`
	CustomDatasetType        string `koanf:"custom_dataset_type"`
	PublicDataset            string `koanf:"public_dataset"`
	HFSubset                 string `koanf:"hf_dataset_subset"`
	DatasetSamplingStrategy  string `koanf:"dataset_sampling_strategy"`

	// Sequence lengths and dataset size.
	InputTokensMean    int     `koanf:"prompt_input_tokens_mean"`
	InputTokensStddev  float64 `koanf:"prompt_input_tokens_stddev"`
	OutputTokensMean   *int    `koanf:"prompt_output_tokens_mean"`
	OutputTokensStddev float64 `koanf:"prompt_output_tokens_stddev"`
	// NumDatasetEntries is --num-dataset-entries (default 100);
	// NumDatasetEntriesSet reports whether the user gave it (flag, file or
	// env). EffectiveNumDatasetEntries applies AIPerf's sizing rule.
	NumDatasetEntries    int  `koanf:"num_dataset_entries"`
	NumDatasetEntriesSet bool `koanf:"-"`
	// ISLBlockSize is --isl-block-size; nil leaves the loader's default.
	ISLBlockSize *int `koanf:"prompt_input_tokens_block_size"`
	// SequenceDistribution is --seq-dist, the raw string ("" unset);
	// SeqDistPairs parses it. Prefix prompts (--num-prefix-prompts,
	// --prefix-prompt-length) and the two system-prompt lengths AIPerf
	// makes mutually exclusive with them; nil is unset (prefixprompt.go).
	SequenceDistribution     string `koanf:"prompt_sequence_distribution"`
	PrefixPromptPoolSize     *int   `koanf:"prompt_prefix_pool_size"`
	PrefixPromptLength       *int   `koanf:"prompt_prefix_length"`
	SharedSystemPromptLength *int   `koanf:"prompt_prefix_shared_system_length"`
	UserContextPromptLength  *int   `koanf:"prompt_prefix_user_context_length"`
	// SystemPrompt and SystemPromptFile are --system-prompt and
	// --system-prompt-file ("" unset); Validate reads the file once into
	// ResolvedSystemPrompt, the text every conversation gets.
	SystemPrompt         string `koanf:"system_prompt"`
	SystemPromptFile     string `koanf:"system_prompt_file"`
	ResolvedSystemPrompt string `koanf:"-"`

	// Batches, media and rankings inputs (media.go applies AIPerf 0.13's
	// real defaults and inclusion rules). Nil pointers, empty strings and
	// empty lists are unset. AudioDepths and AudioSampleRates keep the raw
	// list items; AudioDepthValues and AudioSampleRatesKHz parse them.
	PromptBatchSize      *int     `koanf:"prompt_batch_size"`
	AudioBatchSize       *int     `koanf:"audio_batch_size"`
	AudioLengthMean      *float64 `koanf:"audio_length_mean"`
	AudioLengthStddev    *float64 `koanf:"audio_length_stddev"`
	AudioFormat          string   `koanf:"audio_format"`
	AudioDepths          []string `koanf:"audio_depths"`
	AudioSampleRates     []string `koanf:"audio_sample_rates"`
	AudioNumChannels     *int     `koanf:"audio_num_channels"`
	ImageWidthMean       *float64 `koanf:"image_width_mean"`
	ImageWidthStddev     *float64 `koanf:"image_width_stddev"`
	ImageHeightMean      *float64 `koanf:"image_height_mean"`
	ImageHeightStddev    *float64 `koanf:"image_height_stddev"`
	ImageBatchSize       *int     `koanf:"image_batch_size"`
	ImageFormat          string   `koanf:"image_format"`
	ImageSource          string   `koanf:"image_source"`
	ImageSourceSampling  string   `koanf:"image_source_sampling"`
	VideoBatchSize       *int     `koanf:"video_batch_size"`
	VideoDuration        *float64 `koanf:"video_duration"`
	VideoFPS             *int     `koanf:"video_fps"`
	VideoWidth           *int     `koanf:"video_width"`
	VideoHeight          *int     `koanf:"video_height"`
	VideoSynthType       string   `koanf:"video_synth_type"`
	VideoFormat          string   `koanf:"video_format"`
	VideoCodec           string   `koanf:"video_codec"`
	VideoAudioSampleRate *float64 `koanf:"video_audio_sample_rate"`
	VideoAudioChannels   *int     `koanf:"video_audio_channels"`
	VideoAudioCodec      string   `koanf:"video_audio_codec"`
	VideoAudioDepth      *int     `koanf:"video_audio_depth"`
	// Rankings (--rankings-*): passages per request and token lengths.
	RankingsPassagesMean        *int `koanf:"rankings_passages_mean"`
	RankingsPassagesStddev      *int `koanf:"rankings_passages_stddev"`
	RankingsPassageTokensMean   *int `koanf:"rankings_passages_prompt_token_mean"`
	RankingsPassageTokensStddev *int `koanf:"rankings_passages_prompt_token_stddev"`
	RankingsQueryTokensMean     *int `koanf:"rankings_query_prompt_token_mean"`
	RankingsQueryTokensStddev   *int `koanf:"rankings_query_prompt_token_stddev"`
	// Trace synthesis (--synthesis-*, synthesis.go); nil is unset.
	SynthesisSpeedupRatio         *float64 `koanf:"synthesis_speedup_ratio"`
	SynthesisPrefixLenMultiplier  *float64 `koanf:"synthesis_prefix_len_multiplier"`
	SynthesisPrefixRootMultiplier *int     `koanf:"synthesis_prefix_root_multiplier"`
	SynthesisPromptLenMultiplier  *float64 `koanf:"synthesis_prompt_len_multiplier"`
	SynthesisOutputLenMultiplier  *float64 `koanf:"synthesis_output_len_multiplier"`
	SynthesisMaxISL               *int     `koanf:"synthesis_max_isl"`
	SynthesisMaxOSL               *int     `koanf:"synthesis_max_osl"`

	// Conversations (multi-turn sessions). Delays are in milliseconds.
	NumSessions        *int    `koanf:"conversation_num"`
	SessionTurnsMean   int     `koanf:"conversation_turn_mean"`
	SessionTurnsStddev int     `koanf:"conversation_turn_stddev"`
	TurnDelayMeanMs    float64 `koanf:"conversation_turn_delay_mean"`
	TurnDelayStddevMs  float64 `koanf:"conversation_turn_delay_stddev"`
	TurnDelayRatio     float64 `koanf:"conversation_turn_delay_ratio"`

	// Output
	ArtifactDir         string `koanf:"output_artifact_dir"`
	ProfileExportPrefix string `koanf:"profile_export_prefix"`
	ExportLevel         string `koanf:"export_level"`
	// ExportHTTPTrace (--export-http-trace) adds each request's HTTP trace
	// to profile_export.jsonl ("trace_data"); ShowTraceTiming
	// (--show-trace-timing) prints the "HTTP Trace Timing" table.
	ExportHTTPTrace bool `koanf:"export_http_trace"`
	// GeneratePlots (--generate-plots, GenAI-Perf's) draws the run's plots
	// and its HTML report into <artifact dir>/plots after the run.
	GeneratePlots bool `koanf:"generate_plots"`
	// SliceDuration (--slice-duration) is the timeslice width in seconds;
	// 0 (unset) writes no timeslice files.
	SliceDuration   float64 `koanf:"slice_duration"`
	ShowTraceTiming bool    `koanf:"show_trace_timing"`

	// Server metrics (issue 12): extra --server-metrics URLs (the
	// endpoint's own /metrics is always scraped unless
	// --no-server-metrics) and --server-metrics-formats.
	ServerMetrics        []string `koanf:"server_metrics"`
	NoServerMetrics      bool     `koanf:"no_server_metrics"`
	ServerMetricsFormats []string `koanf:"server_metrics_formats"`

	// GPU telemetry (issue 12): the --gpu-telemetry items (URLs, pynvml,
	// dashboard) and --no-gpu-telemetry; GPUTelemetry() resolves them.
	GPUTelemetryItems []string `koanf:"gpu_telemetry"`
	NoGPUTelemetry    bool     `koanf:"no_gpu_telemetry"`
	// GPUCollectorPlugin and ServerCollectorPlugin name the collector
	// plugins ("" = the built-in default for the mode).
	GPUCollectorPlugin    string `koanf:"gpu_telemetry_collector"`
	ServerCollectorPlugin string `koanf:"server_metrics_collector"`

	// Tokenizer is empty when unset: the application decides.
	Tokenizer                string `koanf:"tokenizer"`
	TokenizerRevision        string `koanf:"tokenizer_revision"`
	TokenizerTrustRemoteCode bool   `koanf:"tokenizer_trust_remote_code"`

	// Load generator. Nil pointers and empty strings are unset; durations
	// are in seconds; Profiling() and Warmup() apply defaults and
	// inheritance. Grace periods may be +Inf ("inf").
	BenchmarkDuration        *float64 `koanf:"benchmark_duration"`
	BenchmarkGracePeriod     *float64 `koanf:"benchmark_grace_period"`
	Concurrency              *int     `koanf:"concurrency"`
	PrefillConcurrency       *int     `koanf:"prefill_concurrency"`
	RequestRate              *float64 `koanf:"request_rate"`
	ArrivalPattern           string   `koanf:"arrival_pattern"`
	ArrivalSmoothness        *float64 `koanf:"arrival_smoothness"`
	RequestCount             *int     `koanf:"request_count"`
	WarmupRequestCount       *int     `koanf:"warmup_request_count"`
	WarmupDuration           *float64 `koanf:"warmup_duration"`
	NumWarmupSessions        *int     `koanf:"num_warmup_sessions"`
	WarmupConcurrency        *int     `koanf:"warmup_concurrency"`
	WarmupPrefillConcurrency *int     `koanf:"warmup_prefill_concurrency"`
	WarmupRequestRate        *float64 `koanf:"warmup_request_rate"`
	WarmupArrivalPattern     string   `koanf:"warmup_arrival_pattern"`
	WarmupGracePeriod        *float64 `koanf:"warmup_grace_period"`
	// RequestCancellationRate is a percentage (0, 100].
	RequestCancellationRate  *float64 `koanf:"request_cancellation_rate"`
	RequestCancellationDelay *float64 `koanf:"request_cancellation_delay"`
	UserCentricRate          *float64 `koanf:"user_centric_rate"`
	NumUsers                 *int     `koanf:"num_users"`
	// Ramp durations in seconds.
	ConcurrencyRampDuration              *float64 `koanf:"concurrency_ramp_duration"`
	PrefillConcurrencyRampDuration       *float64 `koanf:"prefill_concurrency_ramp_duration"`
	WarmupConcurrencyRampDuration        *float64 `koanf:"warmup_concurrency_ramp_duration"`
	WarmupPrefillConcurrencyRampDuration *float64 `koanf:"warmup_prefill_concurrency_ramp_duration"`
	RequestRateRampDuration              *float64 `koanf:"request_rate_ramp_duration"`
	WarmupRequestRateRampDuration        *float64 `koanf:"warmup_request_rate_ramp_duration"`

	// Service. LogLevel already reflects -v/-vv; UIType is resolved (never
	// empty after Load, and never "dashboard").
	LogLevel     string `koanf:"log_level"`
	Verbose      bool   `koanf:"verbose"`
	ExtraVerbose bool   `koanf:"extra_verbose"`
	UIType       string `koanf:"ui_type"`
	// Plugins are extra plugin manifests (--plugins), after the discovered ones.
	Plugins []string `koanf:"plugins"`
	// PluginConfig are --plugin-config category.name.key=value settings.
	PluginConfig []string `koanf:"plugin_config"`
	// Transport (--transport), RampType (--ramp-type) and TokenizerPlugin
	// (--tokenizer-plugin) name the plugins of those categories.
	Transport       string `koanf:"transport"`
	RampType        string `koanf:"ramp_type"`
	TokenizerPlugin string `koanf:"tokenizer_plugin"`

	// CI gate (issue 14; core/gate). Thresholds keep the raw
	// --threshold items (each may hold several expressions);
	// FailedRequestThreshold is nil when unset.
	Thresholds             []string `koanf:"threshold"`
	FailedRequestThreshold *float64 `koanf:"failed_request_threshold"`
	AbortOnThresholdBreach bool     `koanf:"abort_on_threshold_breach"`
	JUnitFile              string   `koanf:"junit"`
	MarkdownSummary        string   `koanf:"markdown_summary"`
	// FailOnClientLimited exits with the invalid-run status on a
	// CLIENT-LIMITED validity verdict (core/validity).
	FailOnClientLimited bool `koanf:"fail_on_client_limited"`

	// Sharding (issue 17; sharding.go).
	ServiceManager      string   `koanf:"service_manager"`
	Shards              int      `koanf:"shards"`
	Exact               bool     `koanf:"exact"`
	AllowPartial        bool     `koanf:"allow_partial"`
	Image               string   `koanf:"image"`
	Namespace           string   `koanf:"namespace"`
	NodeSelector        []string `koanf:"node_selector"`
	Resources           string   `koanf:"resources"`
	KeepJob             bool     `koanf:"keep_job"`
	ShardIndex          int      `koanf:"shard_index"`
	ShardCount          int      `koanf:"shard_count"`
	ShardBarrier        string   `koanf:"shard_barrier"`
	ShardBarrierListen  string   `koanf:"shard_barrier_listen"`
	ShardBarrierTimeout float64  `koanf:"shard_barrier_timeout"`
	ShardEmitResult     bool     `koanf:"shard_emit_result"`

	// Multi-run confidence (issue 14; multirun.go): --num-profile-runs and
	// its group. The No* fields are the --no-* negations, folded into
	// their positive field by Load; MultiRun() gives the resolved values.
	NumProfileRuns                      int     `koanf:"num_profile_runs"`
	ProfileRunCooldownSeconds           float64 `koanf:"profile_run_cooldown_seconds"`
	ConfidenceLevel                     float64 `koanf:"confidence_level"`
	ProfileRunDisableWarmupAfterFirst   bool    `koanf:"profile_run_disable_warmup_after_first"`
	NoProfileRunDisableWarmupAfterFirst bool    `koanf:"no_profile_run_disable_warmup_after_first"`
	SetConsistentSeed                   bool    `koanf:"set_consistent_seed"`
	NoSetConsistentSeed                 bool    `koanf:"no_set_consistent_seed"`
	VarySeedPerTrial                    bool    `koanf:"vary_seed_per_trial"`
	NoVarySeedPerTrial                  bool    `koanf:"no_vary_seed_per_trial"`
	// multiRunGiven are the across-run flags the user set (as spelled),
	// which AIPerf rejects without --num-profile-runs > 1; multiRunClash
	// names a flag given with its own negation.
	multiRunGiven []string
	multiRunClash []string

	// ConfigFile is the --user-config-file that was read, if any.
	ConfigFile string `koanf:"-"`
	// ArtifactDirSet reports whether the user chose the artifact directory
	// (flag, file or env); only then is no per-run subdirectory added.
	ArtifactDirSet bool `koanf:"-"`

	// trace is what Load learnt from --input-file (timestamps, entry count).
	trace traceInfo
	// formData is the endpoint type's requires_form_data switch, recorded
	// by CheckEndpoint (nil before): it resolves the request content type.
	formData *bool
}

// Defaults of computed values (AIPerf LoadGeneratorDefaults).
const (
	defaultConcurrency     = 1
	minRequestCount        = 10
	requestCountMultiplier = 2
)

// URLs returns the base URLs with "http://" prepended where no http(s)
// scheme is given, as AIPerf's normalize_http_url does.
func (c *RunConfig) URLs() []string {
	out := make([]string, len(c.URL))
	for i, u := range c.URL {
		out[i] = normalizeURL(u)
	}
	return out
}

func normalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
		return u
	}
	return "http://" + u
}

// EffectiveConcurrency is --concurrency when given. Otherwise it is 1 in
// concurrency mode without --prefill-concurrency (AIPerf's default), and 0
// (no ceiling) when a rate, user-centric rate or fixed schedule drives the
// run or only the prefill stage is capped.
func (c *RunConfig) EffectiveConcurrency() int {
	if c.Concurrency != nil {
		return *c.Concurrency
	}
	if c.Mode() == ModeConcurrency && c.PrefillConcurrency == nil {
		return defaultConcurrency
	}
	return 0
}

// EffectiveRequestCount is --request-count, or AIPerf's computed default; 0
// means no count limit (another stop condition ends the phase):
//   - --num-sessions or --benchmark-duration given: 0;
//   - fixed schedule: the number of trace entries (0 when unknown);
//   - request-rate and user-centric modes: 10;
//   - concurrency mode: max(10, 2 * concurrency), using the prefill
//     concurrency when only that is given.
func (c *RunConfig) EffectiveRequestCount() int {
	if c.RequestCount != nil {
		return *c.RequestCount
	}
	if c.NumSessions != nil || c.BenchmarkDuration != nil {
		return 0
	}
	switch c.Mode() {
	case ModeFixedSchedule:
		return c.trace.entries
	case ModeRequestRate, ModeUserCentric:
		return minRequestCount
	}
	n := c.EffectiveConcurrency()
	if n == 0 && c.PrefillConcurrency != nil {
		n = *c.PrefillConcurrency
	}
	return max(minRequestCount, requestCountMultiplier*n)
}

// EffectiveNumSessions is --num-sessions, or 0 (no session limit).
func (c *RunConfig) EffectiveNumSessions() int {
	if c.NumSessions != nil {
		return *c.NumSessions
	}
	return 0
}

// EffectiveNumDatasetEntries is how many synthetic conversations to build,
// AIPerf 0.13's rule (config/flags/_converter_dataset.py _resolve_entries):
// --num-dataset-entries when the user gave it, else --num-sessions when given,
// else --request-count when given, else --num-dataset-entries' default (100).
// Only counts the user gave take part: the computed default request count
// (10, or max(10, 2*concurrency)) and a --benchmark-duration run leave the
// default, and a run that sends more requests than entries reuses them
// through the dataset sampler.
func (c *RunConfig) EffectiveNumDatasetEntries() int {
	switch {
	case c.NumDatasetEntriesSet:
		return c.NumDatasetEntries
	case c.NumSessions != nil && *c.NumSessions > 0:
		return *c.NumSessions
	case c.RequestCount != nil && *c.RequestCount > 0:
		return *c.RequestCount
	}
	return c.NumDatasetEntries
}

// EffectiveWarmupRequestCount is --warmup-request-count, or 0 (no warmup).
func (c *RunConfig) EffectiveWarmupRequestCount() int {
	if c.WarmupRequestCount != nil {
		return *c.WarmupRequestCount
	}
	return 0
}

// ExtraInputs returns --extra-inputs as one map (later items win). Items that
// do not parse are skipped; Validate reports them.
func (c *RunConfig) ExtraInputs() map[string]any {
	out := make(map[string]any)
	for _, item := range c.ExtraInputsRaw {
		pairs, err := parsePairs(item, jsonScalar)
		if err != nil {
			continue
		}
		for _, p := range pairs {
			out[p.key] = p.val
		}
	}
	return out
}

// Headers returns the request headers the user configured: "Authorization:
// Bearer <api-key>" when --api-key is set, overridden by any -H items (later
// items win). Items that do not parse are skipped; Validate reports them.
func (c *RunConfig) Headers() map[string]string {
	out := make(map[string]string)
	if c.APIKey != "" {
		out["Authorization"] = "Bearer " + c.APIKey
	}
	for _, item := range c.Header {
		pairs, err := parsePairs(item, headerValue)
		if err != nil {
			continue
		}
		for _, p := range pairs {
			// Header names are case-insensitive: a -H item replaces any
			// earlier spelling (e.g. the api-key Authorization).
			for k := range out {
				if strings.EqualFold(k, p.key) {
					delete(out, k)
				}
			}
			out[p.key] = p.val.(string)
		}
	}
	return out
}
