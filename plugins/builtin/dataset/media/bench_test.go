package media

import "testing"

// The defaults a bare --batch-size-image / --batch-size-audio run uses.

func BenchmarkImageNoiseJPEG512(b *testing.B) {
	g, err := NewImageGenerator(ImageOptions{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImageAssetsPNG512(b *testing.B) {
	g, err := NewImageGenerator(ImageOptions{Format: "png", Source: "assets"}, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAudioWAV10s(b *testing.B) {
	g, err := NewAudioGenerator(AudioOptions{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := g.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
