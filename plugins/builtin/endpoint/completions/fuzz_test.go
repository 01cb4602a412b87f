package completions

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" thee","logprobs":null,"finish_reason":null}]}`,
		`{"id":"cmpl-1","object":"text_completion","choices":[],"usage":{"prompt_tokens":12,"total_tokens":17,"completion_tokens":5}}`,
		`{"choices":[{"text":"a\nb \"q\" \u00e9"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`,
		`{"choices":[{"text":"unterminated`)
}
