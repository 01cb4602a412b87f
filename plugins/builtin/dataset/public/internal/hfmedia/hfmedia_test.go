package hfmedia

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
)

func TestVideos(t *testing.T) {
	cases := []struct {
		in   any
		want []string
	}{
		{"https://x/y.mp4", []string{"https://x/y.mp4"}},
		{"data:video/mp4;base64,AA", []string{"data:video/mp4;base64,AA"}},
		{"videos/a.mp4", []string{"file://videos/a.mp4"}},
		{"", nil},
		{map[string]any{"bytes": []byte{1, 2, 3}, "path": "clip.webm"}, []string{"data:video/webm;base64,AQID"}},
		{map[string]any{"bytes": []byte{1, 2, 3}, "path": nil}, []string{"data:video/mp4;base64,AQID"}},
		{map[string]any{"bytes": nil, "path": "a.mp4"}, nil},
		{int64(3), nil},
	}
	for _, c := range cases {
		if got := Videos(c.in); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("Videos(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestImagesTakesTheFirstThatDecodes(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.Set(0, 0, color.NRGBA{R: 255, A: 0}) // transparent red keeps its colour, as PIL's convert("RGB")
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	got := Images([]any{map[string]any{"bytes": []byte("junk")}, map[string]any{"path": "only-a-path.png"}, buf.Bytes()})
	if len(got) != 1 || !strings.HasPrefix(got[0], "data:image/jpeg;base64,") {
		t.Errorf("Images = %.40q", got)
	}
	if Images(nil) != nil || Images([]any{}) != nil {
		t.Error("no value, no image")
	}
}

// A 16-bit WAV decodes to samples in [-1, 1) and re-encodes as soundfile
// writes it (x * 32767, rounded half to even).
func TestWAVRoundTrip(t *testing.T) {
	samples := []int16{0, 16384, -32768, 32767}
	var data bytes.Buffer
	for _, s := range samples {
		binary.Write(&data, binary.LittleEndian, s)
	}
	in := WAV16(PCM{SampleRate: 8000, Channels: 1})
	in = append(in[:40], 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(in[40:], uint32(data.Len()))
	binary.LittleEndian.PutUint32(in[4:], uint32(36+data.Len()))
	in = append(in, data.Bytes()...)
	p, err := DecodeAudio(in)
	if err != nil || p.SampleRate != 8000 || p.Channels != 1 || len(p.Samples) != 4 || p.Samples[1] != 0.5 || p.Samples[2] != -1 {
		t.Fatalf("DecodeAudio = %+v, %v", p, err)
	}
	out := WAV16(p)
	var got [4]int16
	binary.Read(bytes.NewReader(out[44:]), binary.LittleEndian, &got)
	if got != [4]int16{0, 16384, -32767, 32766} {
		t.Errorf("re-encoded samples %v, want libsndfile's scaling [0 16384 -32767 32766]", got)
	}
	if p.Duration() != 0.0005 {
		t.Errorf("duration %v", p.Duration())
	}
	if _, err := DecodeAudio([]byte("ID3 not really")); err == nil {
		t.Error("garbage after an ID3 tag decoded")
	}
}
