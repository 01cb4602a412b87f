package base

import (
	"strings"
	"testing"
)

// vLLM's filter as AIPerf applies it (is_valid_sequence's defaults).
func TestIsValidSequence(t *testing.T) {
	cases := []struct {
		prompt, output int
		skipMin, want  bool
	}{
		{4, 4, false, true},
		{3, 100, false, false},    // prompt too short
		{1024, 4, false, true},    // longest prompt
		{1025, 4, false, false},   // prompt too long
		{100, 3, false, false},    // completion too short
		{100, 3, true, true},      // ... unless the check is skipped
		{1024, 1024, false, true}, // 2048 in all
		{1000, 1049, false, false},
	}
	for _, c := range cases {
		if got := IsValidSequence(c.prompt, c.output, c.skipMin); got != c.want {
			t.Errorf("IsValidSequence(%d, %d, %t) = %t, want %t", c.prompt, c.output, c.skipMin, got, c.want)
		}
	}
}

func TestFormatTemplate(t *testing.T) {
	row := map[string]any{"code": "x = 1", "n": int64(3), "f": 0.5, "ok": true, "none": nil}
	got, err := FormatTemplate("{{literal}} {code}|{n}|{f}|{ok}|{none}", row)
	if err != nil || got != "{literal} x = 1|3|0.5|True|None" {
		t.Errorf("FormatTemplate = %q, %v", got, err)
	}
	for tmpl, want := range map[string]string{
		"{missing}": `no column "missing"`,
		"{code:>5}": "not a plain column name",
		"{code":     "never closed",
		"a } b":     "single '}'",
	} {
		if _, err := FormatTemplate(tmpl, row); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FormatTemplate(%q) = %v, want %q", tmpl, err, want)
		}
	}
}

func TestShareGPTPairs(t *testing.T) {
	m := func(from, text string) Message { return Message{From: from, Text: text} }
	pairs, roles := ShareGPTPairs([]Message{m("gpt", "hello"), m("human", "q1"), m("gpt", "a1"), m("system", "s"), m("human", "q2"), m("human", "q3"), m("gpt", "a3")})
	if !roles || len(pairs) != 2 || pairs[0] != (Pair{"q1", "a1"}) || pairs[1] != (Pair{"q3", "a3"}) {
		t.Errorf("pairs = %v, %t", pairs, roles)
	}
	if _, roles := ShareGPTPairs([]Message{m("user", "q"), m("assistant", "a")}); roles {
		t.Error("OpenAI roles counted as ShareGPT roles")
	}
	if got := FirstTwo([]Message{m("", "q"), m("", "")}); got != nil {
		t.Errorf("an empty completion made a pair: %v", got)
	}
}

func TestSettingsCap(t *testing.T) {
	s := Settings{MaxConversations: 5}
	if s.Cap() != 0 || s.Full(100) {
		t.Error("a dataset that is not streamed is never capped (AIPerf)")
	}
	s.Streaming = true
	if s.Cap() != 5 || s.Full(4) || !s.Full(5) {
		t.Error("a streamed dataset stops at its cap")
	}
	if (Settings{}).Split() != "train" || (Settings{}).Config() != "default" {
		t.Error("defaults")
	}
}
