package media

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireFFmpeg returns the ffmpeg path, skipping the test without it
// unless AIPERF_REQUIRE_FFMPEG=1, which turns the skip into a failure.
func requireFFmpeg(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("ffmpeg")
	if err == nil {
		return bin
	}
	if os.Getenv("AIPERF_REQUIRE_FFMPEG") == "1" {
		t.Fatalf("ffmpeg is not on PATH and AIPERF_REQUIRE_FFMPEG=1: %v", err)
	}
	t.Skipf("ffmpeg is not on PATH (%v); set AIPERF_REQUIRE_FFMPEG=1 to fail instead", err)
	return ""
}

// probe runs ffprobe on data and returns its JSON streams and format, or
// nil when ffprobe is not installed.
func probe(t *testing.T, data []byte, ext string) *probeResult {
	t.Helper()
	bin, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Logf("ffprobe not on PATH; checking magic bytes only")
		return nil
	}
	path := filepath.Join(t.TempDir(), "media."+ext)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-v", "error", "-count_frames", "-show_streams", "-show_format", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	var r probeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("ffprobe output: %v\n%s", err, out)
	}
	if len(r.Streams) != 1 {
		t.Fatalf("ffprobe found %d streams, want 1: %s", len(r.Streams), out)
	}
	return &r
}

type probeResult struct {
	Streams []struct {
		CodecName     string `json:"codec_name"`
		Width         int    `json:"width"`
		Height        int    `json:"height"`
		PixFmt        string `json:"pix_fmt"`
		SampleRate    string `json:"sample_rate"`
		Channels      int    `json:"channels"`
		NbReadFrames  string `json:"nb_read_frames"`
		BitsPerSample int    `json:"bits_per_sample"`
	} `json:"streams"`
	Format struct {
		FormatName string `json:"format_name"`
		Duration   string `json:"duration"`
	} `json:"format"`
}

// splitDataURI returns the media type and decoded bytes of a base64 data URI.
func splitDataURI(t *testing.T, uri string) (string, []byte) {
	t.Helper()
	head, b64, ok := strings.Cut(uri, ";base64,")
	mime, ok2 := strings.CutPrefix(head, "data:")
	if !ok || !ok2 {
		t.Fatalf("not a base64 data URI: %.60q", uri)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("data URI base64: %v", err)
	}
	return mime, b
}

// splitAudio returns the format and decoded bytes of "fmt,<base64>".
func splitAudio(t *testing.T, s string) (string, []byte) {
	t.Helper()
	format, b64, ok := strings.Cut(s, ",")
	if !ok {
		t.Fatalf("not <format>,<base64>: %.60q", s)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("audio base64: %v", err)
	}
	return format, b
}

// mustRead reads a testdata file.
func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hasMagic(b []byte, magic string) bool { return bytes.HasPrefix(b, []byte(magic)) }
