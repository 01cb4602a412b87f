package hfgenerate

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"generated_text":"Hello world","details":{"generated_tokens":2}}`,
		`[{"generated_text":"Hello"}]`,
		`{"token":{"id":1,"text":" thee","logprob":-0.1,"special":false},"generated_text":null,"details":null}`,
		`{"token":{"id":2,"text":"</s>","special":true},"generated_text":"x thee","details":{"finish_reason":"length","generated_tokens":2}}`,
		`{"error":"Input validation error","error_type":"validation"}`)
}
