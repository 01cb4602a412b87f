package media

import (
	"math"
	"strconv"
)

// The frame painters follow AIPerf's video.py (PIL ImageDraw) shape for
// shape; pixel edges differ slightly from PIL's rasteriser.

// canvas is one rgb24 frame.
type canvas struct {
	w, h int
	pix  []byte
}

type rgb [3]byte

// renderFrame paints frame n into buf (reused when large enough).
func (g *VideoGenerator) renderFrame(n int, buf []byte) []byte {
	w, h := g.opts.Width, g.opts.Height
	size := w * h * 3
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	c := canvas{w: w, h: h, pix: buf[:size]}
	switch g.opts.Synth {
	case SynthNoise:
		fillNoise(g.noise.Uint64, c.pix)
	case SynthGridClock:
		c.gridClock(n, g.frames)
	default:
		c.movingShapes(n, g.frames)
	}
	return c.pix
}

// fillNoise fills b with uniform random bytes.
func fillNoise(next func() uint64, b []byte) {
	for i := 0; i < len(b); i += 8 {
		u := next()
		for j := i; j < min(i+8, len(b)); j++ {
			b[j] = byte(u)
			u >>= 8
		}
	}
}

func (c canvas) fill(col rgb) {
	for i := 0; i < len(c.pix); i += 3 {
		copy(c.pix[i:i+3], col[:])
	}
}

func (c canvas) set(x, y int, col rgb) {
	if x >= 0 && y >= 0 && x < c.w && y < c.h {
		copy(c.pix[(y*c.w+x)*3:], col[:])
	}
}

// movingShapes: black background; a red circle (30) crossing left to
// right twice, a green square (25) falling twice, a blue circle (20)
// moving up-left 1.5 times; each wraps at the edges.
func (c canvas) movingShapes(n, total int) {
	c.fill(rgb{})
	w, h := float64(c.w), float64(c.h)
	t := float64(total)
	shapes := []struct {
		circle         bool
		col            rgb
		size           int
		x0, y0, dx, dy float64
	}{
		{true, rgb{255, 0, 0}, 30, 0, float64(c.h / 2), w / t * 2, 0},
		{false, rgb{0, 255, 0}, 25, float64(c.w / 2), 0, 0, h / t * 2},
		{true, rgb{0, 0, 255}, 20, w, h, -w / t * 1.5, -h / t * 1.5},
	}
	for _, s := range shapes {
		x := pyMod(s.x0+s.dx*float64(n), w)
		y := pyMod(s.y0+s.dy*float64(n), h)
		r := float64(s.size / 2)
		if s.circle {
			c.ellipse(x-r, y-r, x+r, y+r, s.col)
		} else {
			c.rect(x-r, y-r, x+r, y+r, s.col)
		}
	}
}

// gridClock: dark grey background, a 32-pixel grid, a clock face with
// hour and minute hands turning once per clip, and the frame number.
func (c canvas) gridClock(n, total int) {
	c.fill(rgb{32, 32, 32})
	grid := rgb{64, 64, 64}
	for x := 0; x < c.w; x += 32 {
		for y := range c.h {
			c.set(x, y, grid)
		}
	}
	for y := 0; y < c.h; y += 32 {
		for x := range c.w {
			c.set(x, y, grid)
		}
	}
	cx, cy := float64(c.w/2), float64(c.h/2)
	radius := float64(min(c.w, c.h) / 4)
	angle := float64(n) / float64(total) * 2 * math.Pi
	hour := angle / 12
	c.line(cx, cy, cx+radius*0.6*math.Cos(hour-math.Pi/2), cy+radius*0.6*math.Sin(hour-math.Pi/2), 3, rgb{255, 255, 0})
	c.line(cx, cy, cx+radius*0.9*math.Cos(angle-math.Pi/2), cy+radius*0.9*math.Sin(angle-math.Pi/2), 2, rgb{255, 255, 255})
	c.ring(cx, cy, radius, 2, rgb{128, 128, 128})
	c.ellipse(cx-3, cy-3, cx+3, cy+3, rgb{255, 0, 0})
	c.text(10, 10, "Frame "+strconv.Itoa(n), rgb{255, 255, 255})
}

// pyMod is Python's float %, whose result takes the divisor's sign.
func pyMod(a, m float64) float64 {
	r := math.Mod(a, m)
	if r < 0 {
		r += m
	}
	return r
}

// ellipse fills the ellipse inscribed in the inclusive box (x0,y0)-(x1,y1).
func (c canvas) ellipse(x0, y0, x1, y1 float64, col rgb) {
	cx, cy := (x0+x1+1)/2, (y0+y1+1)/2
	rx, ry := (x1-x0+1)/2, (y1-y0+1)/2
	for y := int(math.Floor(y0)); y <= int(math.Ceil(y1)); y++ {
		for x := int(math.Floor(x0)); x <= int(math.Ceil(x1)); x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			if dx*dx+dy*dy <= 1 {
				c.set(x, y, col)
			}
		}
	}
}

// rect fills the inclusive box (x0,y0)-(x1,y1).
func (c canvas) rect(x0, y0, x1, y1 float64, col rgb) {
	for y := int(math.Round(y0)); y <= int(math.Round(y1)); y++ {
		for x := int(math.Round(x0)); x <= int(math.Round(x1)); x++ {
			c.set(x, y, col)
		}
	}
}

// ring draws a circle outline of the given width inside radius r.
func (c canvas) ring(cx, cy, r, width float64, col rgb) {
	cx, cy = cx+0.5, cy+0.5
	for y := int(cy - r - 1); y <= int(cy+r+1); y++ {
		for x := int(cx - r - 1); x <= int(cx+r+1); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			if d <= r && d > r-width {
				c.set(x, y, col)
			}
		}
	}
}

// line draws a segment of the given width.
func (c canvas) line(x0, y0, x1, y1, width float64, col rgb) {
	half := width / 2
	minX, maxX := math.Min(x0, x1)-half, math.Max(x0, x1)+half
	minY, maxY := math.Min(y0, y1)-half, math.Max(y0, y1)+half
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	for y := int(math.Floor(minY)); y <= int(math.Ceil(maxY)); y++ {
		for x := int(math.Floor(minX)); x <= int(math.Ceil(maxX)); x++ {
			px, py := float64(x), float64(y)
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-x0)*dx+(py-y0)*dy)/l2))
			}
			if math.Hypot(px-x0-t*dx, py-y0-t*dy) <= half {
				c.set(x, y, col)
			}
		}
	}
}

// glyphs is a 5×7 bitmap font for the characters of "Frame <n>".
var glyphs = map[rune][7]string{
	'F': {"#####", "#....", "#....", "####.", "#....", "#....", "#...."},
	'r': {".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."},
	'a': {".....", ".....", ".###.", "....#", ".####", "#...#", ".####"},
	'm': {".....", ".....", "##.#.", "#.#.#", "#.#.#", "#.#.#", "#.#.#"},
	'e': {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."},
	'0': {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	'1': {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	'2': {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	'3': {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."},
	'4': {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	'5': {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	'6': {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	'7': {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	'8': {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	'9': {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
}

// text writes s with its top-left corner at (x, y), 6 pixels per character.
func (c canvas) text(x, y int, s string, col rgb) {
	for i, r := range []rune(s) {
		g, ok := glyphs[r]
		if !ok {
			continue // space
		}
		for row, bits := range g {
			for k, b := range bits {
				if b == '#' {
					c.set(x+i*6+k, y+row, col)
				}
			}
		}
	}
}
