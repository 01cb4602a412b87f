package synthetic

import (
	"errors"
	"fmt"
	"math"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Config is the composer's own settings (dataset_composer.synthetic): the
// shape of multi-turn sessions, the text batch and the media of each turn.
// The core fills them from AIPerf's --session-turns-mean,
// --session-turns-stddev, --session-turn-delay-mean,
// --session-turn-delay-stddev, -b and the --image-*, --audio-* and
// --video-* flags; --plugin-config dataset_composer.synthetic.KEY=VALUE
// overrides them. The zero value is single-turn conversations of one
// prompt per turn, without delays or media.
type Config struct {
	// SessionTurnsMean is the mean number of turns per conversation; 0 or 1
	// means single-turn.
	SessionTurnsMean int `json:"session_turns_mean"`
	// SessionTurnsStddev is the turn count's standard deviation (truncated
	// to an integer, like AIPerf).
	SessionTurnsStddev float64 `json:"session_turns_stddev"`
	// TurnDelayMeanMs is the mean delay before each turn after the first,
	// in ms; 0 means no delays. DatasetOptions.TurnDelayRatio scales it.
	TurnDelayMeanMs float64 `json:"turn_delay_mean_ms"`
	// TurnDelayStddevMs is the delay's standard deviation, in ms.
	TurnDelayStddevMs float64 `json:"turn_delay_stddev_ms"`

	// PromptBatchSize is the number of prompts per turn (-b); 0 means 1.
	PromptBatchSize int `json:"prompt_batch_size"`

	// Images: ImageBatchSize per turn (0: none), sent only when both size
	// means are positive; a nil mean is 512 (AIPerf 0.13's default).
	// Format "" is jpeg, source "" noise, sampling ""
	// random-with-replacement (media.ImageOptions).
	ImageBatchSize      int      `json:"image_batch_size"`
	ImageWidthMean      *float64 `json:"image_width_mean"`
	ImageWidthStddev    float64  `json:"image_width_stddev"`
	ImageHeightMean     *float64 `json:"image_height_mean"`
	ImageHeightStddev   float64  `json:"image_height_stddev"`
	ImageFormat         string   `json:"image_format"`
	ImageSource         string   `json:"image_source"`
	ImageSourceSampling string   `json:"image_source_sampling"`

	// Audio: AudioBatchSize clips per turn (0: none), sent only when the
	// length mean is positive; a nil mean is 10 s. Empty format, depths and
	// rates and 0 channels are wav, [16], [16] kHz and mono
	// (media.AudioOptions).
	AudioBatchSize    int       `json:"audio_batch_size"`
	AudioLengthMean   *float64  `json:"audio_length_mean"`
	AudioLengthStddev float64   `json:"audio_length_stddev"`
	AudioFormat       string    `json:"audio_format"`
	AudioDepths       []int     `json:"audio_depths"`
	AudioSampleRates  []float64 `json:"audio_sample_rates"` // kHz
	AudioNumChannels  int       `json:"audio_num_channels"`

	// Video: VideoBatchSize clips per turn (0: none), sent only with a
	// positive width and height. A nil duration is 1 s and fps 0 is 4
	// (AIPerf 0.13's VideoConfig); empty synth type, format and codec are
	// moving_shapes, webm and libvpx-vp9. Needs ffmpeg.
	VideoBatchSize int      `json:"video_batch_size"`
	VideoWidth     int      `json:"video_width"`
	VideoHeight    int      `json:"video_height"`
	VideoDuration  *float64 `json:"video_duration"`
	VideoFPS       int      `json:"video_fps"`
	VideoSynthType string   `json:"video_synth_type"`
	VideoFormat    string   `json:"video_format"`
	VideoCodec     string   `json:"video_codec"`

	// SequenceDistribution (--seq-dist) replaces the input and output
	// lengths: each turn draws one pair by its probability, then its ISL
	// and OSL from a positive normal around the pair's means (exact when
	// the stddev is 0). Empty means off. See seqdist.go.
	SequenceDistribution []SeqDistPair `json:"sequence_distribution"`

	// PrefixPromptPoolSize (--num-prefix-prompts) prefixes of exactly
	// PrefixPromptLength (--prefix-prompt-length) tokens are drawn from the
	// corpus once; the first turn of every conversation gets one, picked at
	// random per prompt, on top of its ISL. Off unless both are positive.
	PrefixPromptPoolSize int `json:"prefix_prompt_pool_size"`
	PrefixPromptLength   int `json:"prefix_prompt_length"`

	// SharedSystemPromptLength (--shared-system-prompt-length) gives every
	// conversation one system prompt of exactly that many tokens;
	// UserContextPromptLength (--user-context-prompt-length) gives each
	// conversation its own user context of that length. 0 is off. See
	// systemprompt.go.
	SharedSystemPromptLength int `json:"shared_system_prompt_length"`
	UserContextPromptLength  int `json:"user_context_prompt_length"`
}

var (
	_ sdk.Configurable = (*Composer)(nil)
	_ sdk.Validator    = (*Composer)(nil)
)

// PluginConfig implements sdk.Configurable.
func (c *Composer) PluginConfig() any { return &c.Config }

// Validate implements sdk.Validator: every setting must be finite and not
// negative. Errors name the setting and the AIPerf flag that sets it.
func (c *Composer) Validate() error {
	if problems := c.Config.problems(); len(problems) > 0 {
		return fmt.Errorf("synthetic: invalid settings: %w", errors.Join(problems...))
	}
	return nil
}

func (cfg Config) problems() []error {
	var problems []error
	if cfg.SessionTurnsMean < 0 {
		problems = append(problems, fmt.Errorf("session_turns_mean %d (--session-turns-mean), want at least 0", cfg.SessionTurnsMean))
	}
	if bad(cfg.SessionTurnsStddev) {
		problems = append(problems, fmt.Errorf("session_turns_stddev %v (--session-turns-stddev), want a finite value >= 0", cfg.SessionTurnsStddev))
	}
	if bad(cfg.TurnDelayMeanMs) {
		problems = append(problems, fmt.Errorf("turn_delay_mean_ms %v (--session-turn-delay-mean), want a finite value >= 0", cfg.TurnDelayMeanMs))
	}
	if bad(cfg.TurnDelayStddevMs) {
		problems = append(problems, fmt.Errorf("turn_delay_stddev_ms %v (--session-turn-delay-stddev), want a finite value >= 0", cfg.TurnDelayStddevMs))
	}
	problems = append(problems, cfg.mediaProblems()...)
	return append(problems, cfg.prefixProblems()...)
}

// mediaProblems checks the counts and the numbers the media generators do
// not check themselves.
func (cfg Config) mediaProblems() []error {
	var problems []error
	for _, n := range []struct {
		key, flag string
		v         int
	}{
		{"prompt_batch_size", "--prompt-batch-size", cfg.PromptBatchSize},
		{"image_batch_size", "--image-batch-size", cfg.ImageBatchSize},
		{"audio_batch_size", "--audio-batch-size", cfg.AudioBatchSize},
		{"video_batch_size", "--video-batch-size", cfg.VideoBatchSize},
		{"video_width", "--video-width", cfg.VideoWidth},
		{"video_height", "--video-height", cfg.VideoHeight},
		{"video_fps", "--video-fps", cfg.VideoFPS},
		{"audio_num_channels", "--audio-num-channels", cfg.AudioNumChannels},
	} {
		if n.v < 0 {
			problems = append(problems, fmt.Errorf("%s %d (%s), want at least 0", n.key, n.v, n.flag))
		}
	}
	for _, f := range []struct {
		key, flag string
		v         *float64
	}{
		{"image_width_mean", "--image-width-mean", cfg.ImageWidthMean},
		{"image_width_stddev", "--image-width-stddev", &cfg.ImageWidthStddev},
		{"image_height_mean", "--image-height-mean", cfg.ImageHeightMean},
		{"image_height_stddev", "--image-height-stddev", &cfg.ImageHeightStddev},
		{"audio_length_mean", "--audio-length-mean", cfg.AudioLengthMean},
		{"audio_length_stddev", "--audio-length-stddev", &cfg.AudioLengthStddev},
		{"video_duration", "--video-duration", cfg.VideoDuration},
	} {
		if f.v != nil && bad(*f.v) {
			problems = append(problems, fmt.Errorf("%s %v (%s), want a finite value >= 0", f.key, *f.v, f.flag))
		}
	}
	return problems
}

// bad reports whether a stddev (or other non-negative setting) is negative,
// NaN or infinite.
func bad(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
