package chatembeddings

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"object":"list","data":[{"index":0,"embedding":[0.1,0.2],"object":"embedding"}],"usage":{"prompt_tokens":8,"total_tokens":8}}`,
		`{"data":[]}`, `{"data":[{"embedding":[[0.1]]}]}`)
}
