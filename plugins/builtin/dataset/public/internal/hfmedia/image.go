// Package hfmedia turns the media values of Hugging Face dataset rows into
// what a turn carries, as AIPerf's BaseHFDatasetLoader does: images
// re-encoded to JPEG data URIs, video URLs passed through and video bytes
// wrapped in data URIs, and audio decoded and re-encoded as 16-bit WAV
// ("wav,<base64>").
//
// In a dataset's Parquet files an image or an audio clip is a struct
// {"bytes": <encoded file>, "path": <original name>} (AIPerf reads the same
// values with decode=False or decodes them with PIL, which comes to the
// same); a bare binary value is taken as the bytes.
package hfmedia

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	_ "image/gif" // PIL opens GIFs too
	"image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
)

// JPEGQuality is AIPerf's (dataset/utils.py encode_image: quality=85).
const JPEGQuality = 85

// Bytes returns the encoded bytes of a media value: the "bytes" of an HF
// {bytes, path} struct, or a bare binary value. ok is false for anything
// else (a path-only struct, a number, nil).
func Bytes(v any) (b []byte, path string, ok bool) {
	switch x := v.(type) {
	case []byte:
		return x, "", len(x) > 0
	case map[string]any:
		p, _ := x["path"].(string)
		switch raw := x["bytes"].(type) {
		case []byte:
			return raw, p, len(raw) > 0
		case string:
			return []byte(raw), p, raw != ""
		}
		return nil, p, false
	}
	return nil, "", false
}

// Images is AIPerf's _extract_images: the first image of value (a single
// value or a list) that decodes, re-encoded as a JPEG data URI; nil when
// none does. Images that fail to decode are skipped, as AIPerf skips what
// PIL cannot open.
func Images(value any) []string {
	items, isList := value.([]any)
	if !isList {
		items = []any{value}
	}
	for _, it := range items {
		b, _, ok := Bytes(it)
		if !ok {
			continue
		}
		if uri, err := JPEGDataURI(b); err == nil {
			return []string{uri}
		}
	}
	return nil
}

// JPEGDataURI decodes an encoded image (PNG, JPEG, GIF, WebP, BMP, TIFF)
// and re-encodes it as "data:image/jpeg;base64,...", converted to RGB
// first as PIL's convert("RGB") does.
func JPEGDataURI(b []byte) (string, error) {
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, toRGB(img), &jpeg.Options{Quality: JPEGQuality}); err != nil {
		return "", err
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// toRGB drops alpha the way PIL's convert("RGB") does (the colour channels
// are kept, not blended over black) and expands grey and palette images,
// which image/jpeg would otherwise write with one channel.
func toRGB(img image.Image) image.Image {
	switch img.(type) {
	case *image.YCbCr, *image.RGBA:
		if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
			return img
		}
	}
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			out.SetRGBA(x-b.Min.X, y-b.Min.Y, color.RGBA{R: c.R, G: c.G, B: c.B, A: 0xff})
		}
	}
	return out
}
