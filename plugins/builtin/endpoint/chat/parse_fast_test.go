package chat

import (
	"reflect"
	"strings"
	"testing"
)

// The fast path must agree with encoding/json on every input it accepts.
func TestFastPathMatchesStdlib(t *testing.T) {
	inputs := []string{
		vllmRoleChunk, vllmContentChunk, vllmReasoningChunk, vllmUsageChunk,
		`{"object":"chat.completion","choices":[{"message":{"content":"a\nb \"q\" \u00e9 \ud83c\udfad"}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"completion_tokens_details":{"reasoning_tokens":0,"x":[1,{"y":null}]}}}`,
		`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"x"}},{"delta":{"content":"second"}}]}`,
		`{"object":"chat.completion.chunk","choices":null,"usage":{"input_tokens":4,"output_tokens":-0}}`,
		`{"object":"chat.completion.chunk","choices":[{"delta":null,"message":{"content":"m"}}]}`,
		`{"choices":[{"delta":{"content":"d","tool_calls":[]},"logprobs":{"content":[{"token":"d","logprob":-0.25,"bytes":[100]}]}}]}`,
		`{"choices":[{"delta":{"content":"d","tool_calls":null}}],"extra":[true,false,null,1.5e-3,-2E+2,"s"]}`,
		`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"bad utf8 ` + "\xff" + `"}}]}`,
		"  {\"object\" : \"chat.completion.chunk\" ,\n \"choices\" : [ { \"delta\" : { \"content\" : \"ws\" } } ] }  ",
		`{"object":"text_completion","choices":[{"delta":{"content":"any"}}]}`,
		`{}`, `{"choices":[]}`,
	}
	for _, in := range inputs {
		var f flatResponse
		if !scanResponse([]byte(in), &f) {
			t.Errorf("fast path refused %s", in)
			continue
		}
		fast, err := New().ParseResponse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		slow, err := parseSlow([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("input %s\nfast %+v\nslow %+v", in, fast, slow)
		}
	}
}

// Inputs the fast path must hand over to encoding/json.
func TestFastPathRefuses(t *testing.T) {
	inputs := []string{
		`{"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}}]}}]}`,
		`{"choices":[{"delta":{"content":[1]}}]}`,
		`{"usage":{"prompt_tokens":1.0}}`,
		`{"usage":{"prompt_tokens":01}}`,
		`{"obj\u0065ct":"x"}`,
		`{"choices":[{"delta":{"content":"x"}}]`,
		`{"choices":[1]}`,
		`{"a":1}x`,
		`{"a":-}`, `{"a":1.}`, `{"a":tru}`, `[1,2]`, `"str"`,
		"{\"a\":\"ctl\x01\"}",
		`{"usage":{"total_tokens":12345678901234567890}}`,
	}
	for _, in := range inputs {
		var f flatResponse
		if scanResponse([]byte(in), &f) {
			t.Errorf("fast path accepted %s", in)
		}
	}
	// And the public result for the refused-but-valid ones comes from the slow path.
	p, err := New().ParseResponse([]byte(inputs[0]))
	if err != nil || p.Text != "f" {
		t.Errorf("tool call via slow path: %+v, %v", p, err)
	}
	if _, err := New().ParseResponse([]byte(inputs[5])); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("truncated JSON: err = %v", err)
	}
}
