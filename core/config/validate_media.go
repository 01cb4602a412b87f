package config

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// mp3SampleRatesHz are the sample rates AIPerf's audio generator allows for
// MP3 (dataset/generator/audio.py MP3_SUPPORTED_SAMPLE_RATES).
var mp3SampleRatesHz = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// Bounds of the media flags (AIPerf's Field constraints).
const (
	minAudioLengthS      = 0.01 // the audio generator's floor
	minVideoAudioRate    = 8.0  // Hz or kHz, before normalization
	maxVideoAudioRate    = 96000.0
	maxAudioChannels     = 2
	maxVideoAudioChannel = 2
)

// validateMedia checks the batch, media, rankings and content-type flags:
// ranges, choices, a stddev without its mean (AIPerf rejects the
// distribution), and the synthetic-only flags given with --input-file
// (_reject_file_dataset_incompatible: batch sizes only with random_pool).
// Rules that depend on the endpoint type are CheckEndpoint's.
func (c *RunConfig) validateMedia(add adder) {
	if ct := c.requestContentType(); ct != "" && !slices.Contains(requestContentTypes, ct) {
		add("--request-content-type %q is not valid; choose one of: %s", c.RequestContentType, strings.Join(requestContentTypes, ", "))
	}
	if b := c.PromptBatchSize; b != nil && *b < 1 {
		add("--prompt-batch-size must be >= 1 (got %d)", *b)
	}
	for _, p := range []struct {
		flag string
		v    *int
	}{
		{"--image-batch-size", c.ImageBatchSize},
		{"--audio-batch-size", c.AudioBatchSize},
		{"--video-batch-size", c.VideoBatchSize},
		{"--rankings-passages-stddev", c.RankingsPassagesStddev},
		{"--rankings-passages-prompt-token-stddev", c.RankingsPassageTokensStddev},
		{"--rankings-query-prompt-token-stddev", c.RankingsQueryTokensStddev},
	} {
		if p.v != nil && *p.v < 0 {
			add("%s must be >= 0 (got %d)", p.flag, *p.v)
		}
	}
	for _, p := range []struct {
		flag string
		v    *int
	}{
		{"--rankings-passages-mean", c.RankingsPassagesMean},
		{"--rankings-passages-prompt-token-mean", c.RankingsPassageTokensMean},
		{"--rankings-query-prompt-token-mean", c.RankingsQueryTokensMean},
		{"--video-fps", c.VideoFPS},
		{"--video-width", c.VideoWidth},
		{"--video-height", c.VideoHeight},
	} {
		if p.v != nil && *p.v < 1 {
			add("%s must be >= 1 (got %d)", p.flag, *p.v)
		}
	}
	for _, p := range []struct {
		flag string
		v    *float64
	}{
		{"--image-width-mean", c.ImageWidthMean},
		{"--image-width-stddev", c.ImageWidthStddev},
		{"--image-height-mean", c.ImageHeightMean},
		{"--image-height-stddev", c.ImageHeightStddev},
		{"--audio-length-mean", c.AudioLengthMean},
		{"--audio-length-stddev", c.AudioLengthStddev},
	} {
		if p.v != nil && !(*p.v >= 0 && !math.IsInf(*p.v, 1)) {
			add("%s must be >= 0 and finite (got %v)", p.flag, *p.v)
		}
	}
	c.validateStddevPairs(add)
	c.validateAudio(add)
	c.validateImages(add)
	c.validateVideo(add)
	c.validateFileDatasetMedia(add)
}

// validateStddevPairs rejects a stddev given without its mean: AIPerf
// builds a normal distribution from the pair and requires its mean.
func (c *RunConfig) validateStddevPairs(add adder) {
	for _, p := range []struct {
		stddev, mean   string
		hasSD, hasMean bool
	}{
		{"--image-width-stddev", "--image-width-mean", c.ImageWidthStddev != nil, c.ImageWidthMean != nil},
		{"--image-height-stddev", "--image-height-mean", c.ImageHeightStddev != nil, c.ImageHeightMean != nil},
		{"--audio-length-stddev", "--audio-length-mean", c.AudioLengthStddev != nil, c.AudioLengthMean != nil},
		{"--rankings-passages-stddev", "--rankings-passages-mean", c.RankingsPassagesStddev != nil, c.RankingsPassagesMean != nil},
		{"--rankings-passages-prompt-token-stddev", "--rankings-passages-prompt-token-mean",
			c.RankingsPassageTokensStddev != nil, c.RankingsPassageTokensMean != nil},
		{"--rankings-query-prompt-token-stddev", "--rankings-query-prompt-token-mean",
			c.RankingsQueryTokensStddev != nil, c.RankingsQueryTokensMean != nil},
	} {
		if p.hasSD && !p.hasMean {
			add("%s requires %s (a distribution needs its mean)", p.stddev, p.mean)
		}
	}
}

func (c *RunConfig) validateAudio(add adder) {
	format := c.audioFormat()
	if format != "" && !slices.Contains(audioFormats, format) {
		add("--audio-format %q is not valid; choose one of: %s", c.AudioFormat, strings.Join(audioFormats, ", "))
	}
	if m := c.AudioLengthMean; m != nil && *m > 0 && *m < minAudioLengthS {
		add("--audio-length-mean must be at least %v seconds (got %v); 0 disables audio", minAudioLengthS, *m)
	}
	if n := c.AudioNumChannels; n != nil && (*n < 1 || *n > maxAudioChannels) {
		add("--audio-num-channels must be 1 or 2 (got %d)", *n)
	}
	depths, err := c.AudioDepthValues()
	if err != nil {
		add("%v", err)
	}
	for _, d := range depths {
		if !slices.Contains(audioBitDepths, d) {
			add("--audio-depths %d is not supported; choose from: 8, 16, 24, 32", d)
		}
	}
	rates, err := c.AudioSampleRatesKHz()
	if err != nil {
		add("%v", err)
	}
	for _, r := range rates {
		hz := int(r * 1000)
		switch {
		case !(r > 0) || math.IsInf(r, 1):
			add("--audio-sample-rates must be positive and finite (got %v)", r)
		case format == "mp3" && !slices.Contains(mp3SampleRatesHz, hz):
			add("--audio-sample-rates %v kHz is not supported by --audio-format mp3; MP3 allows (Hz): %s", r, joinInts(mp3SampleRatesHz))
		}
	}
}

func (c *RunConfig) validateImages(add adder) {
	if f := c.imageFormat(); f != "" && !slices.Contains(imageFormats, f) {
		add("--image-format %q is not valid; choose one of: %s", c.ImageFormat, strings.Join(imageFormats, ", "))
	}
	src := c.imageSource()
	if src != "" && !slices.Contains(imageSources, src) {
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			add("--image-source %q is not valid; choose noise, assets, or an existing directory of images", c.ImageSource)
		}
	}
	sampling := c.imageSourceSampling()
	if sampling != "" && !slices.Contains(imageSourceSamplings, sampling) {
		add("--image-source-sampling %q is not valid; choose one of: %s", c.ImageSourceSampling, strings.Join(imageSourceSamplings, ", "))
	}
	if sampling != "" && sampling != imageSourceSamplings[0] && (src == "" || src == "noise") {
		add("--image-source-sampling %s requires --image-source assets or a directory path; noise has no finite source pool (only random-with-replacement)", sampling)
	}
}

func (c *RunConfig) validateVideo(add adder) {
	if d := c.VideoDuration; d != nil && !(*d > 0 && !math.IsInf(*d, 1)) {
		add("--video-duration must be > 0 and finite (got %v)", *d)
	}
	if st := c.videoSynthType(); st != "" && !slices.Contains(videoSynthTypes, st) {
		add("--video-synth-type %q is not valid; choose one of: %s", c.VideoSynthType, strings.Join(videoSynthTypes, ", "))
	}
	if f := c.videoFormat(); f != "" && !slices.Contains(videoFormats, f) {
		add("--video-format %q is not valid; choose one of: %s", c.VideoFormat, strings.Join(videoFormats, ", "))
	}
	if c.VideoCodec != "" && c.videoCodec() == "" {
		add("--video-codec must not be blank")
	}
	if r := c.VideoAudioSampleRate; r != nil && !(*r >= minVideoAudioRate && *r <= maxVideoAudioRate) {
		add("--video-audio-sample-rate must be between 8 and 96000 (Hz, or kHz up to 96; got %v)", *r)
	}
	switch n := c.VideoAudioChannels; {
	case n == nil || *n == 0:
	case *n < 0 || *n > maxVideoAudioChannel:
		add("--video-audio-num-channels must be 0, 1 or 2 (got %d)", *n)
	default:
		// The video generator muxes no audio track (media.VideoOptions has
		// none): refuse rather than send videos without the track asked for.
		add("--video-audio-num-channels %d: an audio track in synthetic videos is not supported; use 0 (no audio track)", *n)
	}
	codec := c.videoAudioCodec()
	if codec != "" && !slices.Contains(videoAudioCodecs, codec) {
		add("--video-audio-codec %q is not valid; choose one of: %s", c.VideoAudioCodec, strings.Join(videoAudioCodecs, ", "))
	}
	if codec != "" && (c.VideoAudioChannels == nil || *c.VideoAudioChannels == 0) {
		add("--video-audio-codec '%s' is set but --video-audio-num-channels is 0 (audio disabled). Set --video-audio-num-channels to 1 or 2 to enable audio", codec)
	}
	if d := c.VideoAudioDepth; d != nil && !slices.Contains(audioBitDepths, *d) {
		add("--video-audio-depth must be one of 8, 16, 24, 32 (got %d)", *d)
	}
}

// validateFileDatasetMedia rejects synthetic-only flags with --input-file,
// with AIPerf's messages: the image source flags always, the batch sizes
// unless the format is random_pool (whose loader packs items per request).
func (c *RunConfig) validateFileDatasetMedia(add adder) {
	if c.InputFile == "" {
		return
	}
	synthOnly := c.prefixSynthOnly()
	if c.ImageSource != "" {
		synthOnly = append(synthOnly, "--image-source")
	}
	if c.ImageSourceSampling != "" {
		synthOnly = append(synthOnly, "--image-source-sampling")
	}
	if len(synthOnly) > 0 {
		add("%s is only supported with synthetic datasets; remove --input-file (use a synthetic dataset) to apply synthetic-only prompt shaping (ISL, prefix prompts, multimodal generation, multi-turn conversation, etc)",
			strings.Join(synthOnly, ", "))
	}
	if c.CustomDatasetType == DatasetRandomPool {
		return
	}
	var batch []string
	for _, b := range []struct {
		flag string
		v    *int
	}{
		{"--prompt-batch-size/--batch-size-text", c.PromptBatchSize},
		{"--image-batch-size", c.ImageBatchSize},
		{"--audio-batch-size", c.AudioBatchSize},
		{"--video-batch-size", c.VideoBatchSize},
	} {
		if b.v != nil {
			batch = append(batch, b.flag)
		}
	}
	if len(batch) == 0 {
		return
	}
	remedy := "Either add --custom-dataset-type random_pool to keep --input-file"
	if c.CustomDatasetType != "" {
		remedy = "Either change --custom-dataset-type from " + c.CustomDatasetType + " to random_pool to keep --input-file"
	}
	add("%s requires --custom-dataset-type random_pool when used with --input-file. %s, or remove --input-file to use a synthetic dataset.",
		strings.Join(batch, ", "), remedy)
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
