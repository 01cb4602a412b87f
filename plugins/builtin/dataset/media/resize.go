package media

import (
	"image"
	"image/draw"
	"math"
)

// resize scales src to w×h with a separable bicubic filter (a = -0.5)
// whose support widens when shrinking, like PIL's Image.resize default
// that AIPerf uses. Colours are resampled premultiplied.
func resize(src image.Image, w, h int) *image.RGBA {
	b := src.Bounds()
	in, ok := src.(*image.RGBA)
	if !ok || b.Min != (image.Point{}) {
		in = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(in, in.Bounds(), src, b.Min, draw.Src)
	}
	sw, sh := b.Dx(), b.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	if sw == 0 || sh == 0 {
		return out
	}

	// Horizontal pass: sh rows of w pixels.
	xw := filterWeights(sw, w)
	tmp := make([]float32, sh*w*4)
	for y := range sh {
		row := in.Pix[y*in.Stride:]
		for x, f := range xw {
			var acc [4]float32
			for k, wt := range f.w {
				p := row[(f.start+k)*4:]
				acc[0] += wt * float32(p[0])
				acc[1] += wt * float32(p[1])
				acc[2] += wt * float32(p[2])
				acc[3] += wt * float32(p[3])
			}
			copy(tmp[(y*w+x)*4:], acc[:])
		}
	}
	// Vertical pass.
	yw := filterWeights(sh, h)
	for y, f := range yw {
		dst := out.Pix[y*out.Stride:]
		for x := range w {
			var acc [4]float32
			for k, wt := range f.w {
				p := tmp[((f.start+k)*w+x)*4:]
				acc[0] += wt * p[0]
				acc[1] += wt * p[1]
				acc[2] += wt * p[2]
				acc[3] += wt * p[3]
			}
			a := clamp8(acc[3])
			for c := range 3 {
				// Ringing may push a premultiplied channel above alpha.
				dst[x*4+c] = min(clamp8(acc[c]), a)
			}
			dst[x*4+3] = a
		}
	}
	return out
}

// span is one output pixel's source window and normalised weights.
type span struct {
	start int
	w     []float32
}

// filterWeights maps in source pixels onto out output pixels.
func filterWeights(in, out int) []span {
	scale := float64(in) / float64(out)
	fscale := math.Max(scale, 1)
	support := 2 * fscale
	spans := make([]span, out)
	for i := range spans {
		center := (float64(i) + 0.5) * scale
		lo := max(0, int(math.Floor(center-support)))
		hi := min(in, int(math.Ceil(center+support)))
		ws := make([]float32, 0, hi-lo)
		var sum float64
		for j := lo; j < hi; j++ {
			wt := cubic((float64(j) + 0.5 - center) / fscale)
			ws = append(ws, float32(wt))
			sum += wt
		}
		if sum != 0 {
			for k := range ws {
				ws[k] = float32(float64(ws[k]) / sum)
			}
		}
		spans[i] = span{start: lo, w: ws}
	}
	return spans
}

// cubic is the Keys cubic kernel with a = -0.5 (PIL's BICUBIC).
func cubic(x float64) float64 {
	const a = -0.5
	x = math.Abs(x)
	switch {
	case x < 1:
		return ((a+2)*x-(a+3))*x*x + 1
	case x < 2:
		return (((x-5)*x+8)*x - 4) * a
	}
	return 0
}

func clamp8(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
