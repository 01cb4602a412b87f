package metricrecord

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// AIPerf 0.13's media metrics: image_metrics.py, audio_duration_metric.py,
// rtfx_metric.py and video_generation_metrics.py. The input counts come
// from the body that was sent (sdk.ParsedRecord.InputImages, from the core's
// walk of the payload), the video numbers from the job's answer.
const (
	TagNumImages          = "num_images"
	TagImageThroughput    = "image_throughput"
	TagImageLatency       = "image_latency"
	TagAudioDuration      = "audio_duration"
	TagRTFx               = "rtfx"
	TagVideoInferenceTime = "video_inference_time"
	TagVideoPeakMemory    = "video_peak_memory"
)

var mediaSpecs = []sdk.MetricSpec{
	{Tag: TagNumImages, Header: "Number of Images", ShortHeader: "Num Images", Unit: "images", DisplayUnit: "images",
		Flags: sdk.FlagSupportsImageOnly | sdk.FlagNoConsole, Integer: true},
	{Tag: TagImageThroughput, Header: "Image Throughput", ShortHeader: "Image Throughput", Unit: "images/sec",
		DisplayUnit: "images/sec", Flags: sdk.FlagSupportsImageOnly, DisplayOrder: 860,
		Requires: []string{TagNumImages, TagRequestLatency}},
	{Tag: TagImageLatency, Header: "Image Latency", ShortHeader: "Image Latency", Unit: "ms/image", DisplayUnit: "ms/image",
		Flags: sdk.FlagSupportsImageOnly, DisplayOrder: 861, Requires: []string{TagNumImages, TagRequestLatency}},
	{Tag: TagAudioDuration, Header: "Audio Duration", ShortHeader: "Audio Dur", Unit: "sec", DisplayUnit: "sec",
		Flags: sdk.FlagSupportsAudioOnly | sdk.FlagNoConsole, DisplayOrder: 870},
	{Tag: TagRTFx, Header: "Inverse Real-Time Factor (RTFx)", ShortHeader: "RTFx", Unit: "ratio", DisplayUnit: "ratio",
		Flags: sdk.FlagSupportsAudioOnly | sdk.FlagLargerIsBetter, DisplayOrder: 850,
		Requires: []string{TagAudioDuration, TagRequestLatency}},
	{Tag: TagVideoInferenceTime, Header: "Video Inference Time", ShortHeader: "Inference Time", Unit: "sec", DisplayUnit: unitMs,
		Flags: sdk.FlagProducesVideoOnly, DisplayOrder: 310},
	{Tag: TagVideoPeakMemory, Header: "Video Peak Memory", ShortHeader: "Peak Memory", Unit: "MB", DisplayUnit: "MB",
		Flags: sdk.FlagProducesVideoOnly, DisplayOrder: 311},
}

// mediaMetrics computes the media metrics of a successful request. Each is
// absent when its input is (no image sent, no audio duration, a zero
// latency, a server that reports no inference time).
func mediaMetrics(pr *sdk.ParsedRecord, v map[string]sdk.MetricValue, m measured) {
	latencyS := float64(m.latency) * secPerNs
	if n := pr.InputImages; n > 0 {
		setScalar(v, TagNumImages, float64(n))
		if m.hasLatency && m.latency != 0 {
			setScalar(v, TagImageThroughput, float64(n)/latencyS)
			setScalar(v, TagImageLatency, float64(m.latency)/1e6/float64(n))
		}
	}
	if d := pr.AudioDurationS; d != nil && *d > 0 {
		setScalar(v, TagAudioDuration, *d)
		if m.hasLatency && m.latency > 0 {
			setScalar(v, TagRTFx, *d/latencyS)
		}
	}
	// The first response that reports each video number (AIPerf iterates
	// the responses in order).
	var inference, memory *float64
	for _, r := range pr.Responses {
		if r.Result == nil || r.Result.Video == nil {
			continue
		}
		if inference == nil {
			inference = r.Result.Video.InferenceTimeS
		}
		if memory == nil {
			memory = r.Result.Video.PeakMemoryMB
		}
	}
	if inference != nil {
		setScalar(v, TagVideoInferenceTime, *inference)
	}
	if memory != nil {
		setScalar(v, TagVideoPeakMemory, *memory)
	}
}
