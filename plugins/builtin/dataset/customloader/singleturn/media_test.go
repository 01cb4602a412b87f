package singleturn

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	_ "image/jpeg" // decoding the encoded JPEG
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// fixture copies a captured dataset (testdata/README.md) with its media
// paths pointing at testdata/media.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	media, err := filepath.Abs(filepath.Join("testdata", "media"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(out, bytes.ReplaceAll(b, []byte("/tmp/issue10/media"), []byte(media)), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeURI(t *testing.T, uri, prefix string) []byte {
	t.Helper()
	data, ok := strings.CutPrefix(uri, prefix)
	if !ok {
		t.Fatalf("%.40q does not start with %q", uri, prefix)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testdataFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "media", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The capture chat_single_turn_media: texts, images (a PNG and a JPEG file
// re-encoded, a URL and a data URI unchanged, in order), the WAV and WebM
// files verbatim, output_length and extra.
func TestLoadCapturedMedia(t *testing.T) {
	convs, err := New().Load(context.Background(), fixture(t, "single_turn_media.jsonl"), sdk.DatasetOptions{RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || len(convs[0].Turns) != 1 || len(convs[1].Turns) != 1 {
		t.Fatalf("got %d conversations, want 2 of one turn", len(convs))
	}
	first, second := convs[0].Turns[0], convs[1].Turns[0]

	if !reflect.DeepEqual(first.Texts, []string{"Describe the red image."}) || len(first.Images) != 1 ||
		first.Audios != nil || first.Videos != nil {
		t.Fatalf("line 1: %+v", first)
	}
	// PNG re-encoded as PNG: the same pixels as the file.
	want, err := png.Decode(bytes.NewReader(testdataFile(t, "red8.png")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(decodeURI(t, first.Images[0], "data:image/png;base64,")))
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != want.Bounds() || !samePixels(got, want) {
		t.Error("line 1: the re-encoded PNG has other pixels than red8.png")
	}

	if !reflect.DeepEqual(second.Texts, []string{"Compare these.", "Second text part."}) || len(second.Images) != 3 {
		t.Fatalf("line 2: texts %q, %d images", second.Texts, len(second.Images))
	}
	jpg, format, err := image.Decode(bytes.NewReader(decodeURI(t, second.Images[0], "data:image/jpeg;base64,")))
	if err != nil || format != "jpeg" || jpg.Bounds().Dx() != 8 || jpg.Bounds().Dy() != 8 {
		t.Errorf("line 2 image 1: %s %v (%v), want an 8x8 jpeg", format, jpg.Bounds(), err)
	}
	const dataURI = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	if second.Images[1] != "https://example.com/cat.png" || second.Images[2] != dataURI {
		t.Errorf("line 2: the URL and the data URI must pass through unchanged: %.60q", second.Images[1:])
	}
	wav := "wav," + base64.StdEncoding.EncodeToString(testdataFile(t, "tone.wav"))
	webm := "data:video/webm;base64," + base64.StdEncoding.EncodeToString(testdataFile(t, "tiny.webm"))
	if !reflect.DeepEqual(second.Audios, []string{wav}) || !reflect.DeepEqual(second.Videos, []string{webm}) {
		t.Error("line 2: the WAV and WebM files must be sent verbatim")
	}
	// AIPerf's file loaders report no audio duration.
	if second.AudioDurationS != nil {
		t.Errorf("line 2: audio duration %v, want none", *second.AudioDurationS)
	}
	if second.MaxTokens == nil || *second.MaxTokens != 7 || second.Extra["temperature"] != 0.1 {
		t.Errorf("line 2: max tokens %v, extra %v", second.MaxTokens, second.Extra)
	}
}

func samePixels(a, b image.Image) bool {
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

// The capture rankings_file: named text groups reach the turn by name (the
// rankings endpoints route "query" and "passages").
func TestLoadCapturedRankings(t *testing.T) {
	convs, err := New().Load(context.Background(), fixture(t, "rankings_file.jsonl"), sdk.DatasetOptions{RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || len(convs[0].Turns) != 1 {
		t.Fatalf("conversations %+v", convs)
	}
	turn := convs[0].Turns[0]
	want := []sdk.TextGroup{
		{Name: "query", Contents: []string{"what is a llama?"}},
		{Name: "passages", Contents: []string{"A llama is a camelid.", "Paris is in France.", "Llamas live in the Andes."}},
	}
	if turn.Texts != nil || !reflect.DeepEqual(turn.TextGroups, want) {
		t.Errorf("texts %q, groups %+v; want %+v", turn.Texts, turn.TextGroups, want)
	}
}

// Plural fields: named media objects are flattened and encoded in order;
// unnamed and "text" groups are plain texts; groups of one name merge.
func TestLoadPluralForms(t *testing.T) {
	wav := filepath.Join("testdata", "media", "tone.wav")
	convs, err := load(t,
		`{"texts": [{"name": "", "contents": ["a"]}, {"name": "query", "contents": ["q"]}, {"name": "text", "contents": ["b", ""]}, {"name": "query", "contents": ["q2"]}]}`,
		`{"audios": [{"name": "clips", "contents": ["`+wav+`", "mp3,AAAA"]}, {"name": "more", "contents": ["https://h/x.wav"]}]}`,
		`{"images": ["data:image/png;base64,AA"], "video": "https://h/v.mp4"}`,
	)
	if err != nil {
		t.Fatal(err)
	}
	t0, t1, t2 := convs[0].Turns[0], convs[1].Turns[0], convs[2].Turns[0]
	if !reflect.DeepEqual(t0.Texts, []string{"a", "b"}) ||
		!reflect.DeepEqual(t0.TextGroups, []sdk.TextGroup{{Name: "query", Contents: []string{"q", "q2"}}}) {
		t.Errorf("line 1: texts %q, groups %+v", t0.Texts, t0.TextGroups)
	}
	wantAudio := []string{"wav," + base64.StdEncoding.EncodeToString(testdataFile(t, "tone.wav")), "mp3,AAAA", "https://h/x.wav"}
	if !reflect.DeepEqual(t1.Audios, wantAudio) || t1.Texts != nil {
		t.Errorf("line 2: audios %.50q, texts %q", t1.Audios, t1.Texts)
	}
	if !reflect.DeepEqual(t2.Images, []string{"data:image/png;base64,AA"}) || !reflect.DeepEqual(t2.Videos, []string{"https://h/v.mp4"}) {
		t.Errorf("line 3: images %q, videos %q", t2.Images, t2.Videos)
	}
}

// A media error names the dataset file, its line, the field and the media
// file.
func TestMediaErrorNamesFileLineAndMedia(t *testing.T) {
	_, err := load(t, `{"text": "ok"}`, `{"text": "x", "images": ["testdata/media/red8.png", "testdata/media/tone.wav"]}`)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"data.jsonl:2: ", "images: ", `"testdata/media/tone.wav"`, "not a PNG or JPEG image"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
