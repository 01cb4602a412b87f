package metricrecord

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// mediaRun is a non-streaming run of an endpoint that takes images and
// audio and generates video (every media flag allowed).
func mediaRun() sdk.RunInfo {
	md := chatEndpoint
	md.SupportsImages, md.SupportsAudio, md.ProducesVideos = true, true, true
	return sdk.RunInfo{Endpoint: md}
}

func fp(v float64) *float64 { return &v }

// AIPerf's formulas: images per second of request latency, ms of request
// latency per image, audio seconds per latency second; each absent when its
// input is (no image sent, no duration, a zero latency).
func TestMediaMetrics(t *testing.T) {
	// One content response 500 ms after the start: request_latency 500 ms.
	rec := func(images int, audio *float64) *sdk.ParsedRecord {
		pr := makeRecord(0, []int64{500_000_000}, 4)
		pr.InputImages, pr.AudioDurationS = images, audio
		return pr
	}
	rm := mustProcessFor(t, mediaRun(), rec(2, fp(10)))
	for tag, want := range map[string]float64{
		TagNumImages: 2, TagImageThroughput: 4, TagImageLatency: 250, TagAudioDuration: 10, TagRTFx: 20,
	} {
		if got := scalar(t, rm, tag); !near(got, want) {
			t.Errorf("%s = %v, want %v", tag, got, want)
		}
	}
	assertAbsent(t, mustProcessFor(t, mediaRun(), rec(0, nil)), TagNumImages, TagImageThroughput, TagImageLatency,
		TagAudioDuration, TagRTFx)
	assertAbsent(t, mustProcessFor(t, mediaRun(), rec(0, fp(0))), TagAudioDuration, TagRTFx)
	// A chat run of a text-only endpoint drops them all (not applicable).
	assertAbsent(t, mustProcess(t, rec(2, fp(10))), TagNumImages, TagImageThroughput, TagRTFx)
}

// The video numbers come from the first response that reports each.
func TestVideoMetrics(t *testing.T) {
	job := func(status string, inference, memory *float64) sdk.ParsedResponse {
		return sdk.ParsedResponse{PerfNs: 100, Result: &sdk.Result{Kind: sdk.ResultVideo,
			Video: &sdk.VideoJob{ID: "v1", Status: status, InferenceTimeS: inference, PeakMemoryMB: memory}}}
	}
	pr := makeRecord(0, nil, 0)
	pr.Responses = []sdk.ParsedResponse{job("queued", nil, nil), job("completed", fp(1.5), fp(2048)), job("completed", fp(9), fp(9))}
	rm := mustProcessFor(t, mediaRun(), pr)
	if got := scalar(t, rm, TagVideoInferenceTime); got != 1.5 {
		t.Errorf("video_inference_time = %v s, want 1.5", got)
	}
	if got := scalar(t, rm, TagVideoPeakMemory); got != 2048 {
		t.Errorf("video_peak_memory = %v MB, want 2048", got)
	}
	// The job answers are content: request_latency is measured to the last.
	if _, ok := rm.Values[TagRequestLatency]; !ok {
		t.Error("a video job's answers count as content: request_latency missing")
	}
	pr.Responses = []sdk.ParsedResponse{job("completed", nil, nil)}
	assertAbsent(t, mustProcessFor(t, mediaRun(), pr), TagVideoInferenceTime, TagVideoPeakMemory)
}
