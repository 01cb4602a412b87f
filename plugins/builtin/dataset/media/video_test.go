package media

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// testVideo builds a generator without looking for ffmpeg, for frame tests.
func testVideo(w, h, frames int, synth string, seed int64) *VideoGenerator {
	return &VideoGenerator{
		opts:   VideoOptions{Width: w, Height: h, Synth: synth},
		frames: frames,
		noise:  sample.NewStream(seed, "dataset.video.noise"),
	}
}

func pixel(frame []byte, w, x, y int) rgb {
	i := (y*w + x) * 3
	return rgb{frame[i], frame[i+1], frame[i+2]}
}

func TestMovingShapesFrames(t *testing.T) {
	const w, h = 64, 48
	g := testVideo(w, h, 8, SynthMovingShapes, 1)
	red, green, blue, black := rgb{255, 0, 0}, rgb{0, 255, 0}, rgb{0, 0, 255}, rgb{}

	f0 := g.renderFrame(0, nil)
	for _, c := range []struct {
		name string
		x, y int
		want rgb
	}{
		{"red circle centred at (0, h/2)", 0, h / 2, red},
		{"red circle radius 15", 14, h / 2, red},
		{"outside the red circle", 17, h / 2, black},
		{"green square centred at (w/2, 0)", w / 2, 0, green},
		{"green square half-size 12", w/2 + 12, 12, green},
		{"outside the green square", w/2 + 14, 5, black},
		{"blue circle starts at (w, h) mod (w, h) = (0, 0)", 2, 2, blue},
		{"not at (w, h)", w - 3, h - 3, black},
		{"background", 50, 20, black},
	} {
		if got := pixel(f0, w, c.x, c.y); got != c.want {
			t.Errorf("frame 0, %s: pixel (%d,%d) = %v, want %v", c.name, c.x, c.y, got, c.want)
		}
	}

	// Per frame the red circle moves w/frames*2 = 16 px right, the green
	// square h/frames*2 = 12 px down and the blue circle 12 px left and 9 up.
	f1 := g.renderFrame(1, nil)
	for _, c := range []struct {
		x, y int
		want rgb
	}{
		{16, h / 2, red}, {0, h / 2, black}, {w / 2, 12, green}, {w / 2, 26, black}, {w - 12, h - 9, blue},
	} {
		if got := pixel(f1, w, c.x, c.y); got != c.want {
			t.Errorf("frame 1: pixel (%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}

	// Frame 4 wraps the red circle back to x 0 (64 mod 64).
	if got := pixel(g.renderFrame(4, nil), w, 0, h/2); got != red {
		t.Errorf("frame 4: red circle did not wrap to x 0: %v", got)
	}
	if bytes.Equal(f0, f1) {
		t.Error("frames 0 and 1 are identical")
	}
}

func TestGridClockFrames(t *testing.T) {
	const w, h = 96, 80
	g := testVideo(w, h, 4, SynthGridClock, 1)
	f0 := g.renderFrame(0, nil)
	for _, c := range []struct {
		name string
		x, y int
		want rgb
	}{
		{"grid line x=0", 0, 40, rgb{64, 64, 64}},
		{"grid line y=32", 70, 32, rgb{64, 64, 64}},
		{"background", 70, 60, rgb{32, 32, 32}},
		{"red centre dot", w / 2, h / 2, rgb{255, 0, 0}},
		{"clock face at radius 20", w/2 + 19, h / 2, rgb{128, 128, 128}},
		{"minute hand points up at frame 0", w / 2, h/2 - 14, rgb{255, 255, 255}},
		{"top bar of the F of 'Frame 0'", 12, 10, rgb{255, 255, 255}},
	} {
		if got := pixel(f0, w, c.x, c.y); got != c.want {
			t.Errorf("%s: pixel (%d,%d) = %v, want %v", c.name, c.x, c.y, got, c.want)
		}
	}
	// A quarter turn later the minute hand points right.
	f1 := g.renderFrame(1, nil)
	if got := pixel(f1, w, w/2+14, h/2); got != (rgb{255, 255, 255}) {
		t.Errorf("frame 1: minute hand not pointing right: %v", got)
	}
	if got := pixel(f1, w, w/2, h/2-14); got == (rgb{255, 255, 255}) {
		t.Error("frame 1: minute hand still points up")
	}
}

func TestNoiseFramesAndFrameReader(t *testing.T) {
	const w, h, frames = 10, 6, 3
	read := func(seed int64) []byte {
		b, err := io.ReadAll(&frameReader{g: testVideo(w, h, frames, SynthNoise, seed)})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := read(1)
	if len(a) != frames*w*h*3 {
		t.Fatalf("read %d bytes, want %d frames of %dx%d rgb24", len(a), frames, w, h)
	}
	size := w * h * 3
	if bytes.Equal(a[:size], a[size:2*size]) {
		t.Error("noise frames 0 and 1 are identical")
	}
	if !bytes.Equal(a, read(1)) {
		t.Error("same seed gave different noise")
	}
	if bytes.Equal(a, read(2)) {
		t.Error("seeds 1 and 2 gave the same noise")
	}
}

func TestVideoOptionsErrorsNameTheOption(t *testing.T) {
	tests := []struct {
		name string
		opts VideoOptions
		want []string
	}{
		{"no size", VideoOptions{}, []string{"--video-width", "--video-height"}},
		{"no height", VideoOptions{Width: 8}, []string{"--video-height", "8x0"}},
		{"negative duration", VideoOptions{Width: 8, Height: 8, DurationS: -1}, []string{"--video-duration"}},
		{"negative fps", VideoOptions{Width: 8, Height: 8, FPS: -2}, []string{"--video-fps"}},
		{"no frames", VideoOptions{Width: 8, Height: 8, DurationS: 0.1, FPS: 4}, []string{"--video-duration", "--video-fps", "no frames"}},
		{"synth", VideoOptions{Width: 8, Height: 8, Synth: "plasma"}, []string{"--video-synth-type", "plasma"}},
		{"format", VideoOptions{Width: 8, Height: 8, Format: "avi"}, []string{"--video-format", "avi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.FFmpeg = "/nonexistent/ffmpeg" // validation comes first
			_, err := NewVideoGenerator(tt.opts, 1)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestVideoGeneratorWithoutFFmpeg(t *testing.T) {
	_, err := NewVideoGenerator(VideoOptions{Width: 16, Height: 16, FFmpeg: "/nonexistent/ffmpeg"}, 1)
	if err == nil {
		t.Fatal("no error for a missing ffmpeg")
	}
	for _, w := range []string{"video generation", "ffmpeg", "/nonexistent/ffmpeg", "Install FFmpeg", "conda install"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestVideoGeneratorEncodes(t *testing.T) {
	bin := requireFFmpeg(t)
	tests := []struct {
		name       string
		opts       VideoOptions
		mime       string
		magic      string // at offset 0, or "ftyp" at offset 4 for mp4
		formatName string
		frames     int
	}{
		{"webm moving_shapes defaults", VideoOptions{Width: 32, Height: 24, DurationS: 1}, "video/webm", "\x1a\x45\xdf\xa3", "matroska,webm", 4},
		{"webm grid-clock", VideoOptions{Width: 40, Height: 30, DurationS: 1.5, FPS: 2, Synth: "grid-clock"}, "video/webm", "\x1a\x45\xdf\xa3", "matroska,webm", 3},
		{"mp4 noise", VideoOptions{Width: 16, Height: 16, DurationS: 1, FPS: 2, Synth: "noise", Format: "mp4"}, "video/mp4", "ftyp", "mov,mp4,m4a,3gp,3g2,mj2", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.FFmpeg = bin
			g, err := NewVideoGenerator(tt.opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			uri, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			mime, b := splitDataURI(t, uri)
			if mime != tt.mime {
				t.Fatalf("media type %s, want %s", mime, tt.mime)
			}
			if tt.magic == "ftyp" {
				if len(b) < 8 || string(b[4:8]) != "ftyp" {
					t.Fatalf("no mp4 ftyp box: % x", b[:min(8, len(b))])
				}
			} else if !hasMagic(b, tt.magic) {
				t.Fatalf("no EBML magic: % x", b[:min(4, len(b))])
			}
			if p := probe(t, b, strings.TrimPrefix(tt.mime, "video/")); p != nil {
				s := p.Streams[0]
				if s.CodecName != "vp9" || s.Width != tt.opts.Width || s.Height != tt.opts.Height || s.PixFmt != "yuv420p" {
					t.Errorf("ffprobe: %s %dx%d %s, want vp9 %dx%d yuv420p", s.CodecName, s.Width, s.Height, s.PixFmt, tt.opts.Width, tt.opts.Height)
				}
				if s.NbReadFrames != strconv.Itoa(tt.frames) {
					t.Errorf("ffprobe counted %s frames, want %d", s.NbReadFrames, tt.frames)
				}
				if p.Format.FormatName != tt.formatName {
					t.Errorf("container %s, want %s", p.Format.FormatName, tt.formatName)
				}
				if p.Format.Duration == "" || p.Format.Duration == "N/A" {
					t.Error("container has no duration (written to a pipe instead of a seekable file?)")
				}
			}

			again, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			if synthNoise := tt.opts.Synth == "noise"; synthNoise == (again == uri) {
				t.Errorf("second clip equal to the first: %v; want equal only for seed-independent synths", again == uri)
			}
			g2, err := NewVideoGenerator(tt.opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			if other, err := g2.Next(); err != nil || other != uri {
				t.Errorf("same seed gave different video bytes (err %v)", err)
			}
		})
	}
}

func TestVideoGeneratorReportsFFmpegFailure(t *testing.T) {
	bin := requireFFmpeg(t)
	g, err := NewVideoGenerator(VideoOptions{Width: 16, Height: 16, DurationS: 1, Codec: "no-such-codec", FFmpeg: bin}, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Next()
	if err == nil {
		t.Fatal("no error for an unknown codec")
	}
	for _, w := range []string{"no-such-codec", "16x16", "webm", "Unknown encoder"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}
