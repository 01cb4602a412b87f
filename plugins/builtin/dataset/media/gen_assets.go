//go:build ignore

// gen_assets draws the four bundled source images in assets/ (the
// "--image-source assets" pool). It was run once and its output committed;
// nothing runs it at build time. Re-run with: go run gen_assets.go
package main

import (
	"image"
	"image/color"
	"image/jpeg"
	"log"
	"math"
	"os"
	"path/filepath"
)

func main() {
	images := map[string]*image.RGBA{
		"checker_256.jpg": draw(256, 256, checker),
		"rings_288.jpg":   draw(288, 216, rings),
		"stripes_240.jpg": draw(240, 320, stripes),
		"sunset_320.jpg":  draw(320, 240, sunset),
	}
	for name, img := range images {
		f, err := os.Create(filepath.Join("assets", name))
		if err != nil {
			log.Fatal(err)
		}
		if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 85}); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}

func draw(w, h int, px func(x, y, w, h float64) color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, px(float64(x), float64(y), float64(w), float64(h)))
		}
	}
	return img
}

func rgb(r, g, b float64) color.RGBA {
	c := func(v float64) uint8 { return uint8(math.Max(0, math.Min(255, v))) }
	return color.RGBA{c(r), c(g), c(b), 255}
}

// checker: a tinted checkerboard with a soft vignette.
func checker(x, y, w, h float64) color.RGBA {
	v := 1 - 0.5*math.Hypot(x/w-0.5, y/h-0.5)
	if (int(x)/32+int(y)/32)%2 == 0 {
		return rgb(230*v, 220*v, 180*v)
	}
	return rgb(40*v, 90*v, 140*v)
}

// rings: concentric rainbow rings.
func rings(x, y, w, h float64) color.RGBA {
	d := math.Hypot(x-w/2, y-h/2) / 12
	return rgb(128+127*math.Sin(d), 128+127*math.Sin(d+2.1), 128+127*math.Sin(d+4.2))
}

// stripes: diagonal stripes over a vertical gradient.
func stripes(x, y, w, h float64) color.RGBA {
	t := y / h
	if int(x+y)/20%2 == 0 {
		return rgb(200-120*t, 60+100*t, 90)
	}
	return rgb(30, 40+60*t, 70+150*t)
}

// sunset: a sky gradient, a sun and dark hills.
func sunset(x, y, w, h float64) color.RGBA {
	if y > h*0.7+15*math.Sin(x/25) {
		return rgb(30, 50+20*math.Sin(x/9), 35)
	}
	if math.Hypot(x-w*0.65, y-h*0.45) < 35 {
		return rgb(255, 220, 90)
	}
	t := y / h
	return rgb(250-60*t, 120+40*t, 180-60*t)
}
