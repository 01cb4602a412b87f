package multiturn

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The capture chat_multi_turn (testdata/README.md): turns carry their own
// media, the image file encoded as a PNG data URI.
func TestLoadCapturedMultiTurnMedia(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "multi_turn.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	png, err := filepath.Abs(filepath.Join("..", "singleturn", "testdata", "media", "red8.png"))
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, string(bytes.ReplaceAll(bytes.TrimSpace(b), []byte("/tmp/issue10/media/red8.png"), []byte(png))))
	convs, err := New().Load(context.Background(), path, sdk.DatasetOptions{RandomSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || convs[0].SessionID != "s1" || len(convs[0].Turns) != 2 {
		t.Fatalf("conversations %+v", convs)
	}
	t0, t1 := convs[0].Turns[0], convs[0].Turns[1]
	if !reflect.DeepEqual(t0.Texts, []string{"First turn question?"}) || t0.Role != "user" || t0.Images != nil {
		t.Errorf("turn 0: %+v", t0)
	}
	if !reflect.DeepEqual(t1.Texts, []string{"Second turn follow-up?"}) || *t1.DelayMs != 10 ||
		len(t1.Images) != 1 || !strings.HasPrefix(t1.Images[0], "data:image/png;base64,iVBORw0KGgo") {
		t.Errorf("turn 1: texts %q, delay %v, images %.40q", t1.Texts, t1.DelayMs, t1.Images)
	}
}

// Named text groups and plural media work inside turns too; a media error
// names the line, the turn and the media file.
func TestTurnsWithGroupsAndMediaErrors(t *testing.T) {
	convs, err := load(t, `{"turns": [{"texts": [{"name": "query", "contents": ["q"]}], "audios": ["wav,AAAA"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	turn := convs[0].Turns[0]
	if !reflect.DeepEqual(turn.TextGroups, []sdk.TextGroup{{Name: "query", Contents: []string{"q"}}}) ||
		!reflect.DeepEqual(turn.Audios, []string{"wav,AAAA"}) {
		t.Errorf("turn %+v", turn)
	}
	_, err = load(t, `{"turns": [{"text": "a"}]}`, `{"turns": [{"text": "a"}, {"video": "clip.avi"}]}`)
	if err == nil || !strings.Contains(err.Error(), `chats.jsonl:2: turns[1]: video: video file "clip.avi": ".avi" is not one of the supported video formats`) {
		t.Errorf("err = %v", err)
	}
}
