package solidorag

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" thee"}}]}`,
		`{"choices":[{"message":{"content":"answer"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`,
		`{"content":"x"}`)
}
