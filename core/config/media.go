package config

import (
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Request content types (--request-content-type), spelled as AIPerf 0.13
// accepts them (its --help prints application-json, which it rejects).
const (
	ContentTypeJSON     = "application/json"
	ContentTypeFormData = "multipart/form-data"
)

// Defaults AIPerf 0.13 really applies (its config models, not the --help
// text, which says 550/550/1 for rankings, png and 0-sized images, 0 s
// audio and 5 s videos).
const (
	defaultPromptBatchSize       = 1
	defaultRankingsPassages      = 10
	defaultRankingsPassageTokens = 128
	defaultRankingsQueryTokens   = 32
	// maxSampleRateKHz is the largest value read as kHz; larger ones are Hz
	// (AIPerf's _normalize_sample_rate_khz).
	maxSampleRateKHz = 96.0
)

// EffectivePromptBatchSize is --prompt-batch-size (-b), else 1.
func (c *RunConfig) EffectivePromptBatchSize() int {
	if c.PromptBatchSize != nil {
		return *c.PromptBatchSize
	}
	return defaultPromptBatchSize
}

// imageBatch is the number of images per turn and whether the user shaped
// images at all. As in AIPerf's converter (_apply_implicit_media_batch) the
// batch is 1 when a size or source flag is given without
// --image-batch-size, and 0 (no images) when none is.
func (c *RunConfig) imageBatch() (int, bool) {
	if c.ImageBatchSize != nil {
		return *c.ImageBatchSize, true
	}
	if anyFloat(c.ImageWidthMean, c.ImageWidthStddev, c.ImageHeightMean, c.ImageHeightStddev) ||
		c.ImageSource != "" || c.ImageSourceSampling != "" {
		return 1, true
	}
	return 0, false
}

// audioBatch is imageBatch for audio: 1 when a length flag is given.
func (c *RunConfig) audioBatch() (int, bool) {
	if c.AudioBatchSize != nil {
		return *c.AudioBatchSize, true
	}
	if anyFloat(c.AudioLengthMean, c.AudioLengthStddev) {
		return 1, true
	}
	return 0, false
}

// videoBatch is imageBatch for video: 1 when a size, duration, fps or
// synth type flag is given. Videos are still only sent with both a width
// and a height.
func (c *RunConfig) videoBatch() (int, bool) {
	if c.VideoBatchSize != nil {
		return *c.VideoBatchSize, true
	}
	if c.VideoWidth != nil || c.VideoHeight != nil || c.VideoDuration != nil || c.VideoFPS != nil || c.VideoSynthType != "" {
		return 1, true
	}
	return 0, false
}

func anyFloat(vs ...*float64) bool {
	for _, v := range vs {
		if v != nil {
			return true
		}
	}
	return false
}

// Normalized spellings of the media choices: lower case, and AIPerf's enum
// spelling where its --help prints another (moving-shapes is
// moving_shapes; random_with_replacement is random-with-replacement).
func (c *RunConfig) audioFormat() string { return lowerTrim(c.AudioFormat) }
func (c *RunConfig) imageFormat() string { return lowerTrim(c.ImageFormat) }
func (c *RunConfig) videoFormat() string { return lowerTrim(c.VideoFormat) }
func (c *RunConfig) videoCodec() string  { return strings.TrimSpace(c.VideoCodec) }
func (c *RunConfig) videoAudioCodec() string {
	return lowerTrim(c.VideoAudioCodec)
}
func (c *RunConfig) requestContentType() string { return lowerTrim(c.RequestContentType) }
func (c *RunConfig) videoSynthType() string {
	return strings.ReplaceAll(lowerTrim(c.VideoSynthType), "-", "_")
}
func (c *RunConfig) imageSourceSampling() string {
	return strings.ReplaceAll(lowerTrim(c.ImageSourceSampling), "_", "-")
}

// imageSource is "noise", "assets" (any case) or a directory path, kept as
// given.
func (c *RunConfig) imageSource() string {
	s := strings.TrimSpace(c.ImageSource)
	if l := strings.ToLower(s); l == "noise" || l == "assets" {
		return l
	}
	return s
}

func lowerTrim(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// AudioDepthValues parses --audio-depths (nil when not given).
func (c *RunConfig) AudioDepthValues() ([]int, error) {
	if len(c.AudioDepths) == 0 {
		return nil, nil
	}
	out := make([]int, len(c.AudioDepths))
	for i, s := range c.AudioDepths {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("--audio-depths %q is not an integer", s)
		}
		out[i] = n
	}
	return out, nil
}

// AudioSampleRatesKHz parses --audio-sample-rates in kHz (nil when not
// given); values above 96 are Hz and divided by 1000, as AIPerf does.
func (c *RunConfig) AudioSampleRatesKHz() ([]float64, error) {
	if len(c.AudioSampleRates) == 0 {
		return nil, nil
	}
	out := make([]float64, len(c.AudioSampleRates))
	for i, s := range c.AudioSampleRates {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("--audio-sample-rates %q is not a number", s)
		}
		out[i] = khz(f)
	}
	return out, nil
}

func khz(v float64) float64 {
	if v > maxSampleRateKHz {
		return v / 1000
	}
	return v
}

// SyntheticMediaSettings returns the synthetic composer's own settings that
// AIPerf's batch and media flags give, by the composer's json keys:
// prompt_batch_size (-b), image_batch_size and image_* (--image-*),
// audio_batch_size and audio_* (--audio-*), video_batch_size and video_*
// (--video-*). Batch sizes follow AIPerf's converter: a media batch is set
// (to 1 when not given) as soon as a shaping flag of that medium is given,
// so "--image-width-mean 8 --image-height-mean 8" sends one image. Flags
// not given are omitted (the composer's defaults are AIPerf 0.13's: 512x512
// JPEG noise images, 10 s 16 kHz 16-bit mono WAV, 1 s 4 fps webm videos).
// Values are assumed validated.
func (c *RunConfig) SyntheticMediaSettings() map[string]any {
	m := map[string]any{}
	if c.PromptBatchSize != nil && *c.PromptBatchSize != defaultPromptBatchSize {
		m["prompt_batch_size"] = *c.PromptBatchSize
	}
	if n, ok := c.imageBatch(); ok {
		m["image_batch_size"] = n
		putFloat(m, "image_width_mean", c.ImageWidthMean)
		putFloat(m, "image_width_stddev", c.ImageWidthStddev)
		putFloat(m, "image_height_mean", c.ImageHeightMean)
		putFloat(m, "image_height_stddev", c.ImageHeightStddev)
		putString(m, "image_format", c.imageFormat())
		putString(m, "image_source", c.imageSource())
		putString(m, "image_source_sampling", c.imageSourceSampling())
	}
	if n, ok := c.audioBatch(); ok {
		m["audio_batch_size"] = n
		putFloat(m, "audio_length_mean", c.AudioLengthMean)
		putFloat(m, "audio_length_stddev", c.AudioLengthStddev)
		putString(m, "audio_format", c.audioFormat())
		if d, err := c.AudioDepthValues(); err == nil && d != nil {
			m["audio_depths"] = d
		}
		if r, err := c.AudioSampleRatesKHz(); err == nil && r != nil {
			m["audio_sample_rates"] = r
		}
		putInt(m, "audio_num_channels", c.AudioNumChannels)
	}
	if n, ok := c.videoBatch(); ok {
		m["video_batch_size"] = n
		putInt(m, "video_width", c.VideoWidth)
		putInt(m, "video_height", c.VideoHeight)
		putFloat(m, "video_duration", c.VideoDuration)
		putInt(m, "video_fps", c.VideoFPS)
		putString(m, "video_synth_type", c.videoSynthType())
		putString(m, "video_format", c.videoFormat())
		putString(m, "video_codec", c.videoCodec())
	}
	return m
}

// RankingsSettings returns the synthetic_rankings composer's own settings
// the --rankings-* flags give, by its json keys: passages_mean,
// passages_stddev, passage_tokens_mean, passage_tokens_stddev,
// query_tokens_mean and query_tokens_stddev. Flags not given are omitted
// (the composer's defaults are AIPerf 0.13's: 10 passages of 128 tokens, a
// 32-token query).
func (c *RunConfig) RankingsSettings() map[string]any {
	m := map[string]any{}
	for _, f := range []struct {
		key string
		v   *int
	}{
		{"passages_mean", c.RankingsPassagesMean},
		{"passages_stddev", c.RankingsPassagesStddev},
		{"passage_tokens_mean", c.RankingsPassageTokensMean},
		{"passage_tokens_stddev", c.RankingsPassageTokensStddev},
		{"query_tokens_mean", c.RankingsQueryTokensMean},
		{"query_tokens_stddev", c.RankingsQueryTokensStddev},
	} {
		if f.v != nil {
			m[f.key] = float64(*f.v)
		}
	}
	return m
}

func putFloat(m map[string]any, key string, v *float64) {
	if v != nil {
		m[key] = *v
	}
}

func putInt(m map[string]any, key string, v *int) {
	if v != nil {
		m[key] = *v
	}
}

func putString(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

// CheckEndpoint applies the rules that depend on the endpoint type, which
// the configuration only knows once the endpoint plugin is resolved: AIPerf
// 0.13's request content type rules (config/endpoint.py
// _validate_request_content_type). An endpoint that requires form data
// (video_generation) gets multipart/form-data when --request-content-type
// is not given and rejects application/json; any other endpoint rejects
// multipart/form-data. It records the endpoint's switch so
// EffectiveRequestContentType and InputConfig report the resolved type.
// Call it after Validate, before InputConfig.
func (c *RunConfig) CheckEndpoint(meta sdk.EndpointMetadata) error {
	formData := meta.RequiresFormData
	c.formData = &formData
	switch ct := c.requestContentType(); {
	case ct == ContentTypeJSON && formData:
		return fmt.Errorf("--request-content-type: endpoint type %s requires multipart/form-data; application/json is not supported", c.EndpointType)
	case ct == ContentTypeFormData && !formData:
		return fmt.Errorf("--request-content-type multipart/form-data is only supported for endpoint types that accept form-data (e.g. image_edit, video_generation); endpoint type %s does not", c.EndpointType)
	}
	return nil
}

// EffectiveRequestContentType is --request-content-type, else
// multipart/form-data when CheckEndpoint saw an endpoint that requires form
// data, else application/json.
func (c *RunConfig) EffectiveRequestContentType() string {
	if ct := c.requestContentType(); ct != "" {
		return ct
	}
	if c.formData != nil && *c.formData {
		return ContentTypeFormData
	}
	return ContentTypeJSON
}

// inputContentType is endpoint.request_content_type in input_config: what
// the user gave, or the form-data default AIPerf's validator fills in;
// "" (left out) otherwise.
func (c *RunConfig) inputContentType() string {
	if ct := c.requestContentType(); ct != "" {
		return ct
	}
	if c.formData != nil && *c.formData {
		return ContentTypeFormData
	}
	return ""
}

// RandomPoolSettings are the random_pool loader's batch sizes: only the
// flags the user gave, as given (AIPerf passes only explicitly set ones).
func (c *RunConfig) RandomPoolSettings() map[string]any {
	m := map[string]any{}
	for key, v := range map[string]*int{"prompt_batch_size": c.PromptBatchSize, "image_batch_size": c.ImageBatchSize,
		"audio_batch_size": c.AudioBatchSize, "video_batch_size": c.VideoBatchSize} {
		if v != nil {
			m[key] = *v
		}
	}
	return m
}
