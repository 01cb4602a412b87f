package genaiperf

// Template is `create-template`'s file: GenAI-Perf's sections and keys
// (genai_perf/config/input/*.py) at their defaults, except where
// GenAI-Perf's default is Triton's gRPC endpoint, which aiperf does not
// speak: there it names the OpenAI-compatible HTTP equivalent. Keys left
// empty keep the default; Translate accepts the file unchanged.
const Template = `# GenAI-Perf configuration (aiperf config -f FILE runs it as aiperf profile).
# Keys left empty keep their default.

# The name of the model(s) to benchmark.
model_names:

# Uncomment the lines below to enable the analyze subcommand
# For further details see analyze.md
# analyze:
#   concurrency:
#     start: 1
#     stop: 1024

endpoint:
  # When multiple model are specified, this is how a specific model should be assigned to a prompt.
  # round_robin: nth prompt in the list gets assigned to n-mod len(models).
  # random: assignment is uniformly random
  model_selection_strategy: round_robin

  # When benchmarking Triton, this is the backend of the model.
  # (Triton's KServe gRPC endpoint only; aiperf speaks HTTP, so leave it empty.)
  backend:

  # Set a custom endpoint that differs from the OpenAI defaults.
  custom:

  # The type to send requests to on the server.
  type: chat

  # The service kind: openai for HTTP servers.
  service_kind: openai

  # An option to enable the use of the streaming API.
  streaming: False

  # The list of server metrics URLs.
  # These are used for Telemetry metric reporting.
  server_metrics_urls:

  # URL of the endpoint to target for benchmarking.
  url: localhost:8000

perf_analyzer:
  # Path to Perf Analyzer binary (aiperf sends requests itself; keep the default)
  path: perf_analyzer

  # Enables verbose output from Perf Analyzer
  verbose: False

  # The type and value of stimulus to benchmark
  stimulus:
    concurrency: 1

  # The allowed variation in latency measurements when determining if a result is stable.
  stability_percentage: 999

  # The number of warmup requests to send before benchmarking.
  warmup_request_count: 0

  measurement:
    # The mode of measurement to use in PA: request_count or interval
    mode: request_count

    # If left unset, the default value will be inferred based on the mode.
    num:

input:
  # The batch size of text requests GenAI-Perf should send.
  # This is currently supported with the embeddings and rankings endpoint types
  batch_size: 1

  # Provide additional inputs to include with every request.
  # Inputs should be in an 'input_name:value' format.
  extra:

  # An option to provide constraints in order to compute goodput.
  # Specify goodput constraints as 'key:value' pairs, e.g. request_latency: 300
  goodput:

  # Adds a custom header to the requests.
  # Headers must be specified as 'Header:Value' pairs.
  header:

  # The file or directory containing the content to use for profiling.
  file:

  # The number of unique payloads to sample from.
  # These will be reused until benchmarking is complete.
  num_dataset_entries: 100

  # The seed used to generate random values.
  random_seed: 0

  image:
    # The image batch size of the requests GenAI-Perf should send.
    batch_size:  # default 1
    # The mean width of the images when generating synthetic image data.
    width_mean:  # default 0
    # The standard deviation of width of images when generating synthetic image data.
    width_stddev:  # default 0
    # The mean height of images when generating synthetic image data.
    height_mean:  # default 0
    # The standard deviation of height of images when generating synthetic image data.
    height_stddev:  # default 0
    # The compression format of the images.
    format:  # default png

  output_tokens:
    # The mean number of tokens in each output.
    mean:
    # This can be set to improve the precision of the mean (Triton only).
    deterministic:  # default False
    # The standard deviation of the number of tokens in each output.
    stddev:

  synthetic_tokens:
    # The mean of number of tokens in the generated prompts when using synthetic data.
    mean:  # default 550
    # The standard deviation of number of tokens in the generated prompts when using synthetic data.
    stddev:  # default 0

  prefix_prompt:
    # The number of prefix prompts to select from.
    # If this value is not zero, these are prompts that are prepended to input prompts.
    num:  # default 0
    # The number of tokens in each prefix prompt.
    length:  # default 100

  sessions:
    # The number of sessions to simulate
    num:  # default 0
    turns:
      # The mean number of turns in a session
      mean:  # default 1
      # The standard deviation of the number of turns in a session
      stddev:  # default 0
    turn_delay:
      # The mean delay (in ms) between turns in a session
      mean:  # default 0
      # The standard deviation (in ms) of the delay between turns in a session
      stddev:  # default 0
      # A ratio to scale the turn delays
      ratio:  # default 1.0

output:
  # The directory to store all the (output) artifacts generated by GenAI-Perf.
  artifact_directory: ./artifacts

  # The directory to store/restore the checkpoint generated by GenAI-Perf.
  checkpoint_directory: ./checkpoint

  # The name the profile exports start with (no directory: see artifact_directory).
  # Empty keeps aiperf's names (profile_export_aiperf.json, profile_export.jsonl).
  profile_export_file:

  # Enables the generation of plots
  generate_plots: False

tokenizer:
  # By default this is the model's name
  name:

  # The specific model version to use.
  revision: main

  # Allows custom tokenizer to be downloaded and executed.
  trust_remote_code: False
`
