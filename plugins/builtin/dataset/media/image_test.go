package media

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeImage decodes a generated data URI, checking that the URI's media
// type matches the format the bytes really are.
func decodeImage(t *testing.T, uri string) (image.Image, string) {
	t.Helper()
	mime, b := splitDataURI(t, uri)
	img, format, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding %s: %v", mime, err)
	}
	if mime != "image/"+format {
		t.Fatalf("data URI says %s but the bytes are %s", mime, format)
	}
	return img, format
}

func TestImageGeneratorFormatsAndSizes(t *testing.T) {
	tests := []struct {
		name       string
		opts       ImageOptions
		wantFormat string
		wantW      int
		wantH      int
	}{
		{"defaults are a 512x512 jpeg", ImageOptions{}, "jpeg", 512, 512},
		{"png", ImageOptions{Format: "png", WidthMean: 8, HeightMean: 6}, "png", 8, 6},
		{"jpeg", ImageOptions{Format: "jpeg", WidthMean: 33, HeightMean: 17}, "jpeg", 33, 17},
		{"format is case-insensitive", ImageOptions{Format: "PNG", WidthMean: 5, HeightMean: 5}, "png", 5, 5},
		{"means truncate like int()", ImageOptions{Format: "png", WidthMean: 10.9, WidthStddev: 0.9, HeightMean: 3.5}, "png", 10, 3},
		{"zero height alone defaults", ImageOptions{Format: "png", WidthMean: 7}, "png", 7, 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := NewImageGenerator(tt.opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				uri, err := g.Next()
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(uri, "data:image/"+tt.wantFormat+";base64,") {
					t.Fatalf("prefix %.30q, want data:image/%s;base64,", uri, tt.wantFormat)
				}
				img, format := decodeImage(t, uri)
				if format != tt.wantFormat {
					t.Fatalf("format %s, want %s", format, tt.wantFormat)
				}
				if b := img.Bounds(); b.Dx() != tt.wantW || b.Dy() != tt.wantH {
					t.Fatalf("size %dx%d, want %dx%d", b.Dx(), b.Dy(), tt.wantW, tt.wantH)
				}
			}
		})
	}
}

func TestImageGeneratorRandomFormatDrawsBoth(t *testing.T) {
	g, err := NewImageGenerator(ImageOptions{Format: "random", WidthMean: 4, HeightMean: 4}, 7)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for range 30 {
		uri, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		_, format := decodeImage(t, uri)
		seen[format]++
	}
	if seen["png"] == 0 || seen["jpeg"] == 0 || len(seen) != 2 {
		t.Fatalf("formats drawn %v, want both png and jpeg", seen)
	}
}

func TestImageGeneratorStddevVariesWidthOnly(t *testing.T) {
	g, err := NewImageGenerator(ImageOptions{Format: "png", WidthMean: 20, WidthStddev: 8, HeightMean: 9}, 3)
	if err != nil {
		t.Fatal(err)
	}
	widths := map[int]bool{}
	for range 20 {
		uri, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		img, _ := decodeImage(t, uri)
		b := img.Bounds()
		if b.Dx() < 1 || b.Dy() != 9 {
			t.Fatalf("size %dx%d: want width >= 1 and height 9", b.Dx(), b.Dy())
		}
		widths[b.Dx()] = true
	}
	if len(widths) < 3 {
		t.Fatalf("only %d distinct widths over 20 draws with stddev 8", len(widths))
	}
}

func TestImageGeneratorNoiseIsOpaqueUniformRGB(t *testing.T) {
	g, err := NewImageGenerator(ImageOptions{Format: "png", WidthMean: 64, HeightMean: 64}, 1)
	if err != nil {
		t.Fatal(err)
	}
	uri, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	img, _ := decodeImage(t, uri)
	var sum, n float64
	distinct := map[uint32]bool{}
	for y := range 64 {
		for x := range 64 {
			r, gg, b, a := img.At(x, y).RGBA()
			if a != 0xFFFF {
				t.Fatalf("pixel (%d,%d) alpha %d, want opaque", x, y, a)
			}
			sum += float64(r>>8+gg>>8+b>>8) / 3
			n++
			distinct[r>>8] = true
		}
	}
	if mean := sum / n; mean < 117 || mean > 138 {
		t.Fatalf("mean channel value %.1f, want about 127.5 for uniform bytes", mean)
	}
	if len(distinct) < 250 {
		t.Fatalf("only %d distinct red values in 4096 noise pixels", len(distinct))
	}
}

func TestImageGeneratorSameSeedSameBytes(t *testing.T) {
	opts := ImageOptions{Format: "random", WidthMean: 12, WidthStddev: 4, HeightMean: 10, HeightStddev: 3}
	run := func(seed int64) []string {
		g, err := NewImageGenerator(opts, seed)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for range 6 {
			uri, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, uri)
		}
		return out
	}
	a, b, c := run(5), run(5), run(6)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("image %d differs between two runs with seed 5", i)
		}
	}
	if strings.Join(a, "") == strings.Join(c, "") {
		t.Fatal("seeds 5 and 6 gave identical images")
	}
}

// writeSolid writes a 16x16 image of one colour as PNG or JPEG.
func writeSolid(t *testing.T, path string, c color.RGBA) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	var buf bytes.Buffer
	var err error
	if strings.HasSuffix(path, ".png") {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95})
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// colourDir holds blue.jpg, green.png, red.PNG and files to ignore.
func colourDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeSolid(t, filepath.Join(dir, "blue.jpg"), color.RGBA{0, 0, 255, 255})
	writeSolid(t, filepath.Join(dir, "green.png"), color.RGBA{0, 255, 0, 255})
	writeSolid(t, filepath.Join(dir, "red.PNG"), color.RGBA{255, 0, 0, 255})
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// colourOf names the dominant channel of the image's centre pixel.
func colourOf(t *testing.T, uri string) string {
	t.Helper()
	img, _ := decodeImage(t, uri)
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Dx()/2, b.Dy()/2).RGBA()
	switch {
	case r > 0xC000 && g < 0x4000 && bl < 0x4000:
		return "R"
	case g > 0xC000 && r < 0x4000 && bl < 0x4000:
		return "G"
	case bl > 0xC000 && r < 0x4000 && g < 0x4000:
		return "B"
	}
	t.Fatalf("centre pixel %x,%x,%x is not a pure source colour", r, g, bl)
	return ""
}

func draws(t *testing.T, g *ImageGenerator, n int) string {
	t.Helper()
	var s strings.Builder
	for range n {
		uri, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		s.WriteString(colourOf(t, uri))
	}
	return s.String()
}

func TestImageGeneratorDirectorySampling(t *testing.T) {
	dir := colourDir(t)
	newGen := func(sampling string) *ImageGenerator {
		g, err := NewImageGenerator(ImageOptions{Format: "png", WidthMean: 8, HeightMean: 8, Source: dir, Sampling: sampling}, 11)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	if got := draws(t, newGen("sequential-cycle"), 7); got != "BGRBGRB" {
		t.Errorf("sequential-cycle drew %s, want BGRBGRB (sorted file order, wrapping)", got)
	}

	got := draws(t, newGen("shuffle-cycle"), 12)
	for i := 0; i < len(got); i += 3 {
		cycle := got[i : i+3]
		if !strings.Contains(cycle, "R") || !strings.Contains(cycle, "G") || !strings.Contains(cycle, "B") {
			t.Errorf("shuffle-cycle drew %s: cycle %q is not a permutation of RGB", got, cycle)
		}
	}
	if got[:3] == got[3:6] && got[3:6] == got[6:9] && got[6:9] == got[9:12] {
		t.Errorf("shuffle-cycle drew %s: four cycles in the same order, not reshuffled", got)
	}

	got = draws(t, newGen(""), 30)
	for _, c := range "RGB" {
		if !strings.ContainsRune(got, c) {
			t.Errorf("random-with-replacement drew %s: %c never drawn in 30", got, c)
		}
	}
}

func TestImageGeneratorRetiresUnreadableSources(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a_bad.png"), []byte("\x89PNG\r\n\x1a\ngarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeSolid(t, filepath.Join(dir, "b_red.png"), color.RGBA{255, 0, 0, 255})
	g, err := NewImageGenerator(ImageOptions{Format: "png", WidthMean: 4, HeightMean: 4, Source: dir, Sampling: "sequential-cycle"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := draws(t, g, 4); got != "RRRR" {
		t.Fatalf("drew %s, want RRRR: the unreadable file is skipped", got)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "only.jpg"), []byte("not a jpeg"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = NewImageGenerator(ImageOptions{Source: bad}, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Next()
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "only.jpg") {
		t.Fatalf("error %v: want one naming the directory and only.jpg", err)
	}
}

func TestImageGeneratorBundledAssets(t *testing.T) {
	names := assetNames()
	if len(names) != 4 {
		t.Fatalf("%d bundled assets, want 4: %v", len(names), names)
	}
	g, err := NewImageGenerator(ImageOptions{Format: "png", WidthMean: 40, HeightMean: 30, Source: "assets", Sampling: "sequential-cycle"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for range 5 {
		uri, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		img, _ := decodeImage(t, uri)
		if b := img.Bounds(); b.Dx() != 40 || b.Dy() != 30 {
			t.Fatalf("size %dx%d, want 40x30", b.Dx(), b.Dy())
		}
		uris = append(uris, uri)
	}
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			if uris[i] == uris[j] {
				t.Fatalf("assets %d and %d resized to identical images", i, j)
			}
		}
	}
	if uris[4] != uris[0] {
		t.Fatal("sequential-cycle did not wrap to the first asset")
	}
	// Upper-case "ASSETS" and the default random sampling work too.
	g, err = NewImageGenerator(ImageOptions{WidthMean: 20, HeightMean: 20, Source: "ASSETS"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
}

func TestImageOptionsErrorsNameTheOption(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file.png")
	writeSolid(t, file, color.RGBA{A: 255})
	empty := t.TempDir()
	tests := []struct {
		name string
		opts ImageOptions
		want []string
	}{
		{"format", ImageOptions{Format: "gif"}, []string{"--image-format", `"gif"`}},
		{"negative width", ImageOptions{WidthMean: -1}, []string{"--image-width-mean"}},
		{"negative height stddev", ImageOptions{HeightStddev: -2}, []string{"--image-height-stddev"}},
		{"sampling", ImageOptions{Sampling: "round-robin"}, []string{"--image-source-sampling", "round-robin"}},
		{"noise with a cycle", ImageOptions{Sampling: "shuffle-cycle"}, []string{"--image-source-sampling", "noise has no finite source pool"}},
		{"missing directory", ImageOptions{Source: "/nonexistent/images"}, []string{"--image-source", "/nonexistent/images", "does not exist"}},
		{"a file, not a directory", ImageOptions{Source: file}, []string{"--image-source", file, "not a directory"}},
		{"no images in the directory", ImageOptions{Source: empty}, []string{"--image-source", empty, "no .png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewImageGenerator(tt.opts, 1)
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

func TestResizeKeepsColoursAndSize(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 10, 7))
	for y := range 7 {
		for x := range 10 {
			c := color.RGBA{200, 30, 90, 255}
			if x >= 5 {
				c = color.RGBA{10, 220, 40, 255}
			}
			src.SetRGBA(x, y, c)
		}
	}
	for _, size := range []image.Point{{23, 5}, {3, 3}, {10, 7}, {1, 1}, {100, 70}} {
		out := resize(src, size.X, size.Y)
		if b := out.Bounds(); b.Dx() != size.X || b.Dy() != size.Y {
			t.Fatalf("resize to %v gave %v", size, b)
		}
		if size.X < 2 {
			continue
		}
		left, right := out.RGBAAt(0, size.Y/2), out.RGBAAt(size.X-1, size.Y/2)
		if !near(left, color.RGBA{200, 30, 90, 255}, 40) || !near(right, color.RGBA{10, 220, 40, 255}, 40) {
			t.Errorf("resize to %v: edges %v and %v, want the two source halves' colours", size, left, right)
		}
		if left.A != 255 || right.A != 255 {
			t.Errorf("resize to %v lost opacity", size)
		}
	}
	solid := image.NewRGBA(image.Rect(0, 0, 9, 9))
	for i := range solid.Pix {
		solid.Pix[i] = []byte{77, 150, 3, 255}[i%4]
	}
	out := resize(solid, 31, 4)
	for i := 0; i < len(out.Pix); i += 4 {
		if !near(color.RGBA{out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3]}, color.RGBA{77, 150, 3, 255}, 1) {
			t.Fatalf("solid colour changed to %v", out.Pix[i:i+4])
		}
	}
}

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B) && d(a.A, b.A)
}
