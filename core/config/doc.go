// Package config resolves the configuration of `aiperf profile`: its flags
// (AIPerf's names, aliases, defaults and help groups), an optional YAML
// config file, AIPERF_* environment variables, validation, and the values
// derived from them (URLs, effective counts, headers, extra inputs, the
// artifact directory and file names, and secret-free exports).
//
// # Precedence
//
// defaults < --user-config-file (alias --config) < AIPERF_* environment <
// flags the user set. Defaults live only in the options table (options.go),
// which also generates the flags and their --help text, so the help always
// shows the real defaults.
//
// # Keys
//
// One flat key per option: the primary flag name in snake_case. The same
// key is the YAML key and, upper-cased behind AIPERF_, the environment
// variable (AIPERF_MODEL_NAMES). Aliases are accepted in both places too
// (isl, AIPERF_ISL); setting an option twice in one source is an error.
// "__" is reserved as the nesting separator in variable names because keys
// contain "_".
//
//	model_names                 -m --model-names --model        list (required)
//	model_selection_strategy    --model-selection-strategy      round_robin|random [round_robin]
//	url                         -u --url                        list  [localhost:8000]
//	url_strategy                --url-strategy                  round_robin [round_robin]
//	endpoint_type               --endpoint-type                 str   [chat]
//	custom_endpoint             --custom-endpoint --endpoint    str
//	streaming                   --streaming                     bool
//	api_key                     --api-key                       str   (secret)
//	request_timeout_seconds     --request-timeout-seconds       float [21600]
//	use_legacy_max_tokens       --use-legacy-max-tokens         bool
//	use_server_token_count      --use-server-token-count        bool
//	connection_reuse_strategy   --connection-reuse-strategy     pooled|never|sticky-user-sessions [pooled]
//	extra_inputs                --extra-inputs                  list of "k:v" / JSON, or a mapping
//	header                      -H --header                     list of "Name:Value" / JSON, or a mapping
//	input_file                  --input-file                    str (must exist)
//	fixed_schedule              --fixed-schedule                bool  [auto for a mooncake_trace with timestamps]
//	fixed_schedule_auto_offset  --fixed-schedule-auto-offset    bool  [true when only the end offset is set]
//	fixed_schedule_start_offset --fixed-schedule-start-offset   int ms
//	fixed_schedule_end_offset   --fixed-schedule-end-offset     int ms
//	no_fixed_schedule           --no-fixed-schedule             bool
//	custom_dataset_type         --custom-dataset-type           mooncake_trace|multi_turn|random_pool|single_turn
//	dataset_sampling_strategy   --dataset-sampling-strategy     random|sequential|shuffle
//	random_seed                 --random-seed                   int
//	goodput                     --goodput                       str (checked by core/metrics)
//	prompt_input_tokens_mean    --isl ...                       int   [550]
//	prompt_input_tokens_stddev  --isl-stddev ...                float [0]
//	prompt_input_tokens_block_size --isl-block-size ...         int   [512, the loader's default]
//	prompt_output_tokens_mean   --osl ...                       int
//	prompt_output_tokens_stddev --osl-stddev ...                float [0]
//	conversation_num            --conversation-num --num-conversations --num-sessions  int
//	num_dataset_entries         --num-dataset-entries --num-prompts   int [--num-sessions, else --request-count, else 100]
//	conversation_turn_mean      --conversation-turn-mean --session-turns-mean   int [1]
//	conversation_turn_stddev    --conversation-turn-stddev --session-turns-stddev  int [0]
//	conversation_turn_delay_mean   --session-turn-delay-mean ...    float ms [0]
//	conversation_turn_delay_stddev --session-turn-delay-stddev ...  float ms [0]
//	conversation_turn_delay_ratio  --session-delay-ratio ...        float [1]
//	output_artifact_dir         --output-artifact-dir --artifact-dir  str [artifacts]
//	profile_export_prefix       --profile-export-prefix --profile-export-file  str
//	export_level                --export-level --profile-export-level  summary|records|raw [records]
//	tokenizer                   --tokenizer                     str
//	tokenizer_revision          --tokenizer-revision            str   [main]
//	tokenizer_trust_remote_code --tokenizer-trust-remote-code   bool
//	benchmark_duration          --benchmark-duration            float s
//	benchmark_grace_period      --benchmark-grace-period        float s or inf [30; inf user-centric]
//	concurrency                 --concurrency                   int   [1 in concurrency mode, else no ceiling]
//	prefill_concurrency         --prefill-concurrency           int (needs streaming)
//	request_rate                --request-rate                  float req/s
//	arrival_pattern             --arrival-pattern --request-rate-mode  concurrency_burst|constant|gamma|poisson [poisson]
//	arrival_smoothness          --arrival-smoothness --vllm-burstiness float (alone: gamma)
//	request_count               --request-count --num-requests  int   [see EffectiveRequestCount]
//	warmup_request_count        --warmup-request-count --num-warmup-requests  int
//	warmup_duration             --warmup-duration               float s
//	num_warmup_sessions         --num-warmup-sessions           int
//	warmup_concurrency, warmup_prefill_concurrency, warmup_request_rate, warmup_arrival_pattern
//	                            --warmup-*                      [inherit the profiling value]
//	warmup_grace_period         --warmup-grace-period           float s or inf [inf]
//	request_cancellation_rate   --request-cancellation-rate     float % (0, 100]
//	request_cancellation_delay  --request-cancellation-delay    float s [0]
//	user_centric_rate           --user-centric-rate             float req/s
//	num_users                   --num-users                     int
//	concurrency_ramp_duration, prefill_concurrency_ramp_duration, request_rate_ramp_duration
//	                            --*-ramp-duration               float s
//	warmup_concurrency_ramp_duration, warmup_prefill_concurrency_ramp_duration,
//	warmup_request_rate_ramp_duration  --warmup-*-ramp-duration  float s [inherit]
//	log_level                   --log-level                     TRACE..CRITICAL [INFO]
//	plugins                     --plugins                       list of plugin manifest files
//	verbose                     -v --verbose                    bool (-vv = extra_verbose)
//	extra_verbose               -vv --extra-verbose             bool
//	ui_type                     --ui-type --ui                  dashboard|simple|none
//
// The config file itself is named by --user-config-file/--config,
// AIPERF_USER_CONFIG_FILE or AIPerf's AIPERF_CONFIG_USER_FILE; unknown keys
// in it are rejected with their line. Other AIPERF_* variables (AIPerf
// runtime settings) are ignored.
//
// # Load generation
//
// Mode picks the profiling phase's timing mode (fixed schedule >
// user-centric > request rate > concurrency); Profiling and Warmup return
// each phase with defaults and AIPerf's warmup inheritance applied;
// RequestCancellation, FixedScheduleWindow and DatasetOptions cover the
// rest. Load looks into a mooncake_trace --input-file (first record's
// timestamp, entry count) to decide fixed schedule automatically.
//
// # Validation
//
// RunConfig.Validate returns every problem at once, joined with newlines,
// each naming the flag, the rule and the value (secrets masked); it
// enforces AIPerf's rejected flag combinations (docs/METRICS.md §9, Load generation).
package config
