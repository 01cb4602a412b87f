package openai

import (
	"encoding/json"
	"testing"
)

// NonEmptyString agrees with decoding the value with encoding/json.
func TestNonEmptyString(t *testing.T) {
	cases := []struct {
		in       string
		want, ok bool
	}{
		{`""`, false, true},
		{`null`, false, true},
		{`"x"`, true, true},
		{`"\n"`, true, true},
		{`"\u0000"`, true, true},
		{`"\ud83c\udfad"`, true, true},
		{"\"\xff\"", true, true}, // invalid UTF-8 decodes to U+FFFD
		{`"\q"`, false, false},   // bad escape: encoding/json refuses it
		{`"\u12"`, false, false},
		{`5`, false, false},
		{`"open`, false, false},
		{"\"ctl\x01\"", false, false},
	}
	for _, c := range cases {
		s := NewScanner([]byte(c.in))
		got := s.NonEmptyString()
		ok := s.End()
		if got != c.want || ok != c.ok {
			t.Errorf("NonEmptyString(%s) = %v, ok %v; want %v, ok %v", c.in, got, ok, c.want, c.ok)
		}
		if c.ok {
			var v *string
			if err := json.Unmarshal([]byte(c.in), &v); err != nil {
				t.Fatalf("%s: %v", c.in, err)
			}
			if (v != nil && *v != "") != c.want {
				t.Errorf("%s: encoding/json decodes %q", c.in, *v)
			}
		}
	}
}
