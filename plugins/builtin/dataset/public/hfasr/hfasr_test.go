package hfasr

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hubtest"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// The fixture's FLAC clips: 1 s at 16 kHz and 2.5 s at 8 kHz are kept, a
// 31 s clip and undecodable bytes are skipped. The WAV bytes are the ones
// AIPerf 0.13's HFASRDatasetLoader (soundfile) produces from the same
// rows, byte for byte.
func TestClipsBecomeWAV(t *testing.T) {
	hub := hubtest.New(t, "../testdata/hub")
	l := New()
	l.Hub = &hfhub.Options{Endpoint: hub.URL(), CacheDir: t.TempDir()}
	if err := sdk.ApplyConfig(l, "x", []byte(`{"hf_dataset_name": "openslr/librispeech_asr", "hf_split": "test", "hf_subset": "clean", "streaming": true, "audio_column": "audio", "max_conversations": 10}`)); err != nil {
		t.Fatal(err)
	}
	convs, err := l.LoadPublic(context.Background(), sdk.DatasetOptions{RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		dur    float64
		sha256 string
		size   int
	}{
		{1.0, "6a7ebc9b59ba4e44391f95cec70464118e680a649b9e4433ebe79fd195fdc5fb", 32044},
		{2.5, "9fd03753d0f3535ad347e6d4948ab479e2109165e663d2b9e662849a84aebdcb", 40044},
	}
	if len(convs) != len(want) {
		t.Fatalf("%d conversations, want %d", len(convs), len(want))
	}
	for i, w := range want {
		turn := convs[i].Turns[0]
		if turn.Texts[0] != Prompt || turn.AudioDurationS == nil || *turn.AudioDurationS != w.dur || len(turn.Audios) != 1 {
			t.Fatalf("conversation %d = %+v", i, turn)
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(turn.Audios[0], "wav,"))
		sum := sha256.Sum256(b)
		if err != nil || len(b) != w.size || hex.EncodeToString(sum[:]) != w.sha256 {
			t.Errorf("conversation %d: WAV of %d bytes, sha256 %x (%v); want AIPerf's %d bytes %s", i, len(b), sum, err, w.size, w.sha256)
		}
	}
}

func TestTurnRejectsWhatIsNotAClip(t *testing.T) {
	for _, v := range []any{nil, "x", map[string]any{"path": "a.flac"}, map[string]any{"bytes": []byte("RIFF....WAVEjunk")}} {
		if got := Turn(v); got != nil {
			t.Errorf("Turn(%v) = %+v, want nil", v, got)
		}
	}
}
