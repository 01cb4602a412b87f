package media

import (
	"encoding/binary"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// checkWAVHeader checks every field of a generated 44-byte WAV header.
func checkWAVHeader(t *testing.T, b []byte, rate, channels, bits, frames int) {
	t.Helper()
	width := bits / 8
	data := frames * channels * width
	pad := data & 1
	if len(b) != 44+data+pad {
		t.Fatalf("file is %d bytes, want 44 + %d data + %d pad", len(b), data, pad)
	}
	le16 := func(off int) int { return int(binary.LittleEndian.Uint16(b[off:])) }
	le32 := func(off int) int { return int(binary.LittleEndian.Uint32(b[off:])) }
	checks := []struct {
		field     string
		got, want any
	}{
		{"RIFF", string(b[0:4]), "RIFF"},
		{"RIFF size", le32(4), 36 + data + pad},
		{"WAVE", string(b[8:12]), "WAVE"},
		{"fmt id", string(b[12:16]), "fmt "},
		{"fmt size", le32(16), 16},
		{"format tag (PCM)", le16(20), 1},
		{"channels", le16(22), channels},
		{"sample rate", le32(24), rate},
		{"byte rate", le32(28), rate * channels * width},
		{"block align", le16(32), channels * width},
		{"bits per sample", le16(34), bits},
		{"data id", string(b[36:40]), "data"},
		{"data size", le32(40), data},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
		}
	}
	if pad == 1 && b[len(b)-1] != 0 {
		t.Errorf("pad byte %d, want 0", b[len(b)-1])
	}
}

// pcm returns the signed samples of a generated WAV (8-bit unsigned
// re-centred on 0).
func pcm(b []byte, bits int) []int {
	data := b[44 : 44+int(binary.LittleEndian.Uint32(b[40:]))]
	var out []int
	for i := 0; i+bits/8 <= len(data); i += bits / 8 {
		switch bits {
		case 8:
			out = append(out, int(data[i])-128)
		case 16:
			out = append(out, int(int16(binary.LittleEndian.Uint16(data[i:]))))
		case 24:
			out = append(out, int(int32(uint32(data[i])<<8|uint32(data[i+1])<<16|uint32(data[i+2])<<24)>>8))
		case 32:
			out = append(out, int(int32(binary.LittleEndian.Uint32(data[i:]))))
		}
	}
	return out
}

func TestAudioGeneratorWAV(t *testing.T) {
	tests := []struct {
		name      string
		opts      AudioOptions
		rate      int
		bits      int
		channels  int
		frames    int
		wantBytes int
		// maxAbs bounds |sample|; rmsLo/rmsHi bound the RMS (0.3 of the
		// scale, a little less after clipping).
		maxAbs       int
		rmsLo, rmsHi float64
	}{
		{
			name: "the captured 0.02 s 8 kHz 16-bit mono clip is 364 bytes",
			opts: AudioOptions{LengthMean: 0.02, SampleRatesKHz: []float64{8}},
			rate: 8000, bits: 16, channels: 1, frames: 160, wantBytes: 364,
			maxAbs: 32767, rmsLo: 0.2 * 32767, rmsHi: 0.4 * 32767,
		},
		{
			name: "8-bit is unsigned PCM_U8 with a pad byte after odd data",
			opts: AudioOptions{LengthMean: 0.0124, SampleRatesKHz: []float64{8}, Depths: []int{8}},
			rate: 8000, bits: 8, channels: 1, frames: 99, wantBytes: 144,
			maxAbs: 128, rmsLo: 0.2 * 128, rmsHi: 0.4 * 128,
		},
		{
			name: "24-bit stereo keeps libsndfile's top three bytes of the int32",
			opts: AudioOptions{LengthMean: 0.1, SampleRatesKHz: []float64{16}, Depths: []int{24}, Channels: 2},
			rate: 16000, bits: 24, channels: 2, frames: 1600,
			maxAbs: 1 << 15, rmsLo: 0.2 * (1 << 15), rmsHi: 0.4 * (1 << 15),
		},
		{
			name: "32-bit at 44.1 kHz",
			opts: AudioOptions{LengthMean: 0.01, SampleRatesKHz: []float64{44.1}, Depths: []int{32}},
			rate: 44100, bits: 32, channels: 1, frames: 441,
			maxAbs: math.MaxInt32, rmsLo: 0.2 * math.MaxInt32, rmsHi: 0.4 * math.MaxInt32,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewAudioGenerator(tt.opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			enc, dur, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			if dur != tt.opts.LengthMean {
				t.Errorf("duration %g, want the mean %g (stddev 0)", dur, tt.opts.LengthMean)
			}
			format, b := splitAudio(t, enc)
			if format != "wav" {
				t.Fatalf("format %q, want wav", format)
			}
			if tt.wantBytes != 0 && len(b) != tt.wantBytes {
				t.Errorf("%d bytes, want %d", len(b), tt.wantBytes)
			}
			checkWAVHeader(t, b, tt.rate, tt.channels, tt.bits, tt.frames)
			info, err := parseWAV(b)
			if err != nil {
				t.Fatal(err)
			}
			if want := float64(tt.frames) / float64(tt.rate); math.Abs(info.Duration()-want) > 1e-9 {
				t.Errorf("header duration %g, want %g", info.Duration(), want)
			}
			samples := pcm(b, tt.bits)
			var sq float64
			distinct := map[int]bool{}
			for _, s := range samples {
				if s > tt.maxAbs || s < -tt.maxAbs {
					t.Fatalf("sample %d beyond ±%d", s, tt.maxAbs)
				}
				sq += float64(s) * float64(s)
				distinct[s] = true
			}
			if rms := math.Sqrt(sq / float64(len(samples))); rms < tt.rmsLo || rms > tt.rmsHi {
				t.Errorf("RMS %.0f, want within [%.0f, %.0f] (normal noise, sigma 0.3 of scale)", rms, tt.rmsLo, tt.rmsHi)
			}
			if len(distinct) < 10 {
				t.Errorf("only %d distinct sample values", len(distinct))
			}
		})
	}
}

func TestAudioGeneratorDefaultsTo10sOf16kHz16bitMono(t *testing.T) {
	g, err := NewAudioGenerator(AudioOptions{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc, dur, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	if dur != 10 {
		t.Errorf("duration %g, want 10", dur)
	}
	_, b := splitAudio(t, enc)
	checkWAVHeader(t, b, 16000, 1, 16, 160000)
}

func TestAudioGeneratorLengthStddev(t *testing.T) {
	g, err := NewAudioGenerator(AudioOptions{LengthMean: 0.02, LengthStddev: 0.05, SampleRatesKHz: []float64{8}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	lengths := map[float64]bool{}
	clipped := 0
	for range 30 {
		enc, dur, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if dur < 0.01 {
			t.Fatalf("duration %g below AIPerf's 0.01 s floor", dur)
		}
		if dur < 0.02 {
			clipped++
		}
		lengths[dur] = true
		_, b := splitAudio(t, enc)
		checkWAVHeader(t, b, 8000, 1, 16, int(dur*8000))
	}
	if len(lengths) < 25 {
		t.Errorf("only %d distinct lengths in 30 draws", len(lengths))
	}
	if clipped == 0 {
		t.Error("no draw below the mean: the normal sample is not being used")
	}
}

func TestAudioGeneratorDrawsEveryRateAndDepth(t *testing.T) {
	g, err := NewAudioGenerator(AudioOptions{LengthMean: 0.01, SampleRatesKHz: []float64{8, 22.05}, Depths: []int{8, 16, 24}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for range 60 {
		enc, _, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		_, b := splitAudio(t, enc)
		info, err := parseWAV(b)
		if err != nil {
			t.Fatal(err)
		}
		checkWAVHeader(t, b, info.SampleRate, 1, info.Bits, int(0.01*float64(info.SampleRate)))
		seen["rate "+strconv.Itoa(info.SampleRate)] = true
		seen["bits "+strconv.Itoa(info.Bits)] = true
	}
	for _, want := range []string{"rate 8000", "rate 22050", "bits 8", "bits 16", "bits 24"} {
		if !seen[want] {
			t.Errorf("never drew %s in 60 clips (saw %v)", want, seen)
		}
	}
}

func TestAudioGeneratorSameSeedSameBytes(t *testing.T) {
	opts := AudioOptions{LengthMean: 0.05, LengthStddev: 0.02, SampleRatesKHz: []float64{8, 16}, Depths: []int{8, 16}}
	run := func(seed int64) string {
		g, err := NewAudioGenerator(opts, seed)
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for range 5 {
			enc, _, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			all.WriteString(enc)
		}
		return all.String()
	}
	a, b := run(9), run(9)
	if a != b {
		t.Fatal("two runs with seed 9 differ")
	}
	if a == run(10) {
		t.Fatal("seeds 9 and 10 gave identical audio")
	}
}

func TestAudioOptionsErrorsNameTheOption(t *testing.T) {
	tests := []struct {
		name string
		opts AudioOptions
		want []string
	}{
		{"length below 0.01", AudioOptions{LengthMean: 0.005}, []string{"--audio-length-mean", "0.01"}},
		{"negative length", AudioOptions{LengthMean: -1}, []string{"--audio-length-mean"}},
		{"negative stddev", AudioOptions{LengthStddev: -0.1}, []string{"--audio-length-stddev"}},
		{"format", AudioOptions{Format: "flac"}, []string{"--audio-format", `"flac"`}},
		{"depth", AudioOptions{Depths: []int{16, 12}}, []string{"--audio-depths", "12"}},
		{"zero rate", AudioOptions{SampleRatesKHz: []float64{0.0001}}, []string{"--audio-sample-rates"}},
		{"channels", AudioOptions{Channels: 3}, []string{"--audio-num-channels", "3"}},
		{"mp3 rate", AudioOptions{Format: "mp3", SampleRatesKHz: []float64{16, 44}, FFmpeg: "/nonexistent/ffmpeg"}, []string{"--audio-sample-rates", "44 kHz", "mp3", "44100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewAudioGenerator(tt.opts, 1)
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

func TestAudioGeneratorMP3WithoutFFmpeg(t *testing.T) {
	_, err := NewAudioGenerator(AudioOptions{Format: "mp3", FFmpeg: "/nonexistent/ffmpeg"}, 1)
	if err == nil {
		t.Fatal("no error for a missing ffmpeg")
	}
	for _, w := range []string{"--audio-format mp3", "ffmpeg", "/nonexistent/ffmpeg", "Install FFmpeg"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	// Without a path, PATH is searched; an empty PATH finds nothing.
	t.Setenv("PATH", t.TempDir())
	if _, err := NewAudioGenerator(AudioOptions{Format: "mp3"}, 1); err == nil || !strings.Contains(err.Error(), "not found in PATH") {
		t.Fatalf("error %v: want ffmpeg not found in PATH", err)
	}
	// WAV needs no ffmpeg.
	if _, err := NewAudioGenerator(AudioOptions{}, 1); err != nil {
		t.Fatalf("wav without ffmpeg: %v", err)
	}
}

func TestAudioGeneratorMP3(t *testing.T) {
	bin := requireFFmpeg(t)
	tests := []struct {
		name     string
		opts     AudioOptions
		rate     string
		channels int
		frame    int // samples per MP3 frame
	}{
		{"captured 0.05 s 8 kHz stereo (MPEG-2.5)", AudioOptions{LengthMean: 0.05, SampleRatesKHz: []float64{8}, Channels: 2}, "8000", 2, 576},
		{"44.1 kHz 24-bit mono (MPEG-1)", AudioOptions{LengthMean: 0.1, SampleRatesKHz: []float64{44.1}, Depths: []int{24}}, "44100", 1, 1152},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Format, tt.opts.FFmpeg = "mp3", bin
			g, err := NewAudioGenerator(tt.opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			enc, dur, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			if dur != tt.opts.LengthMean {
				t.Errorf("duration %g, want %g", dur, tt.opts.LengthMean)
			}
			format, b := splitAudio(t, enc)
			if format != "mp3" {
				t.Fatalf("format %q, want mp3", format)
			}
			if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
				t.Fatalf("does not start with an MPEG frame sync (no ID3 tag expected): % x", b[:min(4, len(b))])
			}
			rate, _ := strconv.Atoi(tt.rate)
			frame := float64(tt.frame) / float64(rate)
			// The frames hold the clip plus LAME's priming and padding.
			if d := mp3Duration(b); d < tt.opts.LengthMean || d > tt.opts.LengthMean+3*frame {
				t.Errorf("frames hold %g s, want %g s plus at most three %g s frames", d, tt.opts.LengthMean, frame)
			}
			if p := probe(t, b, "mp3"); p != nil {
				s := p.Streams[0]
				if s.CodecName != "mp3" || s.SampleRate != tt.rate || s.Channels != tt.channels || p.Format.FormatName != "mp3" {
					t.Errorf("ffprobe: codec %s, %s Hz, %d channels, format %s; want mp3, %s, %d, mp3",
						s.CodecName, s.SampleRate, s.Channels, p.Format.FormatName, tt.rate, tt.channels)
				}
			}

			g2, err := NewAudioGenerator(tt.opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			if again, _, err := g2.Next(); err != nil || again != enc {
				t.Errorf("same seed gave different mp3 bytes (err %v)", err)
			}
		})
	}
}

func TestParseWAV(t *testing.T) {
	tone := mustRead(t, "tone.wav")
	info, err := parseWAV(tone)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != 1 || info.Channels != 1 || info.SampleRate != 8000 || info.Bits != 16 || info.Duration() != 0.05 {
		t.Fatalf("tone.wav parsed as %+v (%g s), want PCM mono 8 kHz 16-bit 0.05 s", info, info.Duration())
	}

	// A LIST chunk before data is skipped.
	withList := append([]byte{}, tone[:36]...)
	withList = append(withList, "LIST\x05\x00\x00\x00INFOx\x00"...)
	withList = append(withList, tone[36:]...)
	if info, err := parseWAV(withList); err != nil || info.Duration() != 0.05 {
		t.Fatalf("with a LIST chunk: %+v, %v", info, err)
	}
	// A truncated data chunk counts only the bytes present.
	if info, err := parseWAV(tone[:44+400]); err != nil || info.Duration() != 0.025 {
		t.Fatalf("truncated: %g s, %v; want 0.025", info.Duration(), err)
	}
	for name, b := range map[string][]byte{
		"not RIFF":   []byte("OggS not a wav file at all"),
		"no data":    tone[:36],
		"empty":      nil,
		"fmt cut":    tone[:24],
		"mp3 as wav": mustRead(t, "tone.mp3"),
	} {
		if _, err := parseWAV(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMP3Duration(t *testing.T) {
	b := mustRead(t, "tone.mp3")
	// 6 MPEG-2.5 Layer III frames of 576 samples at 8 kHz after the Info
	// frame (testdata/README.md).
	if got, want := mp3Duration(b), 6*576.0/8000; math.Abs(got-want) > 1e-9 {
		t.Errorf("tone.mp3: %g s, want %g", got, want)
	}
	// An ID3v2 tag in front is skipped.
	id3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x05hello"), b...)
	if got := mp3Duration(id3); math.Abs(got-6*576.0/8000) > 1e-9 {
		t.Errorf("with ID3v2: %g s", got)
	}
	for name, junk := range map[string][]byte{"wav": mustRead(t, "tone.wav"), "empty": nil, "text": []byte("hello world")} {
		if got := mp3Duration(junk); got != 0 {
			t.Errorf("%s: %g s, want 0", name, got)
		}
	}
}

func TestFFmpegInstallHintIsACommand(t *testing.T) {
	hint := ffmpegInstallHint()
	if !strings.Contains(hint, "ffmpeg") {
		t.Fatalf("hint %q does not name ffmpeg", hint)
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil && runtime.GOOS == "linux" &&
		strings.Contains(strings.ToLower(string(b)), "debian") && !strings.Contains(hint, "apt") {
		t.Errorf("hint %q on Debian does not use apt", hint)
	}
}
