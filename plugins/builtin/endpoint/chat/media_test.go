package chat

import (
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/capturetest"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// turnFromBody rebuilds the dataset turn from a captured chat body: the
// strings go back into the turn's fields the way AIPerf's dataset holds
// them (audio as "<format>,<b64>").
func turnFromBody(t *testing.T, body string) sdk.Turn {
	t.Helper()
	var b struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		MaxCompletionTokens *int `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal([]byte(body), &b); err != nil {
		t.Fatal(err)
	}
	turn := sdk.Turn{MaxTokens: b.MaxCompletionTokens}
	content := b.Messages[len(b.Messages)-1].Content
	var s string
	if json.Unmarshal(content, &s) == nil {
		turn.Texts = []string{s}
		return turn
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(content, &raw); err != nil {
		t.Fatal(err)
	}
	for _, p := range raw {
		var typ string
		_ = json.Unmarshal(p["type"], &typ)
		switch typ {
		case "text":
			var s string
			_ = json.Unmarshal(p["text"], &s)
			turn.Texts = append(turn.Texts, s)
		case "image_url", "video_url":
			var u struct{ URL string }
			if err := json.Unmarshal(p[typ], &u); err != nil {
				t.Fatal(err)
			}
			if typ == "image_url" {
				turn.Images = append(turn.Images, u.URL)
			} else {
				turn.Videos = append(turn.Videos, u.URL)
			}
		case "input_audio":
			var a struct{ Data, Format string }
			if err := json.Unmarshal(p[typ], &a); err != nil {
				t.Fatal(err)
			}
			turn.Audios = append(turn.Audios, a.Format+","+a.Data)
		default:
			t.Fatalf("unexpected part type %q", typ)
		}
	}
	return turn
}

// Bodies AIPerf sent for synthetic and file media, rebuilt byte for byte.
func TestFormatPayloadMediaCaptures(t *testing.T) {
	cases := []struct {
		capture string
		extra   map[string]any // the dataset's per-turn "extra"
		parts   []string       // part types the first body must carry, in order
	}{
		{capture: "chat_mm_image_audio", parts: []string{"text", "image_url", "input_audio"}},
		{capture: "chat_mm_audio_mp3", parts: []string{"text", "input_audio"}},
		{capture: "chat_batch_text2", parts: []string{"text", "text"}},
		{capture: "chat_video", parts: []string{"text", "video_url"}},
		{capture: "chat_image_format_random", parts: []string{"text", "image_url", "image_url", "image_url"}},
		{capture: "chat_mm_assets_jpeg", parts: []string{"text", "image_url", "image_url"}},
		// _inputs/datasets/single_turn_media.jsonl: image, then texts,
		// three images (file, URL, data URI), audio and video files.
		{capture: "chat_single_turn_media", extra: map[string]any{"temperature": 0.1}, parts: []string{"text", "image_url"}},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			for i, want := range capturetest.Bodies(t, c.capture) {
				turn := turnFromBody(t, want)
				if i == 1 && c.capture == "chat_single_turn_media" {
					turn.Extra = c.extra
				}
				got, err := New().FormatPayload(sdk.RequestInfo{Model: "mock-model", Turn: turn})
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Errorf("body %d differs:\ngot  %.400s\nwant %.400s", i, got, want)
				}
				if i == 0 {
					if types := partTypes(t, got); strings.Join(types, ",") != strings.Join(c.parts, ",") {
						t.Errorf("part types %v, want %v", types, c.parts)
					}
				}
			}
		})
	}
}

func partTypes(t *testing.T, body []byte) []string {
	t.Helper()
	var b struct {
		Messages []struct {
			Content []struct{ Type string } `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, p := range b.Messages[len(b.Messages)-1].Content {
		types = append(types, p.Type)
	}
	return types
}

func TestFormatPayloadContentParts(t *testing.T) {
	const prefix = `{"messages":[{"role":"user","content":`
	const suffix = `}],"model":"m","stream":false}`
	cases := []struct {
		name string
		turn sdk.Turn
		want string // the content value
	}{
		{name: "image only", turn: sdk.Turn{Images: []string{"https://x/cat.png"}},
			want: `[{"type":"image_url","image_url":{"url":"https://x/cat.png"}}]`},
		{name: "empty media entry still forces parts", turn: sdk.Turn{Texts: []string{"a"}, Images: []string{""}},
			want: `[{"type":"text","text":"a"}]`},
		{name: "empty text skipped among media", turn: sdk.Turn{Texts: []string{"", "b"}, Videos: []string{"data:video/mp4;base64,AA=="}},
			want: `[{"type":"text","text":"b"},{"type":"video_url","video_url":{"url":"data:video/mp4;base64,AA=="}}]`},
		{name: "only empty media degrades to empty string", turn: sdk.Turn{Images: []string{""}, Audios: []string{""}},
			want: `""`},
		{name: "order is texts images audios videos whatever the field order",
			turn: sdk.Turn{Videos: []string{"v"}, Audios: []string{"wav,QQ=="}, Images: []string{"i"}, Texts: []string{"t"}},
			want: `[{"type":"text","text":"t"},{"type":"image_url","image_url":{"url":"i"}},{"type":"input_audio","input_audio":{"data":"QQ==","format":"wav"}},{"type":"video_url","video_url":{"url":"v"}}]`},
		{name: "audio data URI", turn: sdk.Turn{Audios: []string{"data:audio/mp3;base64,SUQz"}},
			want: `[{"type":"input_audio","input_audio":{"data":"SUQz","format":"mp3"}}]`},
		{name: "audio data URI without format defaults to wav", turn: sdk.Turn{Audios: []string{"data:audio/;base64,UklG"}},
			want: `[{"type":"input_audio","input_audio":{"data":"UklG","format":"wav"}}]`},
		{name: "audio splits at the first comma", turn: sdk.Turn{Audios: []string{"flac,a,b"}},
			want: `[{"type":"input_audio","input_audio":{"data":"a,b","format":"flac"}}]`},
		{name: "URL not HTML-escaped", turn: sdk.Turn{Images: []string{"https://x/?a=1&b=<2>"}},
			want: `[{"type":"image_url","image_url":{"url":"https://x/?a=1&b=<2>"}}]`},
		{name: "single group text is a bare string", turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q"}}}},
			want: `"q"`},
		{name: "texts then groups as parts", turn: sdk.Turn{Texts: []string{"a"},
			TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q"}}, {Name: "passages", Contents: []string{"p1", "", "p2"}}}},
			want: `[{"type":"text","text":"a"},{"type":"text","text":"q"},{"type":"text","text":"p1"},{"type":"text","text":"p2"}]`},
		{name: "two groups of one text are parts", turn: sdk.Turn{TextGroups: []sdk.TextGroup{{Name: "a", Contents: []string{"x"}}, {Name: "b"}}},
			want: `[{"type":"text","text":"x"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: c.turn})
			if err != nil {
				t.Fatal(err)
			}
			if want := prefix + c.want + suffix; string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// Media belong to the new turn only; history replays text.
func TestFormatPayloadMediaWithHistory(t *testing.T) {
	got, err := New().FormatPayload(sdk.RequestInfo{Model: "m",
		History: []sdk.HistoryEntry{{Role: "user", Text: "hi"}, {Role: "assistant", Text: "yo"}},
		Turn:    sdk.Turn{Texts: []string{"look"}, Images: []string{"u"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"},{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"u"}}]}],"model":"m","stream":false}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestFormatPayloadRejectsAudioWithoutFormat(t *testing.T) {
	clip := strings.Repeat("UklGR", 20)
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, Audios: []string{"", clip}}})
	if err == nil {
		t.Fatal("audio without a format: no error")
	}
	for _, want := range []string{"chat: format payload: audio 1:", "'format,b64_audio'", "length=100", `"` + clip[:40] + `"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	_, err = Format("chat_embeddings", sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Audios: []string{"x"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "chat_embeddings: format payload: ") {
		t.Errorf("Format error = %v, want it prefixed with the endpoint name", err)
	}
}
