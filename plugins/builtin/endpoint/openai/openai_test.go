package openai

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// stdJSON is what encoding/json writes without HTML escaping.
func stdJSON(t *testing.T, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimRight(buf.String(), "\n")
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		"", "plain", `quote " and \ backslash`, "tab\tnl\ncr\r", "\b\f\x00\x01\x1f\x7f",
		"<html> & </html>", "naïve café 日本語 🎭", "bad utf8 \xff\xfe end", "line\u2028sep\u2029para",
		"truncated \xe6\x97", strings.Repeat("From fairest creatures ", 50),
	}
	for _, s := range cases {
		got := string(AppendString(nil, s))
		if want := stdJSON(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestAppendValue(t *testing.T) {
	seven := 7
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, `null`},
		{"bool", true, `true`},
		{"int", 42, `42`},
		{"int64", int64(-3), `-3`},
		{"int ptr", &seven, `7`},
		{"nil int ptr", (*int)(nil), `null`},
		{"float", 0.7, `0.7`},
		{"float integral", 2.0, `2`},
		{"float tiny", 1e-9, `1e-9`},
		{"float huge", 1e21, `1e+21`},
		{"map sorted", map[string]any{"b": 1.0, "a": "x<y"}, `{"a":"x<y","b":1}`},
		{"list", []any{"a", 1.5, nil, false}, `["a",1.5,null,false]`},
		{"strings", []string{"p", "q"}, `["p","q"]`},
		{"raw", json.RawMessage(`{"k":[1,2]}`), `{"k":[1,2]}`},
		{"fallback struct", struct {
			A int `json:"a"`
		}{3}, `{"a":3}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AppendValue(nil, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestAppendValueRejectsNaN(t *testing.T) {
	o := NewObject(1)
	o.Set("temperature", math.NaN())
	_, err := o.AppendJSON(nil)
	if err == nil || !strings.Contains(err.Error(), `"temperature"`) {
		t.Fatalf("err = %v, want an error naming the field", err)
	}
}

func TestObjectKeepsOrderAndOverridesInPlace(t *testing.T) {
	o := NewObject(4)
	o.Set("messages", json.RawMessage(`[]`))
	o.Set("model", "m1")
	o.Set("stream", false)
	ApplyExtras(o, map[string]any{"model": "m2", "top_p": 0.9, "ignore_eos": true}, map[string]any{"top_p": 0.5})
	got, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages":[],"model":"m2","stream":false,"ignore_eos":true,"top_p":0.5}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if keys := strings.Join(o.Keys(), ","); keys != "messages,model,stream,ignore_eos,top_p" {
		t.Errorf("keys = %s", keys)
	}
}

func TestEnsureIncludeUsage(t *testing.T) {
	cases := []struct {
		name string
		so   any
		set  bool
		want string
	}{
		{"absent", nil, false, `{"stream":true,"stream_options":{"include_usage":true}}`},
		{"null", nil, true, `{"stream":true,"stream_options":{"include_usage":true}}`},
		{"other keys kept", map[string]any{"continuous_usage_stats": true}, true,
			`{"stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`},
		{"author false wins", map[string]any{"include_usage": false}, true,
			`{"stream":true,"stream_options":{"include_usage":false}}`},
		{"not an object", "weird", true, `{"stream":true,"stream_options":"weird"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewObject(2)
			o.Set("stream", true)
			if c.set {
				o.Set("stream_options", c.so)
			}
			EnsureIncludeUsage(o)
			got, err := o.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestEnsureIncludeUsageDoesNotMutateConfig(t *testing.T) {
	cfg := map[string]any{"continuous_usage_stats": true}
	o := NewObject(1)
	o.Set("stream_options", cfg)
	EnsureIncludeUsage(o)
	if _, leaked := cfg["include_usage"]; leaked {
		t.Fatal("EnsureIncludeUsage wrote into the caller's map")
	}
}

func TestTruthy(t *testing.T) {
	cases := []struct {
		in   any
		want bool
	}{
		{nil, false}, {true, true}, {false, false}, {"", false}, {"false", true},
		{0.0, false}, {1.0, true}, {0, false}, {2, true}, {[]any{}, false}, {[]any{1}, true},
		{map[string]any{}, false}, {[]string{"x"}, true}, {uint8(0), false},
	}
	for _, c := range cases {
		if got := Truthy(c.in); got != c.want {
			t.Errorf("Truthy(%#v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestUsageNormalize(t *testing.T) {
	cases := []struct {
		name                                 string
		json                                 string
		prompt, completion, total, reasoning int // -1 = absent
		wantNil                              bool
	}{
		{"openai", `{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}`, 10, 20, 30, -1, false},
		{"synonyms", `{"input_tokens":11,"output_tokens":22}`, 11, 22, -1, -1, false},
		{"prompt wins over input", `{"prompt_tokens":1,"input_tokens":2}`, 1, -1, -1, -1, false},
		{"reasoning", `{"completion_tokens":50,"completion_tokens_details":{"reasoning_tokens":12}}`, -1, 50, -1, 12, false},
		{"responses reasoning", `{"output_tokens":9,"output_tokens_details":{"reasoning_tokens":4}}`, -1, 9, -1, 4, false},
		{"zero is not absent", `{"prompt_tokens":0,"completion_tokens":0}`, 0, 0, -1, -1, false},
		{"empty", `{}`, 0, 0, 0, 0, true},
		{"unknown only", `{"cached":3}`, 0, 0, 0, 0, true},
	}
	check := func(t *testing.T, what string, got *int, want int) {
		t.Helper()
		switch {
		case want < 0 && got != nil:
			t.Errorf("%s = %d, want absent", what, *got)
		case want >= 0 && (got == nil || *got != want):
			t.Errorf("%s = %v, want %d", what, got, want)
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var raw RawUsage
			if err := json.Unmarshal([]byte(c.json), &raw); err != nil {
				t.Fatal(err)
			}
			u := raw.Normalize()
			if c.wantNil {
				if u != nil {
					t.Fatalf("got %+v, want nil", u)
				}
				return
			}
			if u == nil {
				t.Fatal("got nil usage")
			}
			check(t, "prompt", u.PromptTokens, c.prompt)
			check(t, "completion", u.CompletionTokens, c.completion)
			check(t, "total", u.TotalTokens, c.total)
			check(t, "reasoning", u.ReasoningTokens, c.reasoning)
		})
	}
}

func TestIsEmptyUnit(t *testing.T) {
	for in, want := range map[string]bool{"": true, " \n": true, "[DONE]": true, " [DONE]\n": true, "{}": false, "[DONE]x": false} {
		if got := IsEmptyUnit([]byte(in)); got != want {
			t.Errorf("IsEmptyUnit(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestUnmarshal(t *testing.T) {
	type unit struct {
		Text string `json:"text"`
		N    int    `json:"n"`
	}
	var u unit
	if err := Unmarshal("chat", []byte(`{"text":["not","a","string"],"n":3}`), &u); err != nil {
		t.Fatalf("wrong-typed field should be skipped, got %v", err)
	}
	if u.N != 3 || u.Text != "" {
		t.Errorf("got %+v, want text skipped and n=3", u)
	}
	long := `{"text": "` + strings.Repeat("x", 300)
	err := Unmarshal("chat", []byte(long), &u)
	if err == nil {
		t.Fatal("want an error for truncated JSON")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "chat: malformed response JSON") || !strings.Contains(msg, strings.Repeat("x", 190)) || strings.Contains(msg, strings.Repeat("x", 200)) {
		t.Errorf("error should name the endpoint and quote exactly the first 200 bytes: %s", msg)
	}
	if err := Unmarshal("chat", []byte(`"just a string"`), &u); err == nil {
		t.Error("want an error for a non-object top level")
	}
}
