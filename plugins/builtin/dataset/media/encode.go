package media

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
)

// The Encode functions turn a media string of a dataset file into what a
// turn carries, as AIPerf's MediaConversionMixin does: an already encoded
// value or a URL (scheme://host...) passes through untouched (URLs are not
// downloaded); anything else is a local file path.

// EncodeImage returns ref itself when it is a data URI or URL; a local PNG
// or JPEG file (detected by content, as PIL does) is decoded and
// re-encoded in its own format (PNG, or JPEG quality 85) into a data URI.
func EncodeImage(ref string) (string, error) {
	if strings.EqualFold(urlScheme(ref), "data") {
		return ref, nil
	}
	if ok, err := isURL(ref); ok || err != nil {
		return ref, err
	}
	b, err := readMedia("image", ref)
	if err != nil {
		return "", err
	}
	format := sniffImage(b)
	if format != "PNG" && format != "JPEG" {
		if format == "" {
			return "", fmt.Errorf("image file %q is not a PNG or JPEG image", ref)
		}
		return "", fmt.Errorf("image file %q is %s, not one of the supported image formats: png, jpeg", ref, format)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("image file %q: decoding %s: %w", ref, format, err)
	}
	uri, err := encodeImageURI(img, strings.ToLower(format))
	if err != nil {
		return "", fmt.Errorf("image file %q: %w", ref, err)
	}
	return uri, nil
}

// EncodeAudio returns ref itself when it is already "wav,<base64>" or
// "mp3,<base64>" (any case) or a URL; a local .wav or .mp3 file's bytes are
// base64-encoded verbatim as "<fmt>,<base64>". durationS is read from the
// WAV header or by walking the MP3 frames; it is 0 for URLs and for bytes
// that do not parse.
func EncodeAudio(ref string) (encoded string, durationS float64, err error) {
	if format, data, ok := strings.Cut(ref, ","); ok && urlScheme(ref) == "" {
		if f := strings.ToLower(format); f == AudioWAV || f == AudioMP3 {
			raw, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				return ref, 0, nil // passed through as AIPerf does; length unknown
			}
			return ref, audioDuration(f, raw), nil
		}
	}
	if ok, err := isURL(ref); ok || err != nil {
		return ref, 0, err
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(ref)), ".")
	if format != AudioWAV && format != AudioMP3 {
		return "", 0, fmt.Errorf("audio file %q: %q is not one of the supported audio formats: .wav, .mp3", ref, filepath.Ext(ref))
	}
	b, err := readMedia("audio", ref)
	if err != nil {
		return "", 0, err
	}
	return format + "," + base64.StdEncoding.EncodeToString(b), audioDuration(format, b), nil
}

// EncodeVideo returns ref itself when it is a data URI or URL; a local .mp4
// or .webm file's bytes are encoded verbatim as data:video/<fmt>;base64,...
func EncodeVideo(ref string) (string, error) {
	if strings.EqualFold(urlScheme(ref), "data") {
		return ref, nil
	}
	if ok, err := isURL(ref); ok || err != nil {
		return ref, err
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(ref)), ".")
	if format != VideoMP4 && format != VideoWebM {
		return "", fmt.Errorf("video file %q: %q is not one of the supported video formats: .mp4, .webm", ref, filepath.Ext(ref))
	}
	b, err := readMedia("video", ref)
	if err != nil {
		return "", err
	}
	return "data:video/" + format + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}

func audioDuration(format string, b []byte) float64 {
	if format == AudioMP3 {
		return mp3Duration(b)
	}
	info, err := parseWAV(b)
	if err != nil {
		return 0
	}
	return info.Duration()
}

// readMedia reads a media file, with errors that name it.
func readMedia(kind, path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s file %q does not exist", kind, path)
	case err != nil:
		return nil, fmt.Errorf("%s file %q: %w", kind, path, err)
	}
	return b, nil
}

// sniffImage names an image format from its magic bytes ("" if unknown).
func sniffImage(b []byte) string {
	magic := []struct{ prefix, name string }{
		{"\x89PNG\r\n\x1a\n", "PNG"},
		{"\xff\xd8\xff", "JPEG"},
		{"GIF8", "GIF"},
		{"BM", "BMP"},
		{"II*\x00", "TIFF"},
		{"MM\x00*", "TIFF"},
	}
	for _, m := range magic {
		if bytes.HasPrefix(b, []byte(m.prefix)) {
			return m.name
		}
	}
	if len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP" {
		return "WEBP"
	}
	return ""
}

// urlScheme is the scheme Python's urlparse finds: the text before the
// first ':' when it is a letter followed by letters, digits, '+', '-' or
// '.'; "" otherwise.
func urlScheme(s string) string {
	i := strings.IndexByte(s, ':')
	if i < 1 {
		return ""
	}
	for j, c := range s[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return s[:i]
}

// isURL is AIPerf's _is_url: true for scheme://host..., an error when a
// "://" string has only one of the two (file:///x, http://), false for
// anything without "://" (a path, even C:\ on Windows).
func isURL(s string) (bool, error) {
	if !strings.Contains(s, "://") {
		return false, nil
	}
	scheme := urlScheme(s)
	host := ""
	rest := s
	if scheme != "" {
		rest = s[len(scheme)+1:]
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		host = after
		if i := strings.IndexAny(host, "/?#"); i >= 0 {
			host = host[:i]
		}
	}
	switch {
	case scheme != "" && host != "":
		return true, nil
	case scheme != "" || host != "":
		return false, fmt.Errorf("valid URL must have both a scheme and netloc: %s", s)
	}
	return false, nil
}
