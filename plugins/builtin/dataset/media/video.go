package media

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// VideoOptions configure synthetic video (AIPerf's VideoConfig; the
// --video-* flags).
type VideoOptions struct {
	// Width and Height in pixels are required (AIPerf generates no video
	// without both).
	Width, Height int
	// DurationS defaults to 1 second (AIPerf 0.13's VideoConfig; its --help says 5) and FPS to 4; the clip has
	// int(DurationS*FPS) frames.
	DurationS, FPS float64
	// Synth is "moving_shapes" (default), "grid_clock" or "noise" (dashes
	// accepted, as on AIPerf's command line).
	Synth string
	// Format is "webm" (default) or "mp4".
	Format string
	// Codec is the ffmpeg video encoder; default libvpx-vp9 for both
	// formats, as in AIPerf 0.13 (its help: "mp4 ... VP9 by default").
	Codec string
	// FFmpeg is the ffmpeg binary; "" looks up "ffmpeg" in PATH.
	FFmpeg string
}

// Video option values and defaults.
const (
	SynthMovingShapes = "moving_shapes"
	SynthGridClock    = "grid_clock"
	SynthNoise        = "noise"

	VideoWebM = "webm"
	VideoMP4  = "mp4"

	DefaultVideoDurationS = 1.0
	DefaultVideoFPS       = 4.0
	DefaultVideoCodec     = "libvpx-vp9"
)

// VideoGenerator renders frames in Go and encodes them with ffmpeg. It is
// not safe for concurrent use.
type VideoGenerator struct {
	opts   VideoOptions
	frames int
	ffmpeg string
	noise  *rand.Rand
	cached string // moving_shapes and grid_clock: the same clip every time
}

// NewVideoGenerator validates opts, fills in AIPerf's defaults and finds
// ffmpeg.
func NewVideoGenerator(opts VideoOptions, seed int64) (*VideoGenerator, error) {
	if opts.Width < 1 || opts.Height < 1 {
		return nil, fmt.Errorf("video width and height (--video-width, --video-height) must both be at least 1, got %dx%d", opts.Width, opts.Height)
	}
	if opts.DurationS == 0 {
		opts.DurationS = DefaultVideoDurationS
	}
	if opts.DurationS < 0 {
		return nil, fmt.Errorf("video duration (--video-duration) must be positive, got %g", opts.DurationS)
	}
	if opts.FPS == 0 {
		opts.FPS = DefaultVideoFPS
	}
	if opts.FPS < 0 {
		return nil, fmt.Errorf("video fps (--video-fps) must be positive, got %g", opts.FPS)
	}
	frames := int(opts.DurationS * opts.FPS)
	if frames < 1 {
		return nil, fmt.Errorf("video duration × fps (--video-duration %g × --video-fps %g) gives no frames", opts.DurationS, opts.FPS)
	}
	opts.Synth = strings.ReplaceAll(strings.ToLower(opts.Synth), "-", "_")
	switch opts.Synth {
	case "":
		opts.Synth = SynthMovingShapes
	case SynthMovingShapes, SynthGridClock, SynthNoise:
	default:
		return nil, fmt.Errorf("video synth type (--video-synth-type) %q is not one of moving_shapes, grid_clock, noise", opts.Synth)
	}
	opts.Format = strings.ToLower(opts.Format)
	switch opts.Format {
	case "":
		opts.Format = VideoWebM
	case VideoWebM, VideoMP4:
	default:
		return nil, fmt.Errorf("video format (--video-format) %q is not one of webm, mp4", opts.Format)
	}
	if opts.Codec == "" {
		opts.Codec = DefaultVideoCodec
	}
	bin, err := findFFmpeg(opts.FFmpeg, "video generation (--video-width/--video-height)")
	if err != nil {
		return nil, err
	}
	return &VideoGenerator{
		opts:   opts,
		frames: frames,
		ffmpeg: bin,
		noise:  sample.NewStream(seed, "dataset.video.noise"),
	}, nil
}

// Next returns the next clip as "data:video/webm;base64,..." (or mp4).
func (g *VideoGenerator) Next() (dataURI string, err error) {
	return g.NextContext(context.Background())
}

// NextContext is Next with a context that bounds the ffmpeg run.
func (g *VideoGenerator) NextContext(ctx context.Context) (dataURI string, err error) {
	if g.cached != "" {
		return g.cached, nil
	}
	o := g.opts
	args := []string{
		"-f", "rawvideo", "-pix_fmt", "rgb24",
		"-s", fmt.Sprintf("%dx%d", o.Width, o.Height),
		"-r", strconv.FormatFloat(o.FPS, 'f', -1, 64),
		"-i", "pipe:0",
		"-f", o.Format, "-vcodec", o.Codec, "-pix_fmt", "yuv420p",
	}
	if o.Format == VideoMP4 {
		args = append(args, "-movflags", "faststart")
	}
	args = append(args, "-fflags", "+bitexact", "-flags:v", "+bitexact")
	data, err := runFFmpeg(ctx, g.ffmpeg, &frameReader{g: g}, args, "output."+o.Format)
	if err != nil {
		return "", fmt.Errorf("ffmpeg failed to create the %s video (codec %s, %dx%d, %g fps, %d frames): %w",
			o.Format, o.Codec, o.Width, o.Height, o.FPS, g.frames, err)
	}
	uri := "data:video/" + o.Format + ";base64," + base64.StdEncoding.EncodeToString(data)
	if o.Synth != SynthNoise {
		g.cached = uri
	}
	return uri, nil
}

// frameReader streams the clip's rgb24 frames, rendering each on demand so
// a long clip is never held in memory whole.
type frameReader struct {
	g     *VideoGenerator
	frame int
	buf   []byte
	off   int
}

func (r *frameReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		if r.frame == r.g.frames {
			return 0, io.EOF
		}
		r.buf = r.g.renderFrame(r.frame, r.buf)
		r.frame++
		r.off = 0
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}
