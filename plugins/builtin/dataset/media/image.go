package media

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// ImageOptions configure synthetic images (AIPerf's ImageConfig; the
// --image-* flags).
type ImageOptions struct {
	// Width and height in pixels, each a positive normal sample (the mean
	// when the stddev is 0). AIPerf truncates all four to integers. A mean
	// of 0 means 512 (AIPerf 0.13's real default).
	WidthMean, WidthStddev, HeightMean, HeightStddev float64
	// Format is "png", "jpeg" or "random" (PNG or JPEG per image); ""
	// means jpeg (AIPerf 0.13's real default).
	Format string
	// Source is "noise" (default: uniform random RGB), "assets" (the
	// bundled images) or a directory of PNG/JPEG files, resized to the
	// sampled size.
	Source string
	// Sampling picks source images: "random-with-replacement" (default),
	// "shuffle-cycle" or "sequential-cycle". Noise allows only the first.
	Sampling string
}

// Image option values.
const (
	ImagePNG    = "png"
	ImageJPEG   = "jpeg"
	ImageRandom = "random"

	SourceNoise  = "noise"
	SourceAssets = "assets"

	SamplingRandom     = "random-with-replacement"
	SamplingShuffle    = "shuffle-cycle"
	SamplingSequential = "sequential-cycle"

	// DefaultImageSize is the width and height when a mean is 0.
	DefaultImageSize = 512
	// JPEGQuality is AIPerf's JPEG quality.
	JPEGQuality = 85
)

// ImageGenerator produces synthetic images as data URIs. It is not safe
// for concurrent use.
type ImageGenerator struct {
	format             string
	w, wStd, h, hStd   int
	formatRNG, dimsRNG *rand.Rand
	noiseRNG           *rand.Rand
	pool               *sourcePool // nil for noise
}

// NewImageGenerator validates opts and, for a finite source, indexes its
// images.
func NewImageGenerator(opts ImageOptions, seed int64) (*ImageGenerator, error) {
	g := &ImageGenerator{format: strings.ToLower(opts.Format)}
	switch g.format {
	case "":
		g.format = ImageJPEG
	case ImagePNG, ImageJPEG, ImageRandom:
	default:
		return nil, fmt.Errorf("image format (--image-format) %q is not one of png, jpeg, random", opts.Format)
	}
	var err error
	if g.w, g.wStd, err = dimension("width", opts.WidthMean, opts.WidthStddev); err != nil {
		return nil, err
	}
	if g.h, g.hStd, err = dimension("height", opts.HeightMean, opts.HeightStddev); err != nil {
		return nil, err
	}

	sampling := strings.ToLower(opts.Sampling)
	switch sampling {
	case "":
		sampling = SamplingRandom
	case SamplingRandom, SamplingShuffle, SamplingSequential:
	default:
		return nil, fmt.Errorf("image source sampling (--image-source-sampling) %q is not one of %s, %s, %s",
			opts.Sampling, SamplingRandom, SamplingShuffle, SamplingSequential)
	}

	g.formatRNG = sample.NewStream(seed, "dataset.image.format")
	g.dimsRNG = sample.NewStream(seed, "dataset.image.dimensions")
	switch source := opts.Source; strings.ToLower(source) {
	case "", SourceNoise:
		if sampling != SamplingRandom {
			return nil, fmt.Errorf("image source sampling (--image-source-sampling) %s needs --image-source assets or a directory; noise has no finite source pool", sampling)
		}
		g.noiseRNG = sample.NewStream(seed, "dataset.image.noise")
	case SourceAssets:
		g.pool, err = assetPool(sampling, sample.NewStream(seed, "dataset.image.source"))
	default:
		g.pool, err = dirPool(source, sampling, sample.NewStream(seed, "dataset.image.source"))
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}

// dimension validates one side and truncates it as AIPerf's int() does.
func dimension(name string, mean, stddev float64) (int, int, error) {
	if mean < 0 {
		return 0, 0, fmt.Errorf("image %s mean (--image-%s-mean) must not be negative, got %g", name, name, mean)
	}
	if stddev < 0 {
		return 0, 0, fmt.Errorf("image %s stddev (--image-%s-stddev) must not be negative, got %g", name, name, stddev)
	}
	if int(mean) == 0 {
		return DefaultImageSize, int(stddev), nil
	}
	return int(mean), int(stddev), nil
}

// Next returns the next image as "data:image/png;base64,..." or
// "data:image/jpeg;base64,...". Format, then width, then height are drawn,
// as in AIPerf.
func (g *ImageGenerator) Next() (dataURI string, err error) {
	format := g.format
	if format == ImageRandom {
		format = [2]string{ImagePNG, ImageJPEG}[g.formatRNG.IntN(2)]
	}
	w := sample.PositiveNormalInt(g.dimsRNG, float64(g.w), float64(g.wStd))
	h := sample.PositiveNormalInt(g.dimsRNG, float64(g.h), float64(g.hStd))

	var img image.Image
	if g.pool == nil {
		img = g.noise(w, h)
	} else {
		src, err := g.pool.next()
		if err != nil {
			return "", err
		}
		img = resize(src, w, h)
	}
	return encodeImageURI(img, format)
}

// noise is an opaque image of uniform random RGB bytes.
func (g *ImageGenerator) noise(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var u uint64
	for i, n := 0, 0; i < len(img.Pix); i++ {
		if i%4 == 3 {
			img.Pix[i] = 0xFF
			continue
		}
		if n == 0 {
			u, n = g.noiseRNG.Uint64(), 8
		}
		img.Pix[i] = byte(u)
		u >>= 8
		n--
	}
	return img
}

// encodeImageURI encodes img as PNG (default compression, zlib level 6 as
// AIPerf's compress_level=6) or JPEG quality 85, as a data URI.
func encodeImageURI(img image.Image, format string) (string, error) {
	var buf bytes.Buffer
	var err error
	if format == ImagePNG {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, toRGB(img), &jpeg.Options{Quality: JPEGQuality})
	}
	if err != nil {
		return "", fmt.Errorf("encoding %dx%d %s image: %w", img.Bounds().Dx(), img.Bounds().Dy(), format, err)
	}
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// toRGB gives JPEG a colour image: AIPerf converts every non-RGB image
// (grey, palette, RGBA) to RGB before saving a JPEG, while image/jpeg would
// write a grey image as one channel.
func toRGB(img image.Image) image.Image {
	switch img.(type) {
	case *image.RGBA, *image.YCbCr:
		return img
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(x-b.Min.X, y-b.Min.Y, img.At(x, y))
		}
	}
	return out
}

// sourcePool is a finite set of source images and AIPerf's three ways of
// picking from it. Images that fail to decode are retired, as AIPerf does.
type sourcePool struct {
	where    string // for errors: the directory or "bundled assets"
	names    []string
	load     func(i int) (image.Image, error)
	sampling string
	rng      *rand.Rand

	available []int        // indexes still readable, in order
	retired   map[int]bool // indexes that failed to decode
	cycle     []int        // shuffle-cycle: what is left of this cycle
	seq       int          // sequential-cycle: next index
}

func assetPool(sampling string, rng *rand.Rand) (*sourcePool, error) {
	names := assetNames()
	decoded := make([]image.Image, len(names))
	p := newPool("bundled assets", names, sampling, rng)
	p.load = func(i int) (image.Image, error) {
		if decoded[i] == nil {
			b, err := bundledAssets.ReadFile(names[i])
			if err != nil {
				return nil, err
			}
			if decoded[i], _, err = image.Decode(bytes.NewReader(b)); err != nil {
				return nil, err
			}
		}
		return decoded[i], nil
	}
	return p, nil
}

// dirPool indexes the .png/.jpg/.jpeg files of dir (sorted by name); each
// is read and decoded when drawn, so large directories cost no memory up
// front.
func dirPool(dir, sampling string, rng *rand.Rand) (*sourcePool, error) {
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, rest)
		}
	}
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("image source directory (--image-source) %q does not exist", dir)
		}
		return nil, fmt.Errorf("image source directory (--image-source): %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("image source (--image-source) %q is not a directory (nor noise or assets)", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("image source directory (--image-source): %w", err)
	}
	var names []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".png", ".jpg", ".jpeg":
			if !e.IsDir() {
				names = append(names, filepath.Join(dir, e.Name()))
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("image source directory (--image-source) %q has no .png, .jpg or .jpeg files", dir)
	}
	sort.Strings(names)
	p := newPool(dir, names, sampling, rng)
	p.load = func(i int) (image.Image, error) {
		f, err := os.Open(names[i])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		img, _, err := image.Decode(f)
		return img, err
	}
	return p, nil
}

func newPool(where string, names []string, sampling string, rng *rand.Rand) *sourcePool {
	p := &sourcePool{where: where, names: names, sampling: sampling, rng: rng, retired: map[int]bool{}}
	for i := range names {
		p.available = append(p.available, i)
	}
	return p
}

// next decodes the next drawn source image, retiring unreadable ones.
func (p *sourcePool) next() (image.Image, error) {
	var errs []error
	for len(p.available) > 0 {
		i := p.pick()
		img, err := p.load(i)
		if err == nil {
			return img, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", p.names[i], err))
		p.retire(i)
	}
	return nil, fmt.Errorf("no readable source images left in %s: %w", p.where, errors.Join(errs...))
}

func (p *sourcePool) pick() int {
	switch p.sampling {
	case SamplingShuffle:
		if len(p.cycle) == 0 {
			p.cycle = append(p.cycle[:0], p.available...)
			p.rng.Shuffle(len(p.cycle), func(a, b int) { p.cycle[a], p.cycle[b] = p.cycle[b], p.cycle[a] })
		}
		i := p.cycle[len(p.cycle)-1]
		p.cycle = p.cycle[:len(p.cycle)-1]
		return i
	case SamplingSequential:
		for {
			i := p.seq
			p.seq = (p.seq + 1) % len(p.names)
			if !p.retired[i] {
				return i
			}
		}
	}
	return p.available[p.rng.IntN(len(p.available))]
}

func (p *sourcePool) retire(i int) {
	p.retired[i] = true
	keep := func(s []int) []int {
		out := s[:0]
		for _, j := range s {
			if j != i {
				out = append(out, j)
			}
		}
		return out
	}
	p.available = keep(p.available)
	p.cycle = keep(p.cycle)
}
