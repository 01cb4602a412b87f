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
//	url                         -u --url                        list  [localhost:8000]
//	endpoint_type               --endpoint-type                 str   [chat]
//	custom_endpoint             --custom-endpoint --endpoint    str
//	streaming                   --streaming                     bool
//	api_key                     --api-key                       str   (secret)
//	request_timeout_seconds     --request-timeout-seconds       float [21600]
//	use_legacy_max_tokens       --use-legacy-max-tokens         bool
//	use_server_token_count      --use-server-token-count        bool
//	extra_inputs                --extra-inputs                  list of "k:v" / JSON, or a mapping
//	header                      -H --header                     list of "Name:Value" / JSON, or a mapping
//	random_seed                 --random-seed                   int
//	goodput                     --goodput                       str (checked by core/metrics)
//	prompt_input_tokens_mean    --isl ...                       int   [550]
//	prompt_input_tokens_stddev  --isl-stddev ...                float [0]
//	prompt_output_tokens_mean   --osl ...                       int
//	prompt_output_tokens_stddev --osl-stddev ...                float [0]
//	num_dataset_entries         --num-dataset-entries --num-prompts   int [100]
//	output_artifact_dir         --output-artifact-dir --artifact-dir  str [artifacts]
//	profile_export_prefix       --profile-export-prefix --profile-export-file  str
//	export_level                --export-level --profile-export-level  summary|records|raw [records]
//	tokenizer                   --tokenizer                     str
//	tokenizer_revision          --tokenizer-revision            str   [main]
//	tokenizer_trust_remote_code --tokenizer-trust-remote-code   bool
//	concurrency                 --concurrency                   int   [1 without a rate]
//	request_count               --request-count --num-requests  int   [max(10, 2*concurrency)]
//	warmup_request_count        --warmup-request-count --num-warmup-requests  int
//	log_level                   --log-level                     TRACE..CRITICAL [INFO]
//	verbose                     -v --verbose                    bool (-vv = extra_verbose)
//	extra_verbose               -vv --extra-verbose             bool
//	ui_type                     --ui-type --ui                  dashboard|simple|none
//
// The config file itself is named by --user-config-file/--config,
// AIPERF_USER_CONFIG_FILE or AIPerf's AIPERF_CONFIG_USER_FILE; unknown keys
// in it are rejected with their line. Other AIPERF_* variables (AIPerf
// runtime settings) are ignored.
//
// # Validation
//
// RunConfig.Validate returns every problem at once, joined with newlines,
// each naming the flag, the rule and the value (secrets masked).
package config
