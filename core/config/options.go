package config

// Help group headings, in the order AIPerf's reference prints them. Flags
// registered by other packages can join a group with GroupAnnotation.
const (
	GroupEndpoint          = "Endpoint"
	GroupInput             = "Input"
	GroupPrompt            = "Prompt"
	GroupISL               = "Input Sequence Length (ISL)"
	GroupOSL               = "Output Sequence Length (OSL)"
	GroupSynthesis         = "Synthesis"
	GroupConversationInput = "Conversation Input"
	GroupOutput            = "Output"
	GroupTokenizer         = "Tokenizer"
	GroupLoadGenerator     = "Load Generator"
	GroupService           = "Service"
	GroupConfigFile        = "Configuration File"
)

// groupOrder is the reference's heading order (groups this package does not
// fill are kept so flags added elsewhere still land in the right place).
var groupOrder = []string{
	GroupEndpoint, GroupInput, "Audio Input", "Image Input", "Video Input", GroupPrompt,
	GroupISL, GroupOSL, "Prefix Prompt", "Rankings", GroupSynthesis, GroupConversationInput,
	GroupOutput, GroupTokenizer, GroupLoadGenerator, "Telemetry", "Server Metrics",
	"ZMQ Communication", "Workers", GroupService, GroupConfigFile,
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
	case kindList, kindPairs:
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
	usage    string
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
	keyGoodput            = "goodput"
	keyUIType             = "ui_type"
	keyLogLevel           = "log_level"
	keyVerbose            = "verbose"
	keyExtraVerbose       = "extra_verbose"
	keyConfigFile         = "user_config_file"
)

// Fixed choice lists (AIPerf enums).
var (
	exportLevels = []string{"summary", "records", "raw"}
	uiTypes      = []string{"dashboard", "simple", "none"}
	logLevels    = []string{"TRACE", "DEBUG", "INFO", "NOTICE", "WARNING", "SUCCESS", "ERROR", "CRITICAL"}
)

// options lists every setting in help order (group by group, reference order
// within a group).
var options = []*option{
	// Endpoint
	{key: keyModelNames, names: []string{"model-names", "model"}, short: "m", group: GroupEndpoint, kind: kindList, required: true,
		usage: "Model name(s) to be benchmarked. Can be a comma-separated list or a single model name."},
	{key: keyCustomEndpoint, names: []string{"custom-endpoint", "endpoint"}, group: GroupEndpoint, kind: kindString,
		usage: "Set a custom API endpoint path (e.g., /v1/custom). Overrides the endpoint type's default path."},
	{key: keyEndpointType, names: []string{"endpoint-type"}, group: GroupEndpoint, kind: kindString, def: "chat",
		usage: "The API endpoint type to benchmark. Determines request/response format and supported features."},
	{key: keyStreaming, names: []string{"streaming"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "Enable streaming responses (needed for time-to-first-token and inter-token latency)."},
	{key: keyURL, names: []string{"url"}, short: "u", group: GroupEndpoint, kind: kindList, def: []string{"localhost:8000"},
		usage: "Base URL(s) of the API server(s) to benchmark; repeat for several servers. \"http://\" is prepended when no scheme is given."},
	{key: keyRequestTimeout, names: []string{"request-timeout-seconds"}, group: GroupEndpoint, kind: kindFloat, def: 21600.0,
		usage: "Maximum time in seconds to wait for each HTTP request to complete. Requests exceeding it are cancelled and recorded as failures."},
	{key: keyAPIKey, names: []string{"api-key"}, group: GroupEndpoint, kind: kindString,
		usage: "API authentication key, sent as \"Authorization: Bearer <api_key>\". Never written to logs or artifacts."},
	{key: keyLegacyMaxTokens, names: []string{"use-legacy-max-tokens"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "Use the legacy 'max_tokens' field instead of 'max_completion_tokens' in request payloads."},
	{key: keyServerTokenCount, names: []string{"use-server-token-count"}, group: GroupEndpoint, kind: kindBool, def: false,
		usage: "Take ISL/OSL/reasoning token counts from the server's usage fields instead of client-side tokenization (stream_options.include_usage is requested automatically). Counts stay absent when the server reports no usage."},

	// Input
	{key: keyExtraInputs, names: []string{"extra-inputs"}, group: GroupInput, kind: kindPairs,
		usage: "Additional request payload fields as key:value pairs (e.g., temperature:0.7) or a JSON object string. Repeatable."},
	{key: keyHeader, names: []string{"header"}, short: "H", group: GroupInput, kind: kindPairs,
		usage: "Custom HTTP headers as Header:Value pairs or a JSON object string. Repeatable."},
	{key: keyRandomSeed, names: []string{"random-seed"}, group: GroupInput, kind: kindInt,
		usage: "Random seed for deterministic data generation. Uses system entropy if not specified."},
	{key: keyGoodput, names: []string{"goodput"}, group: GroupInput, kind: kindString,
		usage: "Service level objectives for goodput as space-separated 'KEY:VALUE' pairs (e.g., 'request_latency:250 inter_token_latency:10')."},

	// ISL
	{key: keyISLMean, names: []string{"prompt-input-tokens-mean", "synthetic-input-tokens-mean", "isl"}, group: GroupISL, kind: kindInt, def: 550,
		usage: "Mean number of tokens for synthetically generated input prompts."},
	{key: keyISLStddev, names: []string{"prompt-input-tokens-stddev", "synthetic-input-tokens-stddev", "isl-stddev"}, group: GroupISL, kind: kindFloat, def: 0.0,
		usage: "Standard deviation of synthetic input prompt token lengths."},

	// OSL
	{key: keyOSLMean, names: []string{"prompt-output-tokens-mean", "output-tokens-mean", "osl"}, group: GroupOSL, kind: kindInt,
		usage: "Mean number of output tokens to request (max_completion_tokens). When not set, the model decides the output length."},
	{key: keyOSLStddev, names: []string{"prompt-output-tokens-stddev", "output-tokens-stddev", "osl-stddev"}, group: GroupOSL, kind: kindFloat, def: 0.0,
		usage: "Standard deviation of requested output lengths. Only applies when --prompt-output-tokens-mean is set."},

	// Conversation Input
	{key: keyNumDatasetEntries, names: []string{"num-dataset-entries", "num-prompts"}, group: GroupConversationInput, kind: kindInt, def: 100,
		usage: "Total number of unique entries to generate for the dataset."},

	// Output
	{key: keyArtifactDir, names: []string{"output-artifact-dir", "artifact-dir"}, group: GroupOutput, kind: kindString, def: "artifacts",
		usage: "Output directory for all benchmark artifacts. When not set, a per-run subdirectory <model>-<service_kind>-<endpoint_type>-<stimulus> is created under the default."},
	{key: keyExportPrefix, names: []string{"profile-export-prefix", "profile-export-file"}, group: GroupOutput, kind: kindString,
		usage: "Custom prefix for profile export file names (foo gives foo.json, foo.csv, foo.jsonl). Defaults to profile_export_aiperf / profile_export."},
	{key: keyExportLevel, names: []string{"export-level", "profile-export-level"}, group: GroupOutput, kind: kindString, def: "records", choices: exportLevels,
		usage: "Controls which output files are generated: summary (aggregates), records (+ per-request metrics), raw (+ raw request/response data)."},

	// Tokenizer
	{key: keyTokenizer, names: []string{"tokenizer"}, group: GroupTokenizer, kind: kindString, defHelp: "chosen by the application",
		usage: "Tokenizer for token counting and exact-length prompts: \"builtin\" (o200k_base, offline), a local tokenizer.json or a directory holding one, or a Hugging Face repo id (downloaded once into the HF cache; HF_TOKEN for gated repos, HF_HUB_OFFLINE=1 to use only the cache). Defaults to the first --model."},
	{key: keyTokenizerRevision, names: []string{"tokenizer-revision"}, group: GroupTokenizer, kind: kindString, def: "main",
		usage: "Hugging Face revision (branch, tag or commit hash) to load the tokenizer from; pin a commit for reproducible counts."},
	{key: keyTokenizerTrust, names: []string{"tokenizer-trust-remote-code"}, group: GroupTokenizer, kind: kindBool, def: false,
		usage: "Accepted for AIPerf compatibility. aiperf reads tokenizer.json, which never runs remote code, so this changes nothing."},

	// Load Generator
	{key: keyConcurrency, names: []string{"concurrency"}, group: GroupLoadGenerator, kind: kindInt, defHelp: "1 when no request rate is given",
		usage: "Number of concurrent requests to maintain. Must be >= 1."},
	{key: keyRequestCount, names: []string{"request-count", "num-requests"}, group: GroupLoadGenerator, kind: kindInt, defHelp: "max(10, concurrency * 2)",
		usage: "The maximum number of requests to send. Must be >= 1."},
	{key: keyWarmupRequestCount, names: []string{"warmup-request-count", "num-warmup-requests"}, group: GroupLoadGenerator, kind: kindInt,
		usage: "The number of warmup requests to send before benchmarking. Must be > 0; no warmup phase when not set."},

	// Service
	{key: keyLogLevel, names: []string{"log-level"}, group: GroupService, kind: kindString, def: "INFO", choices: logLevels,
		usage: "Set the logging verbosity level."},
	{key: keyVerbose, names: []string{"verbose"}, short: "v", group: GroupService, kind: kindCount, def: false,
		usage: "Equivalent to --log-level DEBUG. -vv is --extra-verbose."},
	{key: keyExtraVerbose, names: []string{"extra-verbose"}, helpShort: "vv", group: GroupService, kind: kindBool, def: false,
		usage: "Equivalent to --log-level TRACE."},
	{key: keyUIType, names: []string{"ui-type", "ui"}, group: GroupService, kind: kindString, choices: uiTypes,
		defHelp: "simple when stderr is a terminal, else none",
		usage:   "User interface for benchmark progress. dashboard is accepted and runs as simple (no TUI yet)."},

	// Config file (AIPerf's --user-config-file; --config is our short alias)
	{key: keyConfigFile, names: []string{"user-config-file", "config"}, group: GroupConfigFile, kind: kindString,
		usage: "YAML (or JSON) file with option keys (e.g. model_names, concurrency). Precedence: defaults < file < AIPERF_* environment < flags. Falls back to AIPERF_CONFIG_USER_FILE."},
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
