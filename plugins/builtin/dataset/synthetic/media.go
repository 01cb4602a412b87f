package synthetic

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/media"
)

// defaultVideoDurationS is AIPerf 0.13's VideoConfig.duration, what a run
// gets without --video-duration (its --help says 5).
const defaultVideoDurationS = 1.0

// mediaPlan is how many images, audio clips and videos every turn carries,
// by AIPerf's inclusion rules (SyntheticDatasetComposer.__init__): images
// need positive expected width and height, audio a positive expected
// length, video a width and a height; a batch size of 0 sends none.
type mediaPlan struct {
	images, audios, videos int
}

func (cfg Config) mediaPlan() mediaPlan {
	var p mediaPlan
	if meanOr(cfg.ImageWidthMean, media.DefaultImageSize) > 0 && meanOr(cfg.ImageHeightMean, media.DefaultImageSize) > 0 {
		p.images = cfg.ImageBatchSize
	}
	if meanOr(cfg.AudioLengthMean, media.DefaultAudioLengthS) > 0 {
		p.audios = cfg.AudioBatchSize
	}
	if cfg.VideoWidth > 0 && cfg.VideoHeight > 0 {
		p.videos = cfg.VideoBatchSize
	}
	return p
}

func (p mediaPlan) any() bool { return p.images > 0 || p.audios > 0 || p.videos > 0 }

// meanOr is a configured mean, or def when the setting is absent.
func meanOr(v *float64, def float64) float64 {
	if v == nil {
		return def
	}
	return *v
}

// turnMedia is the media of one turn.
type turnMedia struct {
	images, audios, videos []string
	// audioDurationS is the first clip's length (AIPerf hoists it onto the
	// turn for audio_duration and RTFx).
	audioDurationS *float64
}

// generateMedia makes the media of n turns in dataset order. Each kind has
// its own generator and random streams, so the kinds run concurrently and
// the result only depends on the seed.
func generateMedia(ctx context.Context, cfg Config, p mediaPlan, seed int64, n int) ([]turnMedia, error) {
	out := make([]turnMedia, n)
	if !p.any() {
		return out, nil
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	run := func(kind string, fn func() error) {
		wg.Go(func() {
			if err := fn(); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("synthetic: %s: %w", kind, err))
				mu.Unlock()
			}
		})
	}
	if p.images > 0 {
		run("images", func() error { return genImages(ctx, cfg, p.images, seed, out) })
	}
	if p.audios > 0 {
		run("audio", func() error { return genAudios(ctx, cfg, p.audios, seed, out) })
	}
	if p.videos > 0 {
		run("videos", func() error { return genVideos(ctx, cfg, p.videos, seed, out) })
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

func genImages(ctx context.Context, cfg Config, batch int, seed int64, out []turnMedia) error {
	g, err := media.NewImageGenerator(media.ImageOptions{
		WidthMean: meanOr(cfg.ImageWidthMean, 0), WidthStddev: cfg.ImageWidthStddev,
		HeightMean: meanOr(cfg.ImageHeightMean, 0), HeightStddev: cfg.ImageHeightStddev,
		Format: cfg.ImageFormat, Source: cfg.ImageSource, Sampling: cfg.ImageSourceSampling,
	}, seed)
	if err != nil {
		return err
	}
	for i := range out {
		if err := ctx.Err(); err != nil {
			return err
		}
		out[i].images = make([]string, batch)
		for j := range batch {
			if out[i].images[j], err = g.Next(); err != nil {
				return err
			}
		}
	}
	return nil
}

func genAudios(ctx context.Context, cfg Config, batch int, seed int64, out []turnMedia) error {
	g, err := media.NewAudioGenerator(media.AudioOptions{
		LengthMean: meanOr(cfg.AudioLengthMean, 0), LengthStddev: cfg.AudioLengthStddev,
		Format: cfg.AudioFormat, Depths: cfg.AudioDepths, SampleRatesKHz: cfg.AudioSampleRates,
		Channels: cfg.AudioNumChannels,
	}, seed)
	if err != nil {
		return err
	}
	for i := range out {
		out[i].audios = make([]string, batch)
		for j := range batch {
			clip, dur, err := g.NextContext(ctx)
			if err != nil {
				return err
			}
			out[i].audios[j] = clip
			if j == 0 {
				out[i].audioDurationS = &dur
			}
		}
	}
	return nil
}

func genVideos(ctx context.Context, cfg Config, batch int, seed int64, out []turnMedia) error {
	g, err := media.NewVideoGenerator(media.VideoOptions{
		Width: cfg.VideoWidth, Height: cfg.VideoHeight,
		DurationS: meanOr(cfg.VideoDuration, defaultVideoDurationS), FPS: float64(cfg.VideoFPS),
		Synth: cfg.VideoSynthType, Format: cfg.VideoFormat, Codec: cfg.VideoCodec,
	}, seed)
	if err != nil {
		return err
	}
	for i := range out {
		out[i].videos = make([]string, batch)
		for j := range batch {
			if out[i].videos[j], err = g.NextContext(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}
