package media

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEncodePassesThroughEncodedAndURLs(t *testing.T) {
	const png1x1 = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	for _, ref := range []string{
		png1x1,
		"DATA:image/jpeg;base64,AAAA",
		"https://example.com/cat.png",
		"http://127.0.0.1:8080/a/b.jpg?x=1",
		"s3://bucket/key.png",
	} {
		if got, err := EncodeImage(ref); err != nil || got != ref {
			t.Errorf("EncodeImage(%.40q) = %.40q, %v; want it unchanged", ref, got, err)
		}
	}
	for _, ref := range []string{"data:video/webm;base64,GkXfo59", "https://example.com/clip.mp4"} {
		if got, err := EncodeVideo(ref); err != nil || got != ref {
			t.Errorf("EncodeVideo(%.40q) = %.40q, %v; want it unchanged", ref, got, err)
		}
	}
	wav := mustRead(t, "tone.wav")
	mp3 := mustRead(t, "tone.mp3")
	for _, c := range []struct {
		ref string
		dur float64
	}{
		{"wav," + base64.StdEncoding.EncodeToString(wav), 0.05},
		{"WAV," + base64.StdEncoding.EncodeToString(wav), 0.05},
		{"mp3," + base64.StdEncoding.EncodeToString(mp3), 6 * 576.0 / 8000},
		{"wav,not base64!", 0},
		{"https://example.com/a.wav", 0},
	} {
		got, dur, err := EncodeAudio(c.ref)
		if err != nil || got != c.ref || math.Abs(dur-c.dur) > 1e-9 {
			t.Errorf("EncodeAudio(%.30q) = %.30q, %g, %v; want it unchanged, %g s", c.ref, got, dur, err, c.dur)
		}
	}
}

func TestEncodeRejectsHalfURLs(t *testing.T) {
	// AIPerf's _is_url: "://" with only a scheme or only a host is an error,
	// not a path.
	for _, ref := range []string{"file:///tmp/a.png", "http://", "https:///x"} {
		if _, err := EncodeImage(ref); err == nil || !strings.Contains(err.Error(), "scheme and netloc") {
			t.Errorf("EncodeImage(%q): %v; want a scheme-and-netloc error", ref, err)
		}
		if _, _, err := EncodeAudio(ref); err == nil || !strings.Contains(err.Error(), "scheme and netloc") {
			t.Errorf("EncodeAudio(%q): %v", ref, err)
		}
		if _, err := EncodeVideo(ref); err == nil || !strings.Contains(err.Error(), "scheme and netloc") {
			t.Errorf("EncodeVideo(%q): %v", ref, err)
		}
	}
}

func TestEncodeImageReencodesFiles(t *testing.T) {
	dir := t.TempDir()
	// PNG bytes behind a .jpg name: the format comes from the content.
	pngAsJPG := filepath.Join(dir, "really_png.jpg")
	if err := os.WriteFile(pngAsJPG, mustRead(t, "red8.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A greyscale JPEG comes back as a colour (3-component) JPEG, as
	// AIPerf converts to RGB.
	grey := image.NewGray(image.Rect(0, 0, 5, 3))
	for i := range grey.Pix {
		grey.Pix[i] = uint8(i * 15)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, grey, nil); err != nil {
		t.Fatal(err)
	}
	greyPath := filepath.Join(dir, "grey.jpeg")
	if err := os.WriteFile(greyPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		path   string
		format string
		w, h   int
		centre color.RGBA
	}{
		{filepath.Join("testdata", "red8.png"), "png", 8, 8, color.RGBA{255, 0, 0, 255}},
		{filepath.Join("testdata", "blue8.jpg"), "jpeg", 8, 8, color.RGBA{0, 0, 255, 255}},
		{pngAsJPG, "png", 8, 8, color.RGBA{255, 0, 0, 255}},
		{greyPath, "jpeg", 5, 3, color.RGBA{}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			uri, err := EncodeImage(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(uri, "data:image/"+tt.format+";base64,") {
				t.Fatalf("prefix %.30q, want data:image/%s;base64,", uri, tt.format)
			}
			img, format := decodeImage(t, uri)
			if format != tt.format || img.Bounds().Dx() != tt.w || img.Bounds().Dy() != tt.h {
				t.Fatalf("%s %v, want %s %dx%d", format, img.Bounds(), tt.format, tt.w, tt.h)
			}
			if tt.centre.A != 0 {
				r, g, b, _ := img.At(tt.w/2, tt.h/2).RGBA()
				if !near(color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}, tt.centre, 24) {
					t.Errorf("centre pixel %d,%d,%d, want about %v", r>>8, g>>8, b>>8, tt.centre)
				}
			}
			if tt.path == greyPath {
				if _, ok := img.(*image.YCbCr); !ok {
					t.Errorf("grey JPEG re-encoded as %T, want a colour (YCbCr) JPEG", img)
				}
			}
		})
	}
}

func TestEncodeFileErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, image.NewPaletted(image.Rect(0, 0, 2, 2), []color.Color{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	gifPath := write("anim.png", gifBuf.Bytes())
	text := write("notes.png", []byte("just text"))
	corrupt := write("corrupt.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"))
	flac := write("song.flac", []byte("fLaC"))
	avi := write("clip.avi", []byte("RIFF"))
	missing := filepath.Join(dir, "missing")

	tests := []struct {
		name string
		call func() error
		want []string
	}{
		{"missing image", func() error { _, err := EncodeImage(missing + ".png"); return err }, []string{missing + ".png", "does not exist"}},
		{"gif image", func() error { _, err := EncodeImage(gifPath); return err }, []string{gifPath, "GIF", "png, jpeg"}},
		{"text as image", func() error { _, err := EncodeImage(text); return err }, []string{text, "not a PNG or JPEG"}},
		{"corrupt png", func() error { _, err := EncodeImage(corrupt); return err }, []string{corrupt, "decoding PNG"}},
		{"directory as image", func() error { _, err := EncodeImage(dir); return err }, []string{dir}},
		{"missing audio", func() error { _, _, err := EncodeAudio(missing + ".wav"); return err }, []string{missing + ".wav", "does not exist"}},
		{"flac audio", func() error { _, _, err := EncodeAudio(flac); return err }, []string{flac, ".flac", ".wav, .mp3"}},
		{"no extension", func() error { _, _, err := EncodeAudio(missing); return err }, []string{missing, ".wav, .mp3"}},
		{"missing video", func() error { _, err := EncodeVideo(missing + ".webm"); return err }, []string{missing + ".webm", "does not exist"}},
		{"avi video", func() error { _, err := EncodeVideo(avi); return err }, []string{avi, ".avi", ".mp4, .webm"}},
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.webm"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name string
		call func() error
		want []string
	}{"directory named like a video", func() error { _, err := EncodeVideo(filepath.Join(dir, "dir.webm")); return err }, []string{"dir.webm", "is a directory"}})

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
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

func TestEncodeAudioFilesVerbatim(t *testing.T) {
	dir := t.TempDir()
	upper := filepath.Join(dir, "TONE.WAV")
	if err := os.WriteFile(upper, mustRead(t, "tone.wav"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, format, fixture string
		dur                   float64
	}{
		{filepath.Join("testdata", "tone.wav"), "wav", "tone.wav", 0.05},
		{upper, "wav", "tone.wav", 0.05},
		{filepath.Join("testdata", "tone.mp3"), "mp3", "tone.mp3", 6 * 576.0 / 8000},
	}
	for _, tt := range tests {
		got, dur, err := EncodeAudio(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if want := tt.format + "," + base64.StdEncoding.EncodeToString(mustRead(t, tt.fixture)); got != want {
			t.Errorf("EncodeAudio(%s) = %.40q, want %.40q (file bytes verbatim)", tt.path, got, want)
		}
		if math.Abs(dur-tt.dur) > 1e-9 {
			t.Errorf("EncodeAudio(%s) duration %g, want %g", tt.path, dur, tt.dur)
		}
	}
}

func TestEncodeVideoFilesVerbatim(t *testing.T) {
	for _, c := range []struct{ name, format string }{{"tiny.webm", "webm"}, {"tiny.mp4", "mp4"}} {
		got, err := EncodeVideo(filepath.Join("testdata", c.name))
		if err != nil {
			t.Fatal(err)
		}
		if want := "data:video/" + c.format + ";base64," + base64.StdEncoding.EncodeToString(mustRead(t, c.name)); got != want {
			t.Errorf("EncodeVideo(%s) = %.40q, want %.40q (file bytes verbatim)", c.name, got, want)
		}
	}
}

func TestURLScheme(t *testing.T) {
	for in, want := range map[string]string{
		"data:image/png;base64,xx": "data",
		"HTTP://x":                 "HTTP",
		"svn+ssh://h/p":            "svn+ssh",
		"wav,UklGR":                "",
		`C:\Users\me\a.png`:        "C",
		"/abs/path.png":            "",
		"1http://x":                "",
		":nothing":                 "",
	} {
		if got := urlScheme(in); got != want {
			t.Errorf("urlScheme(%q) = %q, want %q", in, got, want)
		}
	}
	// A Windows path is not a URL (no "://") and is read as a file.
	if _, err := EncodeImage(`C:\no\such\file.png`); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Windows-style path: %v, want a missing-file error", err)
	}
}
