package metrics

import (
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// alwaysDisallowed are capabilities this build never has (none today).
// HTTP_TRACE_ONLY metrics run: the http transport always traces, as AIPerf's
// aiohttp transport does.
const alwaysDisallowed sdk.MetricFlags = 0

// DisallowedFlags turns run facts into the flags a metric must not carry to
// run (AIPerf base_metrics_processor): produces_tokens=false disallows
// PRODUCES_TOKENS_ONLY, tokenizes_input=false disallows TOKENIZES_INPUT_ONLY,
// a non-streaming run disallows STREAMING_ONLY, no goodput SLOs disallow
// GOODPUT.
func DisallowedFlags(info sdk.RunInfo) sdk.MetricFlags {
	d := alwaysDisallowed
	// The endpoint's media capabilities (AIPerf: supports_audio,
	// supports_images, supports_videos, produces_videos).
	for _, c := range []struct {
		on   bool
		flag sdk.MetricFlags
	}{
		{info.Endpoint.SupportsAudio, sdk.FlagSupportsAudioOnly},
		{info.Endpoint.SupportsImages, sdk.FlagSupportsImageOnly},
		{info.Endpoint.SupportsVideos, sdk.FlagSupportsVideoOnly},
		{info.Endpoint.ProducesVideos, sdk.FlagProducesVideoOnly},
	} {
		if !c.on {
			d |= c.flag
		}
	}
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
	if !info.FixedSchedule {
		d |= sdk.FlagFixedScheduleOnly
	}
	if info.UseServerTokenCount {
		d |= sdk.FlagUsageDiffOnly // AIPerf: no client counts to compare usage with
	}
	return d
}

// notApplicableReason explains, for an error message, why metric id does
// not apply under disallowed (on is the matching resolution). It names the
// blocking flags, else the first blocking requirement.
func (c *Catalog) notApplicableReason(id metricID, disallowed sdk.MetricFlags, on []bool) string {
	e := &c.defs[id]
	blocked := e.Flags & disallowed
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
	if blocked&sdk.FlagFixedScheduleOnly != 0 {
		why = append(why, "it is only computed for fixed-schedule trace replay")
	}
	if blocked&sdk.FlagGoodput != 0 {
		why = append(why, "no goodput SLOs are configured")
	}
	if blocked&(sdk.FlagSupportsAudioOnly|sdk.FlagSupportsImageOnly|sdk.FlagSupportsVideoOnly) != 0 {
		why = append(why, "the endpoint does not accept that kind of media input")
	}
	if blocked&sdk.FlagProducesVideoOnly != 0 {
		why = append(why, "the endpoint does not generate video")
	}
	if len(why) == 0 {
		for i, r := range e.reqs {
			if r == noMetric || !on[r] {
				why = append(why, "it depends on "+e.Requires[i]+", which does not apply to this run")
				break
			}
		}
	}
	if len(why) == 0 {
		return "it does not apply to this run"
	}
	return strings.Join(why, "; ")
}
