package completions

import "testing"

var firstTokenInputs = []struct {
	data string
	want bool
}{
	{"", false},
	{"[DONE]", false},
	{`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" thee","logprobs":null,"finish_reason":null}]}`, true},
	{`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length"}]}`, false},
	{`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`, false},
	{`{"choices":[{"text":"\n"}]}`, true},
	{`{"choices":[{"text":null}]}`, false},
	{`{"choices":null}`, false},
	{`{"choices":[{"text":""},{"text":"second"}]}`, false},
	{`{}`, false},
	// Handed to encoding/json: wrong types, case-folded keys, bad syntax.
	{`{"choices":[{"text":5}]}`, false},
	{`{"choices":[1]}`, false},
	{`{"Choices":[{"Text":"folded"}]}`, true},
	{`{"choices":[{"TEXT":"folded"}]}`, true},
	{`{"choices":[{"text":"\q"}]}`, false},
	{`{"choices":[{"text":"x"}]`, false},
	{`nope`, false},
}

func TestIsFirstToken(t *testing.T) {
	ep := New()
	for _, c := range firstTokenInputs {
		if got := ep.IsFirstToken([]byte(c.data)); got != c.want {
			t.Errorf("IsFirstToken(%s) = %v, want %v", c.data, got, c.want)
		}
		p, err := ep.ParseResponse([]byte(c.data))
		if parsed := err == nil && p.HasContent(); parsed != c.want {
			t.Errorf("%s: ParseResponse content %v (err %v), detector expected %v", c.data, parsed, err, c.want)
		}
	}
}

func TestIsFirstTokenDoesNotAllocate(t *testing.T) {
	ep := New()
	for _, c := range firstTokenInputs[:6] {
		b := []byte(c.data)
		if n := testing.AllocsPerRun(100, func() { ep.IsFirstToken(b) }); n != 0 {
			t.Errorf("%s: %v allocations per call", c.data, n)
		}
	}
}
