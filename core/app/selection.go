package app

import (
	"maps"
	"strings"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Selection names the plugin of every single-choice category a run uses
// as a whole. It is the one table from configuration to plugin names:
// nothing else in the core picks a plugin by a name of its own.
type Selection struct {
	// Names maps a category to its plugin. Every run-wide flag that names a
	// plugin (config.PluginChoices: --endpoint-type, --transport, --ui-type,
	// --url-strategy, --dataset-sampling-strategy, --ramp-type,
	// --tokenizer-plugin, --public-dataset) lands here, then the rules
	// below: the composer (public with --public-dataset, custom with
	// --input-file, else synthetic_rankings for an endpoint type whose name
	// contains "rankings", else synthetic, as AIPerf's dataset manager
	// chooses), the tokenizer (builtin for --tokenizer builtin) and the
	// sampler's default (sequential for trace replay and public datasets,
	// else shuffle).
	Names map[string]string
	// Settings are what AIPerf's flags set on run-wide plugins, by
	// "category.name" (the host layers them over the manifest's config and
	// under --plugin-config).
	Settings map[string]map[string]any
}

// Name is the plugin selected for category ("" when none is).
func (s Selection) Name(category string) string { return s.Names[category] }

// Composer names (dataset_composer plugins) the table chooses between.
const (
	composerSynthetic = "synthetic"
	composerRankings  = "synthetic_rankings"
	composerCustom    = "custom"
	composerPublic    = "public"
)

// Dataset samplers the table defaults to.
const (
	samplerShuffle    = "shuffle"
	samplerSequential = "sequential"
)

// tokenizerBuiltin is both the --tokenizer value and the tokenizer plugin
// that counts with the embedded o200k_base vocabulary.
const tokenizerBuiltin = "builtin"

// timingStrategies maps each AIPerf timing mode (chosen by
// config.RunConfig.Mode in AIPerf's priority order) to its strategy.
var timingStrategies = map[config.TimingMode]string{
	config.ModeFixedSchedule: "fixed_schedule",
	config.ModeUserCentric:   "user_centric_rate",
	config.ModeRequestRate:   "request_rate",
	config.ModeConcurrency:   "concurrency",
}

// selectPlugins applies the table to a validated configuration.
func selectPlugins(cfg *config.RunConfig) Selection {
	names := cfg.PluginChoices()
	names[sdk.CategoryDatasetComposer] = syntheticComposer(cfg.EndpointType)
	if cfg.InputFile != "" {
		names[sdk.CategoryDatasetComposer] = composerCustom
	}
	if cfg.PublicDataset != "" {
		// AIPerf's public datasets prefer sequential sampling (every
		// public loader's get_preferred_sampling_strategy).
		names[sdk.CategoryDatasetComposer] = composerPublic
		if names[sdk.CategoryDatasetSampler] == "" {
			names[sdk.CategoryDatasetSampler] = samplerSequential
		}
	}
	if sdk.NormalizeName(cfg.Tokenizer) == tokenizerBuiltin {
		names[sdk.CategoryTokenizer] = tokenizerBuiltin
	}
	if names[sdk.CategoryDatasetSampler] == "" {
		names[sdk.CategoryDatasetSampler] = samplerShuffle
	}
	if cfg.FixedSchedule() {
		// Trace replay sends entries in time order, each at its offset.
		names[sdk.CategoryDatasetSampler] = samplerSequential
	}
	return Selection{Names: names, Settings: runSettings(cfg)}
}

// syntheticComposer is the composer of a run without --input-file:
// synthetic_rankings when the endpoint type's name contains "rankings"
// (nim_rankings, hf_tei_rankings, cohere_rankings: AIPerf's
// dataset_manager.py _is_rankings_endpoint), else synthetic.
func syntheticComposer(endpointType string) string {
	if strings.Contains(strings.ToLower(endpointType), "rankings") {
		return composerRankings
	}
	return composerSynthetic
}

// runSettings maps AIPerf's flags onto the settings of the run-wide plugins
// they belong to: the multi-turn, batch and media flags onto the synthetic
// composer (session_turns_mean, session_turns_stddev, turn_delay_mean_ms,
// turn_delay_stddev_ms; prompt_batch_size, image_*, audio_*, video_*: see
// config.SyntheticMediaSettings; sequence_distribution and
// prefix_prompt_* from --seq-dist and --num-prefix-prompts/
// --prefix-prompt-length: config.PrefixPromptSettings), the --rankings-*
// flags onto the
// synthetic_rankings composer (passages_*, passage_tokens_*,
// query_tokens_*), --isl-block-size onto the mooncake_trace loader
// (block_size), --export-http-trace onto the jsonl exporter
// (export_http_trace), --slice-duration onto the metric_results accumulator
// (slice_duration: it computes the timeslices the timeslices exporter
// writes) and --show-trace-timing onto the http_trace console
// exporter (show_trace_timing). A flag left at its default sets nothing, so
// the plugin's own default stands.
func runSettings(cfg *config.RunConfig) map[string]map[string]any {
	out := map[string]map[string]any{}
	synth := cfg.SyntheticSessionSettings()
	maps.Copy(synth, cfg.SyntheticMediaSettings())
	maps.Copy(synth, cfg.PrefixPromptSettings())
	if len(synth) > 0 {
		out[sdk.DatasetComposers.Name+"."+composerSynthetic] = synth
	}
	if s := cfg.RankingsSettings(); len(s) > 0 {
		out[sdk.DatasetComposers.Name+"."+composerRankings] = s
	}
	if s := cfg.RandomPoolSettings(); len(s) > 0 && cfg.InputFile != "" {
		out[sdk.CustomDatasetLoaders.Name+".random_pool"] = s
	}
	if bs, ok := cfg.ISLBlockSizeSetting(); ok {
		out[sdk.CustomDatasetLoaders.Name+".mooncake_trace"] = map[string]any{"block_size": bs}
		out[sdk.CustomDatasetLoaders.Name+".bailian_trace"] = map[string]any{"block_size": bs}
	}
	if s := cfg.SynthesisSettings(); s != nil { // --synthesis-*: the mooncake_trace loader's "synthesis"
		key := sdk.CustomDatasetLoaders.Name + ".mooncake_trace"
		if out[key] == nil {
			out[key] = map[string]any{}
		}
		maps.Copy(out[key], s)
	}
	if s := cfg.PublicDatasetSettings(); len(s) > 0 { // --hf-subset and the streamed-dataset cap
		out[sdk.PublicDatasetLoaders.Name+"."+cfg.PublicDataset] = s
	}
	if cfg.ExportHTTPTrace {
		out[sdk.DataExporters.Name+".jsonl"] = map[string]any{"export_http_trace": true}
	}
	if cfg.SliceDuration > 0 {
		out[sdk.Accumulators.Name+".metric_results"] = map[string]any{"slice_duration": cfg.SliceDuration}
	}
	if cfg.ShowTraceTiming {
		out[sdk.ConsoleExporters.Name+".http_trace"] = map[string]any{"show_trace_timing": true}
	}
	return out
}

// phasePlugins is the per-phase part of the table: the timing strategy of
// the phase's mode and its arrival pattern, with the settings AIPerf's
// flags give them.
type phasePlugins struct {
	Timing          string
	TimingSettings  map[string]any
	Arrival         string // "" when the strategy needs no gaps
	ArrivalSettings map[string]any
}

func selectPhase(ps config.PhaseSettings) phasePlugins {
	p := phasePlugins{Timing: timingStrategies[ps.Mode], Arrival: ps.ArrivalPattern}
	switch ps.Mode {
	case config.ModeRequestRate:
		p.TimingSettings = map[string]any{"rate": ps.Rate, "ramp_duration": ps.RateRamp.Seconds()}
	case config.ModeUserCentric:
		p.TimingSettings = map[string]any{"rate": ps.UserCentricRate, "num_users": ps.NumUsers}
	}
	if ps.ArrivalPattern == config.ArrivalGamma && ps.Smoothness != 0 {
		p.ArrivalSettings = map[string]any{"smoothness": ps.Smoothness}
	}
	return p
}
