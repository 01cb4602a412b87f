package metrics

import (
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// alwaysDisallowed are capabilities this build never has: the endpoint
// metadata has no audio/image/video switches, and HTTP tracing and usage-diff
// metrics are not implemented, so metrics needing them never run (AIPerf
// disallows them the same way when the capability is off).
const alwaysDisallowed = sdk.FlagSupportsAudioOnly | sdk.FlagSupportsImageOnly |
	sdk.FlagSupportsVideoOnly | sdk.FlagProducesVideoOnly |
	sdk.FlagHTTPTraceOnly | sdk.FlagUsageDiffOnly

// DisallowedFlags turns run facts into the flags a metric must not carry to
// run (AIPerf base_metrics_processor): produces_tokens=false disallows
// PRODUCES_TOKENS_ONLY, tokenizes_input=false disallows TOKENIZES_INPUT_ONLY,
// a non-streaming run disallows STREAMING_ONLY, no goodput SLOs disallow
// GOODPUT.
func DisallowedFlags(info sdk.RunInfo) sdk.MetricFlags {
	d := alwaysDisallowed
	if !info.Endpoint.ProducesTokens {
		d |= sdk.FlagProducesTokensOnly
	}
	if !info.Endpoint.TokenizesInput {
		d |= sdk.FlagTokenizesInputOnly
	}
	if !info.Streaming {
		d |= sdk.FlagStreamingOnly
	}
	if len(info.Goodput) == 0 {
		d |= sdk.FlagGoodput
	}
	return d
}

// Applies reports whether a metric runs for this run: none of its flags is
// disallowed and every metric it is computed from applies too.
func Applies(d Def, info sdk.RunInfo) bool {
	return enabledSet(info)[d.id] && registry[d.id].Tag == d.Tag
}

// Enabled returns the definitions that apply to the run, in registry order.
func Enabled(info sdk.RunInfo) []Def {
	on := enabledSet(info)
	out := make([]Def, 0, numMetrics)
	for i := range registry {
		if on[i] {
			out = append(out, registry[i])
		}
	}
	return out
}

// enabledSet resolves applicability over the dependency graph. The registry
// is small and acyclic, so iterating to a fixed point is simplest.
func enabledSet(info sdk.RunInfo) [numMetrics]bool {
	disallowed := DisallowedFlags(info)
	var on [numMetrics]bool
	for i := range registry {
		on[i] = registry[i].Flags&disallowed == 0
	}
	for changed := true; changed; {
		changed = false
		for i := range registry {
			if !on[i] {
				continue
			}
			for _, req := range registry[i].Required {
				if !on[byTag[req]] {
					on[i] = false
					changed = true
					break
				}
			}
		}
	}
	return on
}

// notApplicableReason explains, for an error message, why a metric does not
// run. It names the first blocking flag or dependency.
func notApplicableReason(d Def, info sdk.RunInfo) string {
	blocked := d.Flags & DisallowedFlags(info)
	var why []string
	if blocked&sdk.FlagStreamingOnly != 0 {
		why = append(why, "it is only computed for streaming runs (use --streaming)")
	}
	if blocked&sdk.FlagProducesTokensOnly != 0 {
		why = append(why, "the endpoint does not produce tokens")
	}
	if blocked&sdk.FlagTokenizesInputOnly != 0 {
		why = append(why, "the endpoint does not tokenize input")
	}
	if blocked&sdk.FlagGoodput != 0 {
		why = append(why, "no goodput SLOs are configured")
	}
	if blocked&alwaysDisallowed != 0 {
		why = append(why, "it needs a capability this run does not have")
	}
	if len(why) == 0 {
		on := enabledSet(info)
		for _, req := range d.Required {
			if !on[byTag[req]] {
				why = append(why, "it depends on "+req+", which does not apply to this run")
				break
			}
		}
	}
	if len(why) == 0 {
		return "it does not apply to this run"
	}
	return strings.Join(why, "; ")
}
