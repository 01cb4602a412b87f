package config

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Help group headings, in the order AIPerf's reference prints them. Flags
// registered by other packages can join a group with GroupAnnotation.
const (
	GroupEndpoint          = "Endpoint"
	GroupInput             = "Input"
	GroupAudioInput        = "Audio Input"
	GroupImageInput        = "Image Input"
	GroupVideoInput        = "Video Input"
	GroupPrompt            = "Prompt"
	GroupISL               = "Input Sequence Length (ISL)"
	GroupOSL               = "Output Sequence Length (OSL)"
	GroupPrefixPrompt      = "Prefix Prompt"
	GroupRankings          = "Rankings"
	GroupSynthesis         = "Synthesis"
	GroupConversationInput = "Conversation Input"
	GroupOutput            = "Output"
	GroupTokenizer         = "Tokenizer"
	GroupLoadGenerator     = "Load Generator"
	GroupService           = "Service"
	GroupConfigFile        = "Configuration File"
	GroupCIGate            = "CI Gate"
	GroupMultiRun          = "Multi-Run"
	GroupSharding          = "Sharding"
)

// groupOrder is the reference's heading order (groups this package does not
// fill are kept so flags added elsewhere still land in the right place).
var groupOrder = []string{
	GroupEndpoint, GroupInput, GroupAudioInput, GroupImageInput, GroupVideoInput, GroupPrompt,
	GroupISL, GroupOSL, GroupPrefixPrompt, GroupRankings, GroupSynthesis, GroupConversationInput,
	GroupOutput, GroupTokenizer, GroupLoadGenerator, "Telemetry", "Server Metrics",
	"ZMQ Communication", "Workers", GroupService, GroupConfigFile, GroupCIGate,
	GroupMultiRun, GroupSharding,
}

// optKind says how a value is parsed from flags, the config file and env.
type optKind int

const (
	kindString optKind = iota
	kindInt
	kindFloat
	kindBool
	kindList  // comma-separated and/or repeated (model names, URLs)
	kindPairs // repeated "key:value" items or JSON objects (headers, extra inputs)
	kindItems // repeated, never split: each value whole (--plugin-config)
	kindCount // -v / -vv: a counter on the command line, booleans elsewhere
)

// metavar is the value placeholder the help prints, as in the reference.
func (k optKind) metavar() string {
	switch k {
	case kindString:
		return "<str>"
	case kindInt:
		return "<int>"
	case kindFloat:
		return "<float>"
	case kindList, kindPairs, kindItems:
		return "<list>"
	}
	return ""
}

// option is the single source of truth for one setting: its config key, flag
// names, help group, type and default. Flags, help text, the defaults layer
// and the file/env key lookup are all generated from this table.
type option struct {
	key   string   // koanf key, also the YAML key and AIPERF_<KEY> env name
	names []string // long flag names, primary first, in the reference's order
	short string
	// helpShort is shown instead of short when the flag has no pflag
	// shorthand of its own (-vv is two -v, not a shorthand).
	helpShort string
	group     string
	kind      optKind
	// def is the default; nil means "unset" (distinct from any value).
	def any
	// defHelp describes a computed default in --help (def must be nil).
	defHelp  string
	required bool
	choices  []string // fixed choices; registry-backed ones come via AnnotateChoices
	// category names the plugin category whose registered names are the
	// choices (Validate and --help take them from the registry).
	category string
	usage    string
	// optionalValue lets a list flag stand alone (ExpandMultiValueArgs
	// gives it an empty value), as AIPerf's --server-metrics.
	optionalValue bool
}

const (
	keyModelNames         = "model_names"
	keyURL                = "url"
	keyEndpointType       = "endpoint_type"
	keyCustomEndpoint     = "custom_endpoint"
	keyStreaming          = "streaming"
	keyAPIKey             = "api_key"
	keyHeader             = "header"
	keyExtraInputs        = "extra_inputs"
	keyRequestTimeout     = "request_timeout_seconds"
	keyLegacyMaxTokens    = "use_legacy_max_tokens"
	keyServerTokenCount   = "use_server_token_count"
	keyTokenizerRevision  = "tokenizer_revision"
	keyTokenizerTrust     = "tokenizer_trust_remote_code"
	keyConcurrency        = "concurrency"
	keyRequestCount       = "request_count"
	keyWarmupRequestCount = "warmup_request_count"
	keyISLMean            = "prompt_input_tokens_mean"
	keyISLStddev          = "prompt_input_tokens_stddev"
	keyOSLMean            = "prompt_output_tokens_mean"
	keyOSLStddev          = "prompt_output_tokens_stddev"
	keyNumDatasetEntries  = "num_dataset_entries"
	keyRandomSeed         = "random_seed"
	keyTokenizer          = "tokenizer"
	keyArtifactDir        = "output_artifact_dir"
	keyExportPrefix       = "profile_export_prefix"
	keyExportLevel        = "export_level"
	keyExportHTTPTrace    = "export_http_trace"
	keySliceDuration      = "slice_duration"
	keyShowTraceTiming    = "show_trace_timing"
	keyGeneratePlots      = "generate_plots"
	keyGoodput            = "goodput"
	keyUIType             = "ui_type"
	keyLogLevel           = "log_level"
	keyVerbose            = "verbose"
	keyExtraVerbose       = "extra_verbose"
	keyConfigFile         = "user_config_file"
	keyPlugins            = "plugins"
	keyPluginConfig       = "plugin_config"
	keyTransport          = "transport"
	keyRampType           = "ramp_type"
	keyTokenizerPlugin    = "tokenizer_plugin"

	// Endpoint (issue 4)
	keyModelSelection  = "model_selection_strategy"
	keyURLStrategy     = "url_strategy"
	keyConnectionReuse = "connection_reuse_strategy"

	// Input (issue 4)
	keyInputFile          = "input_file"
	keyFixedSchedule      = "fixed_schedule"
	keyFixedAutoOffset    = "fixed_schedule_auto_offset"
	keyFixedStartOffset   = "fixed_schedule_start_offset"
	keyFixedEndOffset     = "fixed_schedule_end_offset"
	keyNoFixedSchedule    = "no_fixed_schedule"
	keyCustomDatasetType  = "custom_dataset_type"
	keyPublicDataset      = "public_dataset"
	keyHFSubset           = "hf_dataset_subset"
	keyDatasetSampling    = "dataset_sampling_strategy"
	keyISLBlockSize       = "prompt_input_tokens_block_size"
	keyNumSessions        = "conversation_num"
	keyTurnsMean          = "conversation_turn_mean"
	keyTurnsStddev        = "conversation_turn_stddev"
	keyTurnDelayMean      = "conversation_turn_delay_mean"
	keyTurnDelayStddev    = "conversation_turn_delay_stddev"
	keyTurnDelayRatio     = "conversation_turn_delay_ratio"
	keyBenchmarkDuration  = "benchmark_duration"
	keyBenchmarkGrace     = "benchmark_grace_period"
	keyPrefillConcurrency = "prefill_concurrency"
	keyRequestRate        = "request_rate"
	keyArrivalPattern     = "arrival_pattern"
	keyArrivalSmoothness  = "arrival_smoothness"
	keyWarmupDuration     = "warmup_duration"
	keyNumWarmupSessions  = "num_warmup_sessions"
	keyWarmupConcurrency  = "warmup_concurrency"
	keyWarmupPrefill      = "warmup_prefill_concurrency"
	keyWarmupRequestRate  = "warmup_request_rate"
	keyWarmupArrival      = "warmup_arrival_pattern"
	keyWarmupGrace        = "warmup_grace_period"
	keyCancelRate         = "request_cancellation_rate"
	keyCancelDelay        = "request_cancellation_delay"
	keyUserCentricRate    = "user_centric_rate"
	keyNumUsers           = "num_users"
	keyConcurrencyRamp    = "concurrency_ramp_duration"
	keyPrefillRamp        = "prefill_concurrency_ramp_duration"
	keyWarmupConcRamp     = "warmup_concurrency_ramp_duration"
	keyWarmupPrefillRamp  = "warmup_prefill_concurrency_ramp_duration"
	keyRequestRateRamp    = "request_rate_ramp_duration"
	keyWarmupRateRamp     = "warmup_request_rate_ramp_duration"

	// Endpoint, prompt batches, media and rankings (issue 10). The keys are
	// AIPerf's CLIConfig field names.
	keyDownloadVideoContent = "download_video_content"
	keyRequestContentType   = "request_content_type"
	keyPromptBatchSize      = "prompt_batch_size"
	keyAudioBatchSize       = "audio_batch_size"
	keyAudioLengthMean      = "audio_length_mean"
	keyAudioLengthStddev    = "audio_length_stddev"
	keyAudioFormat          = "audio_format"
	keyAudioDepths          = "audio_depths"
	keyAudioSampleRates     = "audio_sample_rates"
	keyAudioNumChannels     = "audio_num_channels"
	keyImageWidthMean       = "image_width_mean"
	keyImageWidthStddev     = "image_width_stddev"
	keyImageHeightMean      = "image_height_mean"
	keyImageHeightStddev    = "image_height_stddev"
	keyImageBatchSize       = "image_batch_size"
	keyImageFormat          = "image_format"
	keyImageSource          = "image_source"
	keyImageSourceSampling  = "image_source_sampling"
	keyVideoBatchSize       = "video_batch_size"
	keyVideoDuration        = "video_duration"
	keyVideoFPS             = "video_fps"
	keyVideoWidth           = "video_width"
	keyVideoHeight          = "video_height"
	keyVideoSynthType       = "video_synth_type"
	keyVideoFormat          = "video_format"
	keyVideoCodec           = "video_codec"
	keyVideoAudioSampleRate = "video_audio_sample_rate"
	keyVideoAudioChannels   = "video_audio_channels"
	keyVideoAudioCodec      = "video_audio_codec"
	keyVideoAudioDepth      = "video_audio_depth"

	// KV-cache shaping (issue 11): AIPerf's CLIConfig field names.
	keySeqDist               = "prompt_sequence_distribution"
	keyPrefixPoolSize        = "prompt_prefix_pool_size"
	keyPrefixLength          = "prompt_prefix_length"
	keySharedSystemLength    = "prompt_prefix_shared_system_length"
	keyUserContextLength     = "prompt_prefix_user_context_length"
	keySystemPrompt          = "system_prompt"
	keySystemPromptFile      = "system_prompt_file"
	keyRankingsPassagesMean  = "rankings_passages_mean"
	keyRankingsPassagesSD    = "rankings_passages_stddev"
	keyRankingsPassageTokens = "rankings_passages_prompt_token_mean"
	keyRankingsPassageTokSD  = "rankings_passages_prompt_token_stddev"
	keyRankingsQueryTokens   = "rankings_query_prompt_token_mean"
	keyRankingsQueryTokSD    = "rankings_query_prompt_token_stddev"

	// Trace synthesis (issue 11): AIPerf's CLIConfig field names.
	keySynthSpeedup    = "synthesis_speedup_ratio"
	keySynthPrefixLen  = "synthesis_prefix_len_multiplier"
	keySynthPrefixRoot = "synthesis_prefix_root_multiplier"
	keySynthPromptLen  = "synthesis_prompt_len_multiplier"
	keySynthOutputLen  = "synthesis_output_len_multiplier"
	keySynthMaxISL     = "synthesis_max_isl"
	keySynthMaxOSL     = "synthesis_max_osl"

	// CI gate (issue 14): --failed-request-threshold is AIPerf 0.13's
	// CLIConfig field; the others are ours (core/gate).
	keyFailedRequestThreshold = "failed_request_threshold"
	keyThreshold              = "threshold"
	keyAbortOnBreach          = "abort_on_threshold_breach"
	keyJUnit                  = "junit"
	keyMarkdownSummary        = "markdown_summary"
	keyFailOnClientLimited    = "fail_on_client_limited"

	// Sharding (issue 17; sharding.go): not AIPerf options.
	keyServiceManager      = "service_manager"
	keyShards              = "shards"
	keyExact               = "exact"
	keyAllowPartial        = "allow_partial"
	keyImage               = "image"
	keyNamespace           = "namespace"
	keyNodeSelector        = "node_selector"
	keyResources           = "resources"
	keyKeepJob             = "keep_job"
	keyShardIndex          = "shard_index"
	keyShardCount          = "shard_count"
	keyShardBarrier        = "shard_barrier"
	keyShardBarrierListen  = "shard_barrier_listen"
	keyShardBarrierTimeout = "shard_barrier_timeout"
	keyShardEmitResult     = "shard_emit_result"

	// Multi-run confidence (issue 14): AIPerf 0.13's CLIConfig field names
	// (multirun.go); the no_* keys are the --no-* negations.
	keyNumProfileRuns            = "num_profile_runs"
	keyProfileRunCooldown        = "profile_run_cooldown_seconds"
	keyConfidenceLevel           = "confidence_level"
	keyDisableWarmupAfterFirst   = "profile_run_disable_warmup_after_first"
	keyNoDisableWarmupAfterFirst = "no_profile_run_disable_warmup_after_first"
	keySetConsistentSeed         = "set_consistent_seed"
	keyNoSetConsistentSeed       = "no_set_consistent_seed"
	keyVarySeedPerTrial          = "vary_seed_per_trial"
	keyNoVarySeedPerTrial        = "no_vary_seed_per_trial"
)

// Fixed choice lists (AIPerf enums).
var (
	exportLevels = []string{"summary", "records", "raw"}
	logLevels    = []string{"TRACE", "DEBUG", "INFO", "NOTICE", "WARNING", "SUCCESS", "ERROR", "CRITICAL"}

	modelSelectionStrategies = []string{"round_robin", "random"}
	connectionReuse          = []string{"pooled", "never", "sticky-user-sessions"}

	requestContentTypes   = []string{ContentTypeJSON, ContentTypeFormData}
	audioFormats          = []string{"wav", "mp3"}
	imageFormats          = []string{"png", "jpeg", "random"}
	imageSources          = []string{"assets", "noise"}
	imageSourceSamplings  = []string{"random-with-replacement", "shuffle-cycle", "sequential-cycle"}
	videoSynthTypes       = []string{"moving_shapes", "grid_clock", "noise"}
	videoFormats          = []string{"mp4", "webm"}
	videoAudioCodecs      = []string{"libvorbis", "libopus", "aac"}
	audioBitDepths        = []int{8, 16, 24, 32}
	videoAudioDepthValues = []string{"8", "16", "24", "32"}
)

// options lists every setting in help order (group by group, reference order
// within a group).
var options = []*option{
	// Endpoint
	{key: keyModelNames, names: []string{"model-names", "model"}, short: "m", group: GroupEndpoint, kind: kindList, required: true,
		usage: "Model name(s) to be benchmarked. Can be a comma-separated list or a single model name."},
	{key: keyModelSelection, names: []string{"model-selection-strategy"}, group: GroupEndpoint, kind: kindString, def: "round_robin", choices: modelSelectionStrategies,
		usage: "When multiple models are specified, how a model is assigned to each prompt: round_robin (the nth prompt gets model n mod len(models)) or random (uniform)."},
	{key: keyCustomEndpoint, names: []string{"custom-endpoint", "endpoint"}, group: GroupEndpoint, kind: kindString,
		usage: "Set a custom API endpoint path (e.g., /v1/custom). Overrides the endpoint type's default path."},
	{key: keyEndpointType, names: []string{"endpoint-type"}, group: GroupEndpoint, kind: kindString, def: "chat", category: sdk.CategoryEndpoint,
		usage: "The API endpoint type to benchmark. Determines request/response format and supported features."},
	{key: keyStreaming, names: []string{"streaming"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "Enable streaming responses (needed for time-to-first-token and inter-token latency)."},
	{key: keyURL, names: []string{"url"}, short: "u", group: GroupEndpoint, kind: kindList, def: []string{"localhost:8000"},
		usage: "Base URL(s) of the API server(s) to benchmark; repeat for several servers. \"http://\" is prepended when no scheme is given."},
	{key: keyURLStrategy, names: []string{"url-strategy"}, group: GroupEndpoint, kind: kindString, def: "round_robin", category: sdk.CategoryURLSelection,
		usage: "Strategy for selecting URLs when multiple --url values are provided. round_robin distributes requests evenly across URLs in order."},
	{key: keyRequestTimeout, names: []string{"request-timeout-seconds"}, group: GroupEndpoint, kind: kindFloat, def: 21600.0,
		usage: "Maximum time in seconds to wait for each HTTP request to complete. Requests exceeding it are cancelled and recorded as failures."},
	{key: keyAPIKey, names: []string{"api-key"}, group: GroupEndpoint, kind: kindString,
		usage: "API authentication key, sent as \"Authorization: Bearer <api_key>\". Never written to logs or artifacts."},
	{key: keyLegacyMaxTokens, names: []string{"use-legacy-max-tokens"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "Use the legacy 'max_tokens' field instead of 'max_completion_tokens' in request payloads."},
	{key: keyServerTokenCount, names: []string{"use-server-token-count"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "Take ISL/OSL/reasoning token counts from the server's usage fields instead of client-side tokenization (stream_options.include_usage is requested automatically). Counts stay absent when the server reports no usage."},
	{key: keyTransport, names: []string{"transport", "transport-type"}, group: GroupEndpoint, kind: kindString, def: "http", category: sdk.CategoryTransport,
		usage: "Transport protocol to use for API requests. http sends over net/http with connection pooling and reads Server-Sent Events as they arrive."},
	{key: keyConnectionReuse, names: []string{"connection-reuse-strategy"}, group: GroupEndpoint, kind: kindString, def: "pooled", choices: connectionReuse,
		usage: "Transport connection reuse: pooled (connections reused across all requests), never (a new connection per request, closed after the response), sticky-user-sessions (one connection per multi-turn conversation, closed after its final turn)."},
	{key: keyDownloadVideoContent, names: []string{"download-video-content"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "For video generation endpoints, download the video content after the generation job completes. The request latency still ends at the final poll response (AIPerf 0.13 measures it so too); the download is not included."},
	{key: keyRequestContentType, names: []string{"request-content-type"}, group: GroupEndpoint, kind: kindString, choices: requestContentTypes,
		defHelp: "multipart/form-data for endpoint types that require form data (video_generation), else application/json",
		usage:   "Content type for request body serialization. multipart/form-data is only accepted by endpoint types that take form data, and those reject application/json."},

	// Input
	{key: keyExtraInputs, names: []string{"extra-inputs"}, group: GroupInput, kind: kindPairs,
		usage: "Additional request payload fields as key:value pairs (e.g., temperature:0.7) or a JSON object string. Repeatable."},
	{key: keyHeader, names: []string{"header"}, short: "H", group: GroupInput, kind: kindPairs,
		usage: "Custom HTTP headers as Header:Value pairs or a JSON object string. Repeatable."},
	{key: keyInputFile, names: []string{"input-file"}, group: GroupInput, kind: kindString,
		usage: "Path to the file or directory holding the benchmark dataset. Required by --custom-dataset-type: JSONL for single_turn/multi_turn, a JSONL trace for mooncake_trace, a directory (or file) of pools for random_pool. `payload:<file>` (GenAI-Perf) is a mooncake trace replayed on its schedule."},
	{key: keyFixedSchedule, names: []string{"fixed-schedule"}, group: GroupInput, kind: kindBool,
		usage: "Send requests at the timestamps of the input dataset (trace replay). Enabled automatically for mooncake_trace files whose first record has a timestamp."},
	{key: keyFixedAutoOffset, names: []string{"fixed-schedule-auto-offset"}, group: GroupInput, kind: kindBool,
		defHelp: "true when only --fixed-schedule-end-offset is given, else false",
		usage:   "Shift trace timestamps so the first one is 0 (the run starts at once, timing pattern kept). Mutually exclusive with --fixed-schedule-start-offset."},
	{key: keyFixedStartOffset, names: []string{"fixed-schedule-start-offset"}, group: GroupInput, kind: kindInt,
		usage: "Start offset in milliseconds for fixed schedule replay: requests before this timestamp are skipped (one exactly at it is sent). Must be <= --fixed-schedule-end-offset."},
	{key: keyFixedEndOffset, names: []string{"fixed-schedule-end-offset"}, group: GroupInput, kind: kindInt,
		usage: "End offset in milliseconds for fixed schedule replay: requests after this timestamp are not sent (one exactly at it is). Defaults to the last timestamp."},
	{key: keyNoFixedSchedule, names: []string{"no-fixed-schedule"}, group: GroupInput, kind: kindBool,
		usage: "Do not enable fixed schedule automatically for trace datasets; the trace runs under the otherwise selected mode. Mutually exclusive with --fixed-schedule."},
	{key: keyPublicDataset, names: []string{"public-dataset"}, group: GroupInput, kind: kindString, category: sdk.CategoryPublicDataset,
		usage: "Public dataset to download (once, into the Hugging Face cache) and benchmark with, e.g. sharegpt. Mutually exclusive with --input-file and --custom-dataset-type. `aiperf plugins public_dataset_loader` lists them."},
	{key: keyHFSubset, names: []string{"hf-subset"}, group: GroupInput, kind: kindString,
		usage: "Hugging Face dataset subset (config) of a --public-dataset read from the hub, instead of the one the dataset is registered with."},
	{key: keyCustomDatasetType, names: []string{"custom-dataset-type"}, group: GroupInput, kind: kindString, category: sdk.CategoryCustomDataset,
		usage: "Format of the --input-file dataset. Requires --input-file."},
	{key: keyDatasetSampling, names: []string{"dataset-sampling-strategy"}, group: GroupInput, kind: kindString, category: sdk.CategoryDatasetSampler,
		defHelp: "depends on the dataset (sequential for traces, shuffle for synthetic)",
		usage:   "How entries are picked from the dataset: sequential (in order, wrapping), random (with replacement), shuffle (without replacement, reshuffled when exhausted)."},
	{key: keyRandomSeed, names: []string{"random-seed"}, group: GroupInput, kind: kindInt,
		usage: "Random seed for deterministic data generation. Uses system entropy if not specified."},
	{key: keyGoodput, names: []string{"goodput"}, group: GroupInput, kind: kindString,
		usage: "Service level objectives for goodput as space-separated 'KEY:VALUE' pairs (e.g., 'request_latency:250 inter_token_latency:10')."},

	// Audio Input
	{key: keyAudioBatchSize, names: []string{"audio-batch-size", "batch-size-audio"}, group: GroupAudioInput, kind: kindInt,
		defHelp: "1 when --audio-length-mean or --audio-length-stddev is given, else 0 (no audio)",
		usage:   "The number of audio clips to include in each request. Supported by endpoint types that accept audio (chat, template). 0 disables audio inputs."},
	{key: keyAudioLengthMean, names: []string{"audio-length-mean"}, group: GroupAudioInput, kind: kindFloat, defHelp: "10 (when audio is sent)",
		usage: "Mean duration in seconds of the synthetic audio clips (normal distribution with --audio-length-stddev, at least 0.01). 0 disables audio inputs."},
	{key: keyAudioLengthStddev, names: []string{"audio-length-stddev"}, group: GroupAudioInput, kind: kindFloat, defHelp: "0",
		usage: "Standard deviation in seconds of the synthetic audio durations. Requires --audio-length-mean."},
	{key: keyAudioFormat, names: []string{"audio-format"}, group: GroupAudioInput, kind: kindString, choices: audioFormats, defHelp: "wav",
		usage: "File format of the generated audio: wav (uncompressed PCM) or mp3 (needs ffmpeg). Affects the payload size, not the audio."},
	{key: keyAudioDepths, names: []string{"audio-depths"}, group: GroupAudioInput, kind: kindList, defHelp: "16",
		usage: "Bit depths to draw each generated clip's depth from: 8, 16, 24 or 32 (e.g. --audio-depths 16 24)."},
	{key: keyAudioSampleRates, names: []string{"audio-sample-rates"}, group: GroupAudioInput, kind: kindList, defHelp: "16",
		usage: "Sample rates in kHz to draw each generated clip's rate from (e.g. 16, 44.1, 48). Values above 96 are taken as Hz. MP3 allows 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 and 48 kHz."},
	{key: keyAudioNumChannels, names: []string{"audio-num-channels"}, group: GroupAudioInput, kind: kindInt, defHelp: "1",
		usage: "Number of audio channels of the generated clips: 1 (mono) or 2 (stereo)."},

	// Image Input
	{key: keyImageWidthMean, names: []string{"image-width-mean"}, group: GroupImageInput, kind: kindFloat, defHelp: "512 (when images are sent)",
		usage: "Mean width in pixels of the synthetic images (normal distribution with --image-width-stddev). 0 disables image inputs."},
	{key: keyImageWidthStddev, names: []string{"image-width-stddev"}, group: GroupImageInput, kind: kindFloat, defHelp: "0",
		usage: "Standard deviation in pixels of the synthetic image widths. Requires --image-width-mean."},
	{key: keyImageHeightMean, names: []string{"image-height-mean"}, group: GroupImageInput, kind: kindFloat, defHelp: "512 (when images are sent)",
		usage: "Mean height in pixels of the synthetic images (normal distribution with --image-height-stddev). 0 disables image inputs."},
	{key: keyImageHeightStddev, names: []string{"image-height-stddev"}, group: GroupImageInput, kind: kindFloat, defHelp: "0",
		usage: "Standard deviation in pixels of the synthetic image heights. Requires --image-height-mean."},
	{key: keyImageBatchSize, names: []string{"image-batch-size", "batch-size-image"}, group: GroupImageInput, kind: kindInt,
		defHelp: "1 when another image size or source flag is given, else 0 (no images)",
		usage:   "Number of images to include in each request. Supported by endpoint types that accept images (chat, nim_embeddings, chat_embeddings, template, ...). 0 disables image inputs."},
	{key: keyImageFormat, names: []string{"image-format"}, group: GroupImageInput, kind: kindString, choices: imageFormats, defHelp: "jpeg",
		usage: "Image file format of the generated images: png, jpeg, or random (PNG or JPEG drawn per image)."},
	{key: keyImageSource, names: []string{"image-source"}, group: GroupImageInput, kind: kindString, defHelp: "noise",
		usage: "Where image pixels come from: noise (random pixels at the requested size), assets (the bundled source images, resized) or a directory of PNG/JPEG files (resized). Choices: noise, assets, or a directory path."},
	{key: keyImageSourceSampling, names: []string{"image-source-sampling"}, group: GroupImageInput, kind: kindString, choices: imageSourceSamplings, defHelp: "random-with-replacement",
		usage: "How images are picked from --image-source assets or a directory: random-with-replacement (independent draws), shuffle-cycle (each once per shuffled cycle) or sequential-cycle (sorted order, wrapping). noise only allows random-with-replacement."},

	// Video Input
	{key: keyVideoBatchSize, names: []string{"video-batch-size", "batch-size-video"}, group: GroupVideoInput, kind: kindInt,
		defHelp: "1 when another video flag is given, else 0 (no videos)",
		usage:   "Number of synthetic videos to include in each request (needs --video-width and --video-height, and ffmpeg). Supported by endpoint types that accept video (chat, template). 0 disables video inputs."},
	{key: keyVideoDuration, names: []string{"video-duration"}, group: GroupVideoInput, kind: kindFloat, defHelp: "1",
		usage: "Duration in seconds of each generated video clip; frames = duration x --video-fps."},
	{key: keyVideoFPS, names: []string{"video-fps"}, group: GroupVideoInput, kind: kindInt, defHelp: "4",
		usage: "Frames per second of the generated videos."},
	{key: keyVideoWidth, names: []string{"video-width"}, group: GroupVideoInput, kind: kindInt,
		usage: "Video frame width in pixels. Videos are only sent when both --video-width and --video-height are given."},
	{key: keyVideoHeight, names: []string{"video-height"}, group: GroupVideoInput, kind: kindInt,
		usage: "Video frame height in pixels. Videos are only sent when both --video-width and --video-height are given."},
	{key: keyVideoSynthType, names: []string{"video-synth-type"}, group: GroupVideoInput, kind: kindString, choices: videoSynthTypes, defHelp: "moving_shapes",
		usage: "Content of the generated videos: moving_shapes (animated shapes), grid_clock (grid with a rotating hand) or noise (random frames). Dashes are accepted for underscores."},
	{key: keyVideoFormat, names: []string{"video-format"}, group: GroupVideoInput, kind: kindString, choices: videoFormats, defHelp: "webm",
		usage: "Container format of the generated videos."},
	{key: keyVideoCodec, names: []string{"video-codec"}, group: GroupVideoInput, kind: kindString, defHelp: "libvpx-vp9",
		usage: "ffmpeg video codec used to encode the generated videos (libvpx-vp9, libvpx, or any encoder the local ffmpeg has)."},
	{key: keyVideoAudioSampleRate, names: []string{"video-audio-sample-rate"}, group: GroupVideoInput, kind: kindFloat, defHelp: "44100",
		usage: "Sample rate in Hz or kHz of the audio track of generated videos. Accepted for AIPerf compatibility; only used with an audio track, which is not supported yet."},
	{key: keyVideoAudioChannels, names: []string{"video-audio-num-channels"}, group: GroupVideoInput, kind: kindInt, defHelp: "0",
		usage: "Number of audio channels to embed in generated videos. Only 0 (no audio track) is supported; AIPerf also muxes a 1- or 2-channel noise track."},
	{key: keyVideoAudioCodec, names: []string{"video-audio-codec"}, group: GroupVideoInput, kind: kindString, choices: videoAudioCodecs,
		defHelp: "libvorbis for webm, libopus for mp4",
		usage:   "Codec of the audio track of generated videos. Requires --video-audio-num-channels 1 or 2 (an audio track, not supported yet)."},
	{key: keyVideoAudioDepth, names: []string{"video-audio-depth"}, group: GroupVideoInput, kind: kindInt, choices: videoAudioDepthValues, defHelp: "16",
		usage: "Bit depth of the audio track of generated videos. Accepted for AIPerf compatibility; only used with an audio track, which is not supported yet."},

	// Prompt
	{key: keyPromptBatchSize, names: []string{"prompt-batch-size", "batch-size-text", "batch-size"}, short: "b", group: GroupPrompt, kind: kindInt, defHelp: "1",
		usage: "Number of text inputs in each request, for endpoint types that take several (embeddings input list, completions prompt list, chat text parts). Ignored by the rankings endpoint types. With --input-file only --custom-dataset-type random_pool accepts it."},

	// ISL
	{key: keyISLMean, names: []string{"prompt-input-tokens-mean", "synthetic-input-tokens-mean", "isl"}, group: GroupISL, kind: kindInt, def: 550,
		usage: "Mean number of tokens for synthetically generated input prompts."},
	{key: keyISLStddev, names: []string{"prompt-input-tokens-stddev", "synthetic-input-tokens-stddev", "isl-stddev"}, group: GroupISL, kind: kindFloat, def: 0.0,
		usage: "Standard deviation of synthetic input prompt token lengths."},
	{key: keyISLBlockSize, names: []string{"prompt-input-tokens-block-size", "synthetic-input-tokens-block-size", "isl-block-size"}, group: GroupISL, kind: kindInt, defHelp: "512",
		usage: "Token block size for hash_ids in mooncake_trace datasets: each hash id is a cached block of this many tokens, so equal ids share a prompt prefix."},
	{key: keySeqDist, names: []string{"seq-dist", "sequence-distribution"}, group: GroupISL, kind: kindString,
		usage: "Distribution of (ISL, OSL) pairs with probabilities for mixed workload simulation. Format: `ISL,OSL:prob;ISL,OSL:prob` (semicolons separate pairs, probabilities are percentages 0-100 that must sum to 100). Supports optional stddev: `ISL|stddev,OSL|stddev:prob`. Examples: `128,64:25;512,128:50;1024,256:25` or with variance: `256|10,128|5:40;512|20,256|10:60`. Also supports bracket `[(256,128):40,(512,256):60]` and JSON formats. Each turn draws one pair, which replaces --isl/--isl-stddev and --osl/--osl-stddev."},

	// OSL
	{key: keyOSLMean, names: []string{"prompt-output-tokens-mean", "output-tokens-mean", "osl"}, group: GroupOSL, kind: kindInt,
		usage: "Mean number of output tokens to request (max_completion_tokens). When not set, the model decides the output length."},
	{key: keyOSLStddev, names: []string{"prompt-output-tokens-stddev", "output-tokens-stddev", "osl-stddev"}, group: GroupOSL, kind: kindFloat, def: 0.0,
		usage: "Standard deviation of requested output lengths. Only applies when --prompt-output-tokens-mean is set."},

	// Prefix Prompt
	{key: keyPrefixPoolSize, names: []string{"prompt-prefix-pool-size", "prefix-prompt-pool-size", "num-prefix-prompts"}, group: GroupPrefixPrompt, kind: kindInt, defHelp: "0",
		usage: "Number of distinct prefix prompts to generate for K-V cache testing. Each prefix is prepended to user prompts, simulating cached context scenarios. Prefixes randomly selected from pool per request. Set to 0 to disable prefix prompts. Mutually exclusive with `--shared-system-prompt-length`/`--user-context-prompt-length`."},
	{key: keyPrefixLength, names: []string{"prompt-prefix-length", "prefix-prompt-length"}, group: GroupPrefixPrompt, kind: kindInt, defHelp: "0",
		usage: "The number of tokens in each prefix prompt. This is only used if `--num-prefix-prompts` is greater than zero. The prefix is prepended to the first turn of each conversation on top of its --isl tokens (prefix and prompt are joined at the token level, so the prompt is exactly prefix length + ISL tokens). Mutually exclusive with `--shared-system-prompt-length`/`--user-context-prompt-length`."},
	{key: keySharedSystemLength, names: []string{"shared-system-prompt-length"}, group: GroupPrefixPrompt, kind: kindInt,
		usage: "Length of shared system prompt in tokens. This prompt is identical across all sessions and appears as a system message (exact length under the run's tokenizer; synthetic datasets only). Mutually exclusive with `--prefix-prompt-length`/`--prefix-prompt-pool-size`."},
	{key: keyUserContextLength, names: []string{"user-context-prompt-length"}, group: GroupPrefixPrompt, kind: kindInt,
		usage: "Length of per-session user context prompt in tokens. Each dataset entry gets a unique user context prompt, sent as a user message after the system message and before the turns (synthetic datasets only). Mutually exclusive with --prefix-prompt-length/--prefix-prompt-pool-size."},
	{key: keySystemPrompt, names: []string{"system-prompt"}, group: GroupPrefixPrompt, kind: kindString,
		usage: "Verbatim system prompt text, identical across every conversation. Sent as a system-role message ahead of all turns. Works with both synthetic and file/public datasets; when the dataset already carries its own system message, this text is prepended to it. Tokens are additive: `--isl` continues to size the generated user prompt only. Mutually exclusive with `--system-prompt-file`, `--shared-system-prompt-length`, and `--num-prefix-prompts`/`--prefix-prompt-length`."},
	{key: keySystemPromptFile, names: []string{"system-prompt-file"}, group: GroupPrefixPrompt, kind: kindString,
		usage: "Path to a UTF-8 text file holding the verbatim system prompt. Preferred over `--system-prompt` for real production prompts, which are long enough that shell quoting mangles them. Read once at startup, so a missing or unreadable file fails immediately rather than mid-run. Mutually exclusive with `--system-prompt`, `--shared-system-prompt-length`, and `--num-prefix-prompts`/`--prefix-prompt-length`."},

	// Rankings
	{key: keyRankingsPassagesMean, names: []string{"rankings-passages-mean"}, group: GroupRankings, kind: kindInt, defHelp: "10",
		usage: "Mean number of passages in each synthetic rankings request (normal distribution with --rankings-passages-stddev, at least 1)."},
	{key: keyRankingsPassagesSD, names: []string{"rankings-passages-stddev"}, group: GroupRankings, kind: kindInt, defHelp: "0",
		usage: "Standard deviation of the number of passages per rankings request. Requires --rankings-passages-mean."},
	{key: keyRankingsPassageTokens, names: []string{"rankings-passages-prompt-token-mean"}, group: GroupRankings, kind: kindInt, defHelp: "128",
		usage: "Mean token length of each synthetic rankings passage."},
	{key: keyRankingsPassageTokSD, names: []string{"rankings-passages-prompt-token-stddev"}, group: GroupRankings, kind: kindInt, defHelp: "0",
		usage: "Standard deviation of the passage token lengths. Requires --rankings-passages-prompt-token-mean."},
	{key: keyRankingsQueryTokens, names: []string{"rankings-query-prompt-token-mean"}, group: GroupRankings, kind: kindInt, defHelp: "32",
		usage: "Mean token length of the synthetic rankings query."},
	{key: keyRankingsQueryTokSD, names: []string{"rankings-query-prompt-token-stddev"}, group: GroupRankings, kind: kindInt, defHelp: "0",
		usage: "Standard deviation of the query token lengths. Requires --rankings-query-prompt-token-mean."},

	// Synthesis
	{key: keySynthSpeedup, names: []string{"synthesis-speedup-ratio"}, group: GroupSynthesis, kind: kindFloat, defHelp: "1.0",
		usage: "Multiplier for timestamp scaling in synthesized traces: each mooncake_trace timestamp is divided by it (2.0 replays twice as fast)."},
	{key: keySynthPrefixLen, names: []string{"synthesis-prefix-len-multiplier"}, group: GroupSynthesis, kind: kindFloat, defHelp: "1.0",
		usage: "Multiplier for core prefix branch lengths in radix tree: the shared leading hash_ids blocks of each mooncake_trace record are stretched (or cut) by it."},
	{key: keySynthPrefixRoot, names: []string{"synthesis-prefix-root-multiplier"}, group: GroupSynthesis, kind: kindInt, defHelp: "1",
		usage: "Number of independent radix trees to distribute traces across: each record moves to one of N copies of the prefix tree with disjoint hash_ids, drawn with --random-seed."},
	{key: keySynthPromptLen, names: []string{"synthesis-prompt-len-multiplier"}, group: GroupSynthesis, kind: kindFloat, defHelp: "1.0",
		usage: "Multiplier for leaf path (unique prompt) lengths: the tokens after the shared prefix."},
	{key: keySynthOutputLen, names: []string{"synthesis-output-len-multiplier"}, group: GroupSynthesis, kind: kindFloat, defHelp: "1.0",
		usage: "Multiplier for output lengths in synthesized traces (rounded, at least 1)."},
	{key: keySynthMaxISL, names: []string{"synthesis-max-isl"}, group: GroupSynthesis, kind: kindInt,
		usage: "Maximum input sequence length for filtering. Traces with input_length > max_isl are skipped."},
	{key: keySynthMaxOSL, names: []string{"synthesis-max-osl"}, group: GroupSynthesis, kind: kindInt,
		usage: "Maximum output sequence length cap. Traces with output_length > max_osl are capped to max_osl."},

	// Conversation Input
	{key: keyNumSessions, names: []string{"conversation-num", "num-conversations", "num-sessions"}, group: GroupConversationInput, kind: kindInt,
		usage: "The total number of conversations (sessions) to send; a stop condition counted in sessions instead of requests."},
	{key: keyNumDatasetEntries, names: []string{"num-dataset-entries", "num-prompts"}, group: GroupConversationInput, kind: kindInt, def: 100,
		usage: "Total number of unique entries (conversations) to generate for the dataset. When not given: --num-sessions, else --request-count, else 100; a run that sends more requests reuses entries."},
	{key: keyTurnsMean, names: []string{"conversation-turn-mean", "session-turns-mean"}, group: GroupConversationInput, kind: kindInt, def: 1,
		usage: "Mean number of request-response turns per conversation (1 = single-turn). Chat history accumulates across turns."},
	{key: keyTurnsStddev, names: []string{"conversation-turn-stddev", "session-turns-stddev"}, group: GroupConversationInput, kind: kindInt, def: 0,
		usage: "Standard deviation of the number of turns per conversation."},
	{key: keyTurnDelayMean, names: []string{"conversation-turn-delay-mean", "session-turn-delay-mean"}, group: GroupConversationInput, kind: kindFloat, def: 0.0,
		usage: "Mean delay in milliseconds between consecutive turns of a conversation (user think time)."},
	{key: keyTurnDelayStddev, names: []string{"conversation-turn-delay-stddev", "session-turn-delay-stddev"}, group: GroupConversationInput, kind: kindFloat, def: 0.0,
		usage: "Standard deviation of the turn delays in milliseconds."},
	{key: keyTurnDelayRatio, names: []string{"conversation-turn-delay-ratio", "session-delay-ratio"}, group: GroupConversationInput, kind: kindFloat, def: 1.0,
		usage: "Multiplier applied to every turn delay (0 removes delays, < 1 speeds conversations up, > 1 slows them down)."},

	// Output
	{key: keyArtifactDir, names: []string{"output-artifact-dir", "artifact-dir"}, group: GroupOutput, kind: kindString, def: "artifacts",
		usage: "Output directory for all benchmark artifacts. When not set, a per-run subdirectory <model>-<service_kind>-<endpoint_type>-<stimulus> is created under the default."},
	{key: keyExportPrefix, names: []string{"profile-export-prefix", "profile-export-file"}, group: GroupOutput, kind: kindString,
		usage: "Custom prefix for profile export file names (foo gives foo.json, foo.csv, foo.jsonl). Defaults to profile_export_aiperf / profile_export."},
	{key: keyExportLevel, names: []string{"export-level", "profile-export-level"}, group: GroupOutput, kind: kindString, def: "records", choices: exportLevels,
		usage: "Controls which output files are generated: summary (aggregates), records (+ per-request metrics), raw (+ raw request/response data)."},
	{key: keySliceDuration, names: []string{"slice-duration"}, group: GroupOutput, kind: kindFloat,
		usage: "Duration in seconds for time-sliced metric analysis. When set, AIPerf divides the benchmark timeline into fixed-length windows and computes metrics separately for each window. This enables analysis of performance trends and variations over time (e.g., warmup effects, degradation under sustained load)."},
	// HTTP trace: AIPerf 0.13's --help shows these two under "HTTP Trace"
	// (Groups.HTTP_TRACE); the reference lists them under Output.
	{key: keyExportHTTPTrace, names: []string{"export-http-trace"}, group: GroupOutput, kind: kindBool, def: false,
		usage: "Include HTTP trace data (timestamps, chunks, headers, socket info) in profile_export.jsonl. Computed metrics (http_req_duration, http_req_waiting, etc.) are always included regardless of this setting. See the HTTP Trace Metrics guide for details on trace data fields."},
	{key: keyShowTraceTiming, names: []string{"show-trace-timing"}, group: GroupOutput, kind: kindBool, def: false,
		usage: "Display HTTP trace timing metrics in the console at the end of the benchmark. Shows detailed timing breakdown: blocked, DNS, connecting, sending, waiting (TTFB), receiving, and total duration following k6 naming conventions."},

	// GenAI-Perf's --generate-plots; AIPerf 0.13 draws plots only with `aiperf plot`.
	{key: keyGeneratePlots, names: []string{"generate-plots"}, group: GroupOutput, kind: kindBool, def: false,
		usage: "After the run, draw its plots (PNG) and its one-file HTML report (report.html) into <artifact dir>/plots, as `aiperf plot --dashboard` would (GenAI-Perf's option)."},

	// Tokenizer
	{key: keyTokenizer, names: []string{"tokenizer"}, group: GroupTokenizer, kind: kindString, defHelp: "chosen by the application",
		usage: "Tokenizer for token counting and exact-length prompts: \"builtin\" (o200k_base, offline), a local tokenizer.json or a directory holding one, or a Hugging Face repo id (downloaded once into the HF cache; HF_TOKEN for gated repos, HF_HUB_OFFLINE=1 to use only the cache). Defaults to the first --model."},
	{key: keyTokenizerRevision, names: []string{"tokenizer-revision"}, group: GroupTokenizer, kind: kindString, def: "main",
		usage: "Hugging Face revision (branch, tag or commit hash) to load the tokenizer from; pin a commit for reproducible counts."},
	{key: keyTokenizerTrust, names: []string{"tokenizer-trust-remote-code"}, group: GroupTokenizer, kind: kindBool, def: false,
		usage: "Accepted for AIPerf compatibility. aiperf reads tokenizer.json, which never runs remote code, so this changes nothing."},
	{key: keyTokenizerPlugin, names: []string{"tokenizer-plugin"}, group: GroupTokenizer, kind: kindString, def: "hf", category: sdk.CategoryTokenizer,
		usage: "The tokenizer plugin that loads --tokenizer: hf (a tokenizer.json, a directory or a Hugging Face hub id) or builtin (o200k_base, embedded). --tokenizer builtin selects builtin."},

	// Load Generator
	{key: keyBenchmarkDuration, names: []string{"benchmark-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Maximum benchmark runtime in seconds: no new requests are sent after it. Responses arriving within --benchmark-grace-period still count."},
	{key: keyBenchmarkGrace, names: []string{"benchmark-grace-period"}, group: GroupLoadGenerator, kind: kindFloat, defHelp: "30 (inf with --user-centric-rate)",
		usage: "Seconds to wait for in-flight responses after --benchmark-duration ends; later ones are cancelled and excluded. 'inf' waits for all. Only with --benchmark-duration."},
	{key: keyConcurrency, names: []string{"concurrency"}, group: GroupLoadGenerator, kind: kindInt, defHelp: "1 when no request rate is given",
		usage: "Number of concurrent requests to maintain. With --request-rate or --user-centric-rate it is a ceiling on requests in flight (unlimited when not set). Must be >= 1."},
	{key: keyPrefillConcurrency, names: []string{"prefill-concurrency"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "Max concurrent requests waiting for their first token (prefill phase). Requires --streaming; must be <= --concurrency."},
	{key: keyRequestRate, names: []string{"request-rate"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Target request rate in requests per second (open loop, arrivals per --arrival-pattern). Fractional rates are allowed."},
	{key: keyArrivalPattern, names: []string{"arrival-pattern", "request-rate-mode"}, group: GroupLoadGenerator, kind: kindString, defHelp: ArrivalPoisson, category: sdk.CategoryArrivalPattern,
		usage: "Arrival process of --request-rate: constant (fixed gaps), poisson (exponential gaps), gamma (tunable with --arrival-smoothness), concurrency_burst (no gaps)."},
	{key: keyArrivalSmoothness, names: []string{"arrival-smoothness", "vllm-burstiness"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Gamma shape of the arrivals: 1 is Poisson-like, < 1 burstier, > 1 smoother (same as vLLM's --burstiness). Setting it without --arrival-pattern selects gamma."},
	{key: keyRequestCount, names: []string{"request-count", "num-requests"}, group: GroupLoadGenerator, kind: kindInt, defHelp: "max(10, concurrency * 2)",
		usage: "The maximum number of requests to send. Without it: the trace length in fixed schedule, no count limit with --benchmark-duration or --num-sessions, else 10 with a rate and max(10, concurrency * 2) without. Must be >= 1."},
	{key: keyWarmupRequestCount, names: []string{"warmup-request-count", "num-warmup-requests"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "The number of warmup requests to send before benchmarking. Must be > 0; no warmup phase when not set."},
	{key: keyWarmupDuration, names: []string{"warmup-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "The maximum duration in seconds of the warmup phase. No warmup without this, --warmup-request-count or --num-warmup-sessions."},
	{key: keyNumWarmupSessions, names: []string{"num-warmup-sessions"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "The number of sessions (conversations) to send in the warmup phase."},
	{key: keyWarmupConcurrency, names: []string{"warmup-concurrency"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "Concurrency of the warmup phase. Defaults to --concurrency."},
	{key: keyWarmupPrefill, names: []string{"warmup-prefill-concurrency"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "Prefill concurrency of the warmup phase. Defaults to --prefill-concurrency."},
	{key: keyWarmupRequestRate, names: []string{"warmup-request-rate"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Request rate of the warmup phase. Defaults to --request-rate."},
	{key: keyWarmupArrival, names: []string{"warmup-arrival-pattern"}, group: GroupLoadGenerator, kind: kindString, category: sdk.CategoryArrivalPattern,
		usage: "Arrival pattern of the warmup phase. Defaults to --arrival-pattern."},
	{key: keyWarmupGrace, names: []string{"warmup-grace-period"}, group: GroupLoadGenerator, kind: kindFloat, defHelp: "inf",
		usage: "Seconds to wait for warmup responses after --warmup-duration ends. Waits for all of them when not set."},
	{key: keyCancelRate, names: []string{"request-cancellation-rate"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Percentage (0-100] of requests to cancel after --request-cancellation-delay; they are recorded as errors (code 499) with was_cancelled."},
	{key: keyCancelDelay, names: []string{"request-cancellation-delay"}, group: GroupLoadGenerator, kind: kindFloat, defHelp: "0",
		usage: "Seconds after a request was fully sent before it is cancelled (0 = disconnect right after sending). Requires --request-cancellation-rate."},
	{key: keyUserCentricRate, names: []string{"user-centric-rate"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "User-centric mode with this total request rate (QPS): each of --num-users users sends its next turn num_users/qps seconds after the previous one. Needs multi-turn conversations."},
	{key: keyNumUsers, names: []string{"num-users"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "The number of users of --user-centric-rate mode."},
	{key: keyConcurrencyRamp, names: []string{"concurrency-ramp-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Seconds to ramp session concurrency from 1 to its target."},
	{key: keyPrefillRamp, names: []string{"prefill-concurrency-ramp-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Seconds to ramp prefill concurrency from 1 to its target."},
	{key: keyWarmupConcRamp, names: []string{"warmup-concurrency-ramp-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Seconds to ramp warmup concurrency from 1 to its target. Defaults to --concurrency-ramp-duration."},
	{key: keyWarmupPrefillRamp, names: []string{"warmup-prefill-concurrency-ramp-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Seconds to ramp warmup prefill concurrency from 1 to its target. Defaults to --prefill-concurrency-ramp-duration."},
	{key: keyRampType, names: []string{"ramp-type"}, group: GroupLoadGenerator, kind: kindString, def: "linear", category: sdk.CategoryRamp,
		usage: "Shape of every ramp (--concurrency-ramp-duration, --prefill-concurrency-ramp-duration, --request-rate-ramp-duration): linear, exponential (exponent 2) or poisson (stochastic steps). Not an AIPerf flag: AIPerf always ramps linearly."},
	{key: keyRequestRateRamp, names: []string{"request-rate-ramp-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Seconds to ramp the request rate from target*(0.1/duration) to the target. Only with --request-rate."},
	{key: keyWarmupRateRamp, names: []string{"warmup-request-rate-ramp-duration"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Seconds to ramp the warmup request rate to its target. Defaults to --request-rate-ramp-duration."},

	// Service
	{key: keyLogLevel, names: []string{"log-level"}, group: GroupService, kind: kindString, def: "INFO", choices: logLevels,
		usage: "Set the logging verbosity level."},
	{key: keyVerbose, names: []string{"verbose"}, short: "v", group: GroupService, kind: kindCount, def: false,
		usage: "Equivalent to --log-level DEBUG. -vv is --extra-verbose."},
	{key: keyExtraVerbose, names: []string{"extra-verbose"}, helpShort: "vv", group: GroupService, kind: kindBool, def: false,
		usage: "Equivalent to --log-level TRACE."},
	{key: keyUIType, names: []string{"ui-type", "ui"}, group: GroupService, kind: kindString, category: sdk.CategoryUI,
		defHelp: "dashboard when stderr is a terminal, else none",
		usage:   "User interface for benchmark progress: dashboard (full-screen live view), simple (one progress line per phase) or none. -v/-vv, or stderr not being a terminal, turn dashboard into simple."},
	{key: keyPlugins, names: []string{"plugins"}, group: GroupService, kind: kindList,
		usage: "Extra plugin manifest(s) (YAML) declaring gRPC or WASM plugins; repeatable. Also discovered: ~/.config/aiperf/plugins.d/*.yaml, ./aiperf-plugins.yaml and AIPERF_PLUGIN_PATH."},

	{key: keyPluginConfig, names: []string{"plugin-config"}, group: GroupService, kind: kindItems,
		usage: "A setting of one plugin, category.name.key=value (the value is JSON, or a string); repeatable. Overrides the plugin manifest's config. An unknown plugin or key is an error before any request is sent."},

	// Config file (AIPerf's --user-config-file; --config is our short alias)
	{key: keyConfigFile, names: []string{"user-config-file", "config"}, group: GroupConfigFile, kind: kindString,
		usage: "YAML (or JSON) file with option keys (e.g. model_names, concurrency). Precedence: defaults < file < AIPERF_* environment < flags. Falls back to AIPERF_CONFIG_USER_FILE."},

	// Server Metrics (issue 12)
	{key: keyServerMetrics, names: []string{"server-metrics"}, group: "Server Metrics", kind: kindList, optionalValue: true,
		usage: "Server metrics collection (ENABLED BY DEFAULT). Automatically collects from inference endpoint base_url + `/metrics`. Optionally specify additional custom Prometheus-compatible endpoint URLs (e.g., http://node1:8081/metrics, http://node2:9090/metrics). Use `--no-server-metrics` to disable collection. Example: `--server-metrics node1:8081 node2:9090/metrics` for additional endpoints."},
	{key: keyNoServerMetrics, names: []string{"no-server-metrics"}, group: "Server Metrics", kind: kindBool, def: false,
		usage: "Disable server metrics collection entirely."},
	{key: keyServerMetricsFormats, names: []string{"server-metrics-formats"}, group: "Server Metrics", kind: kindList,
		def: []string{"json", "csv"}, choices: serverMetricsFormats,
		usage: "Specify which output formats to generate for server metrics. Multiple formats can be specified (e.g., `--server-metrics-formats json csv jsonl`). parquet is accepted and not written yet."},

	// Telemetry (issue 12)
	{key: keyGPUTelemetry, names: []string{"gpu-telemetry"}, group: "Telemetry", kind: kindList,
		usage: "Enable GPU telemetry console display and optionally specify: (1) 'pynvml' to use the local NVML library instead of DCGM HTTP endpoints, (2) 'dashboard' for realtime dashboard mode (accepted; summary output), (3) custom DCGM exporter URLs (e.g., http://node1:9401/metrics). Default: DCGM mode with localhost:9400 and localhost:9401 endpoints. Examples: --gpu-telemetry pynvml | --gpu-telemetry dashboard node1:9400."},
	{key: keyNoGPUTelemetry, names: []string{"no-gpu-telemetry"}, group: "Telemetry", kind: kindBool, def: false,
		usage: "Disable GPU telemetry collection entirely."},
	{key: keyGPUCollectorPlugin, names: []string{"gpu-telemetry-collector"}, group: "Telemetry", kind: kindString, category: sdk.CategoryGPUTelemetry,
		usage: "The gpu_telemetry_collector plugin that reads each --gpu-telemetry source (ours; default dcgm for URLs, nvml for pynvml): a vendor's plugin from a manifest gets each source as its \"url\" setting."},
	{key: keyServerCollectorPlugin, names: []string{"server-metrics-collector"}, group: "Server Metrics", kind: kindString, category: sdk.CategoryServerMetrics,
		usage: "The server_metrics_collector plugin that scrapes each --server-metrics source (ours; default prometheus): a plugin from a manifest gets each source as its \"url\" setting."},

	// CI gate (issue 14)
	{key: keyFailedRequestThreshold, names: []string{"failed-request-threshold"}, group: GroupLoadGenerator, kind: kindFloat,
		usage: "Abort the run early when (failed_records / total_records) exceeds this ratio (0 to 1). Only profiling-phase records count, and the check is armed once max(concurrency, 10) of them arrived, so a single early failure cannot end the run. In-flight requests are then cancelled, partial results are still exported, and aiperf exits with the too-many-failed-requests status (README, Exit codes)."},
	{key: keyThreshold, names: []string{"threshold"}, group: GroupCIGate, kind: kindItems,
		usage: "A pass/fail check on the results, \"metric:stat<value\" with <, <=, > or >=, in the metric's display unit (ms for latencies, % for request_error_rate): any metric of profile_export_aiperf.json and its avg, min, max, p1 to p99, std, count or sum, e.g. \"time_to_first_token:p99<200\". Repeatable, or several space-separated in one value. A breach sets the thresholds-breached exit status (README, Exit codes); an unknown metric or statistic is an error before anything is sent."},
	{key: keyAbortOnBreach, names: []string{"abort-on-threshold-breach"}, group: GroupCIGate, kind: kindBool, def: false,
		usage: "Stop the run as soon as a --threshold that can be checked while it runs is breached: an upper bound on error_request_count:avg (at once) or request_error_rate:avg (once max(concurrency, 10) requests completed). Other thresholds are checked after the run."},
	{key: keyJUnit, names: []string{"junit"}, group: GroupCIGate, kind: kindString,
		usage: "Write a JUnit XML report to this file: a test suite \"aiperf\" with a test case for the run, one for --failed-request-threshold and one per --threshold, failed on a breach with the measured value."},
	{key: keyMarkdownSummary, names: []string{"markdown-summary"}, group: GroupCIGate, kind: kindString,
		usage: "Append a Markdown summary (verdict, key metrics, thresholds) to this file; pass \"$GITHUB_STEP_SUMMARY\" to show it on a GitHub Actions run."},
	{key: keyFailOnClientLimited, names: []string{"fail-on-client-limited"}, group: GroupCIGate, kind: kindBool, def: false,
		usage: "Exit with the invalid-run status (README, Exit codes) when the run-validity verdict (validity.json, docs/METRICS.md) says the client was the bottleneck (CLIENT-LIMITED). The verdict is reported either way."},

	// Multi-Run (issue 14): AIPerf 0.13's confidence reporting.
	{key: keyNumProfileRuns, names: []string{"num-profile-runs"}, group: GroupMultiRun, kind: kindInt, def: 1,
		usage: "Number of profile runs to execute for confidence reporting. Must be between 1 and 10. When set to 1 (default), runs a single benchmark. When set to >1, runs the benchmark that many times, each into <artifact dir>/profile_runs/run_NNNN/, and writes aggregate statistics across runs (mean, std, confidence interval, coefficient of variation per metric) to <artifact dir>/aggregate/profile_export_aiperf_aggregate.json and .csv."},
	{key: keyProfileRunCooldown, names: []string{"profile-run-cooldown-seconds"}, group: GroupMultiRun, kind: kindFloat, def: 0.0,
		usage: "Cooldown duration in seconds between profile runs (0 to 86400). Only applies when --num-profile-runs > 1. Allows the system to stabilize between runs (e.g., clear caches, cool down GPUs)."},
	{key: keyConfidenceLevel, names: []string{"confidence-level"}, group: GroupMultiRun, kind: kindFloat, def: 0.95,
		usage: "Confidence level for computing confidence intervals (between 0 and 1, exclusive). Only applies when --num-profile-runs > 1. Common values: 0.90 (90%), 0.95 (95%, default), 0.99 (99%). Higher values produce wider confidence intervals."},
	{key: keyDisableWarmupAfterFirst, names: []string{"profile-run-disable-warmup-after-first"}, group: GroupMultiRun, kind: kindBool, def: true,
		usage: "Disable warmup for profile runs after the first. Only applies when --num-profile-runs > 1. When true (default), only the first run includes warmup, subsequent runs measure steady-state performance for more accurate aggregate statistics. When false (--no-profile-run-disable-warmup-after-first), all runs include warmup (useful for long cooldown periods or when testing cold-start performance)."},
	{key: keyNoDisableWarmupAfterFirst, names: []string{"no-profile-run-disable-warmup-after-first"}, group: GroupMultiRun, kind: kindBool, def: false,
		usage: "Run the warmup before every profile run, not only the first (the negation of --profile-run-disable-warmup-after-first)."},
	{key: keySetConsistentSeed, names: []string{"set-consistent-seed"}, group: GroupMultiRun, kind: kindBool, def: true,
		usage: "Automatically set random seed for consistent workloads across runs. Only applies when --num-profile-runs > 1. When true (default), automatically sets --random-seed=42 if not specified, ensuring identical workloads across all runs for valid statistical comparison. If --random-seed is explicitly set, that value is always used regardless of this setting."},
	{key: keyNoSetConsistentSeed, names: []string{"no-set-consistent-seed"}, group: GroupMultiRun, kind: kindBool, def: false,
		usage: "Do not set a seed when --random-seed is not given: every profile run draws its own, so the workloads differ (not recommended for confidence reporting). The negation of --set-consistent-seed."},
	{key: keyVarySeedPerTrial, names: []string{"vary-seed-per-trial"}, group: GroupMultiRun, kind: kindBool, def: false,
		usage: "When true, derive a distinct seed for each profile run via SHA-256 over (seed, run index), as AIPerf does. When false (default), all runs share the same seed, giving pure-runtime variance for confidence intervals. Enable when you want runs to also sample different inputs (captures end-to-end variance at the cost of conflating input noise with runtime noise)."},
	{key: keyNoVarySeedPerTrial, names: []string{"no-vary-seed-per-trial"}, group: GroupMultiRun, kind: kindBool, def: false,
		usage: "All profile runs share one seed (the default; the negation of --vary-seed-per-trial)."},

	// Sharding (issue 17; not AIPerf flags): one plan split over several
	// aiperf processes, merged into one result (README, "Beyond one machine").
	{key: keyServiceManager, names: []string{"service-manager"}, group: GroupSharding, kind: kindString, def: "inprocess", category: sdk.CategoryServiceManager,
		usage: "Where the profile runs: inprocess (this process), local (--shards child processes on this host) or kubernetes (a Kubernetes Indexed Job of --shards pods, --image). Every shard sends a disjoint stripe of the same plan; the results are merged into this run's artifact directory."},
	{key: keyShards, names: []string{"shards"}, group: GroupSharding, kind: kindInt, def: 1,
		usage: "Number of shards for --service-manager local or kubernetes. Open loop: each shard sends its own arrival indices at the times one process would. Closed loop: --concurrency and --request-count are split into shares that sum exactly."},
	{key: keyExact, names: []string{"exact"}, group: GroupSharding, kind: kindBool, def: false,
		usage: "Kubernetes shards also send back their per-request records, and the merge recomputes every statistic with the single-process code (default there: counts, sums, min, max, mean and std exact, percentiles from merged DDSketches within 0.1%). Local shards keep their records on disk, so their merge is always exact."},
	{key: keyAllowPartial, names: []string{"allow-partial"}, group: GroupSharding, kind: kindBool, def: false,
		usage: "Exit 0 when a shard failed and the merged result (marked PARTIAL) holds the other shards only; without it such a run exits with the partial status (README, Exit codes)."},
	{key: keyImage, names: []string{"image"}, group: GroupSharding, kind: kindString,
		usage: "Container image with the aiperf binary the kubernetes service manager runs (make image builds one)."},
	{key: keyNamespace, names: []string{"namespace"}, group: GroupSharding, kind: kindString,
		usage: "Kubernetes namespace of the shards' Job (default: the kubeconfig context's namespace)."},
	{key: keyNodeSelector, names: []string{"node-selector"}, group: GroupSharding, kind: kindList,
		usage: "Node labels the shard pods must run on, key=value; repeatable."},
	{key: keyResources, names: []string{"resources"}, group: GroupSharding, kind: kindString,
		usage: "CPU and memory of each shard pod, requested and limited, e.g. \"cpu=2,memory=4Gi\"."},
	{key: keyKeepJob, names: []string{"keep-job"}, group: GroupSharding, kind: kindBool, def: false,
		usage: "Keep the Kubernetes Job, its pods and Service after the run (default: deleted)."},
	{key: keyShardIndex, names: []string{"shard-index"}, group: GroupSharding, kind: kindInt, def: 0,
		usage: "This process's shard, 0..--shard-count-1 (set by the service manager)."},
	{key: keyShardCount, names: []string{"shard-count"}, group: GroupSharding, kind: kindInt, def: 1,
		usage: "Number of shards of the run this process is one of (set by the service manager)."},
	{key: keyShardBarrier, names: []string{"shard-barrier"}, group: GroupSharding, kind: kindString,
		usage: "URL of the start barrier shard 0 serves; every shard presents its plan's hash there and all start together (set by the service manager)."},
	{key: keyShardBarrierListen, names: []string{"shard-barrier-listen"}, group: GroupSharding, kind: kindString,
		usage: "Address shard 0 serves the start barrier on, e.g. :7470 (set by the service manager; ignored by other shards)."},
	{key: keyShardBarrierTimeout, names: []string{"shard-barrier-timeout"}, group: GroupSharding, kind: kindFloat, def: 300.0,
		usage: "Seconds a shard waits for every shard at the start barrier before it fails the run."},
	{key: keyShardEmitResult, names: []string{"shard-emit-result"}, group: GroupSharding, kind: kindBool, def: false,
		usage: "At the end, write this shard's result as framed lines to stdout and a status to the termination log (Kubernetes keeps no files of a finished pod; set by the kubernetes service manager)."},
}

// Lookup tables built once from options.
var (
	optionByKey    = map[string]*option{} // canonical key -> option
	optionByName   = map[string]*option{} // any flag name (primary or alias) -> option
	optionByAnyKey = map[string]*option{} // canonical key or alias in snake_case -> option
)

func init() {
	for _, o := range options {
		optionByKey[o.key] = o
		for _, n := range o.names {
			optionByName[n] = o
			optionByAnyKey[snake(n)] = o
		}
		optionByAnyKey[o.key] = o
	}
}

// snake turns a flag name into its config-key spelling.
func snake(name string) string {
	b := []byte(name)
	for i, c := range b {
		if c == '-' {
			b[i] = '_'
		}
	}
	return string(b)
}

// repeatable reports whether the option takes several values.
func (k optKind) repeatable() bool { return k == kindList || k == kindPairs || k == kindItems }
