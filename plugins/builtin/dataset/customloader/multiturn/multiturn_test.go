package multiturn

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func writeFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chats.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, lines ...string) ([]sdk.Conversation, error) {
	t.Helper()
	return New().Load(context.Background(), writeFile(t, lines...), sdk.DatasetOptions{RandomSeed: 5})
}

func TestLoadConversations(t *testing.T) {
	convs, err := load(t,
		`{"session_id": "s1", "turns": [{"role": "system", "text": "Be brief."}, {"text": "Hello", "delay": 0}, {"text": "Why?", "delay": 1000, "output_length": 20}]}`,
		`{"turns": [{"timestamp": 0, "text": "q1"}, {"timestamp": 1500, "texts": ["q2a", "q2b"], "extra": {"seed": 1}}]}`,
		`{"session_id": "s1", "turns": [{"text": "More", "delay": 300}]}`,
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].SessionID != "s1" {
		t.Fatalf("conversations = %+v", convs)
	}
	if !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(convs[1].SessionID) {
		t.Errorf("unnamed session id %q, want a UUID", convs[1].SessionID)
	}
	s1 := convs[0].Turns
	var texts []string
	for _, tr := range s1 {
		texts = append(texts, tr.Texts[0])
	}
	if strings.Join(texts, "|") != "Be brief.|Hello|Why?|More" {
		t.Errorf("s1 texts = %v (same session_id lines merge in file order)", texts)
	}
	if s1[0].Role != "system" || *s1[2].DelayMs != 1000 || *s1[2].MaxTokens != 20 || *s1[3].DelayMs != 300 {
		t.Errorf("s1 fields not carried: %+v", s1)
	}
	s2 := convs[1].Turns
	if len(s2) != 2 || *s2[1].TimestampMs != 1500 || strings.Join(s2[1].Texts, ",") != "q2a,q2b" || s2[1].Extra["seed"] != 1.0 {
		t.Errorf("second conversation = %+v", s2)
	}
	if !convs[1].IsTrace() || convs[0].IsTrace() {
		t.Error("IsTrace must follow the first turn's timestamp")
	}
}

func TestErrorsNameLineTurnAndField(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"session_id": "x", "turns": []}`, "turns: at least one turn is required"},
		{`{"session_id": "x"}`, "turns: at least one turn is required"},
		{`{"turns": [{"text": "a"}, {"text": "b", "texts": ["c"]}]}`, "turns[1]: text and texts cannot be set together"},
		{`{"turns": [{"text": "a", "timestamp": 1, "delay": 2}]}`, "turns[0]: timestamp and delay cannot be set together"},
		{`{"turns": [{"text": "a"}, {"text": "b"}, {"images": ["x.png"]}]}`, `turns[2]: images: image file "x.png" does not exist`},
		{`{"turns": [{"text": "a", "output_length": -4}]}`, "turns[0]: output_length: -4"},
		{`{"turns": [{"delay": 5}]}`, `turns[0]: no input`},
		{`{"turns": {"text": "a"}}`, "turns: got JSON object"},
		{`{"turns": [{"text": 1}]}`, "turns.text: got JSON number, want string"},
	}
	for _, c := range cases {
		_, err := load(t, `{"turns": [{"text": "ok"}]}`, ``, c.line)
		if err == nil {
			t.Errorf("%s: no error", c.line)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "chats.jsonl:3: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n  got  %q\n  want chats.jsonl:3: ... %q", c.line, msg, c.want)
		}
	}
}

func TestCanLoad(t *testing.T) {
	cases := []struct {
		first string
		want  bool
	}{
		{`{"session_id": "s", "turns": [{"text": "x"}]}`, true},
		{`{"turns": []}`, true},
		{`{"type": "multi_turn"}`, true},
		{`{"type": "single_turn", "turns": []}`, false},
		{`{"turns": "nope"}`, false},
		{`{"text": "hi"}`, false},
		{`{"input_length": 3}`, false},
	}
	for _, c := range cases {
		if got := New().CanLoad(writeFile(t, c.first)); got != c.want {
			t.Errorf("CanLoad(%s) = %v, want %v", c.first, got, c.want)
		}
	}
}
