package singleturn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func writeFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, lines ...string) ([]sdk.Conversation, error) {
	t.Helper()
	return New().Load(context.Background(), writeFile(t, lines...), sdk.DatasetOptions{RandomSeed: 5})
}

func TestLoadFields(t *testing.T) {
	convs, err := load(t,
		`{"text": "What is deep learning?"}`,
		`{"timestamp": 1000, "text": "Who are you?", "output_length": 128, "role": "user", "extra": {"top_k": 5}}`,
		`{"texts": ["a", "b"], "delay": 250}`,
		`{"texts": [{"name": "f1", "contents": ["x", "y"]}, {"name": "f2", "contents": ["z"]}]}`,
		`{"type": "single_turn", "text": "typed", "timestamp": 0, "delay": 0}`,
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 5 {
		t.Fatalf("got %d conversations, want 5 (one per line)", len(convs))
	}
	got := make([]sdk.Turn, len(convs))
	for i, c := range convs {
		if len(c.Turns) != 1 || c.SessionID == "" {
			t.Fatalf("line %d: %d turns, session %q", i+1, len(c.Turns), c.SessionID)
		}
		got[i] = c.Turns[0]
	}
	if got[0].Texts[0] != "What is deep learning?" || got[0].MaxTokens != nil || got[0].TimestampMs != nil {
		t.Errorf("line 1: %+v", got[0])
	}
	if *got[1].TimestampMs != 1000 || *got[1].MaxTokens != 128 || got[1].Role != "user" || got[1].Extra["top_k"] != 5.0 {
		t.Errorf("line 2: %+v", got[1])
	}
	if strings.Join(got[2].Texts, ",") != "a,b" || *got[2].DelayMs != 250 {
		t.Errorf("line 3: %+v", got[2])
	}
	wantGroups := []sdk.TextGroup{{Name: "f1", Contents: []string{"x", "y"}}, {Name: "f2", Contents: []string{"z"}}}
	if got[3].Texts != nil || !reflect.DeepEqual(got[3].TextGroups, wantGroups) {
		t.Errorf("line 4: texts %q, groups %+v; want no plain texts and groups %+v", got[3].Texts, got[3].TextGroups, wantGroups)
	}
	if got[4].Texts[0] != "typed" || *got[4].TimestampMs != 0 || *got[4].DelayMs != 0 {
		t.Errorf("line 5: %+v", got[4])
	}
}

func TestSessionIDsGroupLines(t *testing.T) {
	convs, err := load(t,
		`{"session_id": "a", "text": "a1"}`,
		`{"session_id": "b", "text": "b1"}`,
		`{"session_id": "a", "text": "a2", "delay": 100}`,
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].SessionID != "a" || convs[1].SessionID != "b" {
		t.Fatalf("sessions = %+v", convs)
	}
	if a := convs[0].Turns; len(a) != 2 || a[0].Texts[0] != "a1" || a[1].Texts[0] != "a2" || *a[1].DelayMs != 100 {
		t.Errorf("session a turns = %+v", a)
	}
}

func TestGeneratedSessionIDsAreSeeded(t *testing.T) {
	run := func(seed int64) string {
		convs, err := New().Load(context.Background(), writeFile(t, `{"text": "x"}`, `{"text": "y"}`), sdk.DatasetOptions{RandomSeed: seed})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(convs)
		return string(b)
	}
	if first, again, other := run(1), run(1), run(2); first != again || first == other {
		t.Error("generated session ids must be reproducible per seed and differ across seeds")
	}
}

func TestErrorsNameLineAndField(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"text": "a", "texts": ["b"]}`, "text and texts cannot be set together"},
		{`{"text": "a", "timestamp": 5, "delay": 3}`, "timestamp and delay cannot be set together"},
		{`{"text": "a", "output_length": 0}`, "output_length: 0, must be greater than 0"},
		{`{"text": "a", "image": "/p.png"}`, `image: image file "/p.png" does not exist`},
		{`{"texts": ["a"], "audios": ["wav,AAAA", "clip.flac"]}`, `audios: audio file "clip.flac": ".flac" is not one of the supported audio formats: .wav, .mp3`},
		{`{"video": "v.mp4"}`, `video: video file "v.mp4" does not exist`},
		{`{"image": "http://"}`, "image: valid URL must have both a scheme and netloc: http://"},
		{`{"image": "a.png", "images": ["b.png"]}`, "image and images cannot be set together"},
		{`{"audio": "a.wav", "audios": ["b.wav"]}`, "audio and audios cannot be set together"},
		{`{"video": "a.mp4", "videos": ["b.mp4"]}`, "video and videos cannot be set together"},
		{`{"images": ["data:image/png;base64,AA"], "image_uuids": ["u1"]}`, "image_uuids: image cache ids are not supported"},
		{`{"images": [{"name": "x", "contents": [1]}]}`, `images: want a list of strings or of {"name", "contents"} objects`},
		{`{"role": "user"}`, `no input: set at least one of text, texts, image, images, audio, audios, video, videos`},
		{`{"text": ""}`, `no input`},
		{`{"texts": [1, 2]}`, "texts: want a list of strings"},
		{`{"text": 3}`, "text: got JSON number, want string"},
		{`{"text": "a", "extra": [1]}`, "extra: got JSON array"},
		{`{"text": "a"`, "invalid JSON"},
	}
	for _, c := range cases {
		_, err := load(t, `{"text": "ok"}`, c.line)
		if err == nil {
			t.Errorf("%s: no error", c.line)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "data.jsonl:2: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n  got  %q\n  want data.jsonl:2: ... %q", c.line, msg, c.want)
		}
	}
}

func TestCanLoad(t *testing.T) {
	cases := []struct {
		first string
		want  bool
	}{
		{`{"text": "hi"}`, true},
		{`{"texts": ["a"], "timestamp": 3}`, true},
		{`{"image": "/a.png"}`, true},
		{`{"type": "single_turn", "foo": 1}`, true},
		{`{"type": "multi_turn", "text": "x"}`, false},
		{`{"session_id": "s", "turns": [{"text": "x"}]}`, false},
		{`{"input_length": 3, "hash_ids": [1]}`, false},
		{`"text"`, false},
	}
	for _, c := range cases {
		if got := New().CanLoad(writeFile(t, "", c.first)); got != c.want {
			t.Errorf("CanLoad(%s) = %v, want %v", c.first, got, c.want)
		}
	}
}
