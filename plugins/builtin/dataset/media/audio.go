package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// AudioOptions configure synthetic audio (AIPerf's AudioConfig; the
// --audio-* flags).
type AudioOptions struct {
	// LengthMean and LengthStddev are the clip length in seconds; a mean
	// of 0 means 10 (AIPerf 0.13's real default when only a batch size is
	// set).
	LengthMean, LengthStddev float64
	// Format is "wav" (default) or "mp3".
	Format string
	// Depths are the bit depths to draw from: 8, 16, 24, 32; default [16].
	Depths []int
	// SampleRatesKHz are the sample rates to draw from; default [16].
	SampleRatesKHz []float64
	// Channels is 1 (default) or 2.
	Channels int
	// FFmpeg is the ffmpeg binary for MP3; "" looks up "ffmpeg" in PATH.
	FFmpeg string
}

// Audio formats.
const (
	AudioWAV = "wav"
	AudioMP3 = "mp3"
)

// DefaultAudioLengthS is the clip length when AudioOptions.LengthMean is 0.
const DefaultAudioLengthS = 10.0

// mp3SampleRates are the sample rates (Hz) AIPerf allows for MP3.
var mp3SampleRates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// AudioGenerator produces Gaussian-noise clips. It is not safe for
// concurrent use.
type AudioGenerator struct {
	opts                         AudioOptions
	rates                        []int // Hz
	ffmpeg                       string
	durationRNG, formatRNG, data *rand.Rand
}

// NewAudioGenerator validates opts, fills in AIPerf's defaults and, for
// MP3, finds ffmpeg.
func NewAudioGenerator(opts AudioOptions, seed int64) (*AudioGenerator, error) {
	if opts.LengthMean == 0 {
		opts.LengthMean = DefaultAudioLengthS
	}
	if opts.LengthMean < 0.01 {
		return nil, fmt.Errorf("audio length mean (--audio-length-mean) must be at least 0.01 seconds, got %g", opts.LengthMean)
	}
	if opts.LengthStddev < 0 {
		return nil, fmt.Errorf("audio length stddev (--audio-length-stddev) must not be negative, got %g", opts.LengthStddev)
	}
	opts.Format = strings.ToLower(opts.Format)
	if opts.Format == "" {
		opts.Format = AudioWAV
	}
	if opts.Format != AudioWAV && opts.Format != AudioMP3 {
		return nil, fmt.Errorf("audio format (--audio-format) %q is not one of wav, mp3", opts.Format)
	}
	opts.Depths = slices.Clone(opts.Depths) // the caller's slice may change
	if len(opts.Depths) == 0 {
		opts.Depths = []int{16}
	}
	for _, d := range opts.Depths {
		if d != 8 && d != 16 && d != 24 && d != 32 {
			return nil, fmt.Errorf("audio depth (--audio-depths) %d is not supported: use 8, 16, 24 or 32", d)
		}
	}
	if len(opts.SampleRatesKHz) == 0 {
		opts.SampleRatesKHz = []float64{16}
	}
	var rates []int
	for _, khz := range opts.SampleRatesKHz {
		hz := int(khz * 1000) // truncated, as AIPerf's int(rate * 1000)
		if hz < 1 {
			return nil, fmt.Errorf("audio sample rate (--audio-sample-rates) must be positive, got %g kHz", khz)
		}
		// AIPerf checks the rate it drew; checking them all up front fails
		// before the run instead of at some later clip.
		if opts.Format == AudioMP3 && !slices.Contains(mp3SampleRates, hz) {
			return nil, fmt.Errorf("audio sample rate (--audio-sample-rates) %g kHz is not supported for mp3: use one of %v Hz", khz, mp3SampleRates)
		}
		rates = append(rates, hz)
	}
	if opts.Channels == 0 {
		opts.Channels = 1
	}
	if opts.Channels != 1 && opts.Channels != 2 {
		return nil, fmt.Errorf("audio channels (--audio-num-channels) must be 1 or 2, got %d", opts.Channels)
	}
	g := &AudioGenerator{opts: opts, rates: rates}
	if opts.Format == AudioMP3 {
		bin, err := findFFmpeg(opts.FFmpeg, "mp3 audio (--audio-format mp3)")
		if err != nil {
			return nil, err
		}
		g.ffmpeg = bin
	}
	g.durationRNG = sample.NewStream(seed, "dataset.audio.duration")
	g.formatRNG = sample.NewStream(seed, "dataset.audio.format")
	g.data = sample.NewStream(seed, "dataset.audio.data")
	return g, nil
}

// Next returns the next clip as "wav,<base64>" or "mp3,<base64>" (AIPerf's
// internal form) and its sampled length in seconds.
func (g *AudioGenerator) Next() (encoded string, durationS float64, err error) {
	return g.NextContext(context.Background())
}

// NextContext is Next with a context that bounds the ffmpeg run (MP3).
func (g *AudioGenerator) NextContext(ctx context.Context) (encoded string, durationS float64, err error) {
	length := sample.Normal(g.durationRNG, g.opts.LengthMean, g.opts.LengthStddev, 0.01)
	rate := g.rates[g.formatRNG.IntN(len(g.rates))]
	bits := g.opts.Depths[g.formatRNG.IntN(len(g.opts.Depths))]

	n := int(length*float64(rate)) * g.opts.Channels
	samples := make([]float64, n)
	for i := range samples {
		samples[i] = min(1, max(-1, g.data.NormFloat64()*0.3))
	}
	wav := encodeWAV(samples, rate, g.opts.Channels, bits)
	if g.opts.Format == AudioWAV {
		return AudioWAV + "," + base64.StdEncoding.EncodeToString(wav), length, nil
	}
	mp3, err := encodeMP3(ctx, g.ffmpeg, wav)
	if err != nil {
		return "", 0, fmt.Errorf("encoding %d Hz %d-bit audio as mp3: %w", rate, bits, err)
	}
	return AudioMP3 + "," + base64.StdEncoding.EncodeToString(mp3), length, nil
}

// encodeMP3 turns a WAV into MP3 with ffmpeg's libmp3lame (AIPerf uses
// libsndfile's LAME). No ID3 tag, as libsndfile writes none.
func encodeMP3(ctx context.Context, bin string, wav []byte) ([]byte, error) {
	return runFFmpeg(ctx, bin, bytes.NewReader(wav), []string{
		"-f", "wav", "-i", "pipe:0",
		"-c:a", "libmp3lame", "-id3v2_version", "0", "-write_id3v1", "0",
		"-fflags", "+bitexact", "-f", "mp3",
	}, "audio.mp3")
}
