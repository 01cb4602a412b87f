package imagegen

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"created":1,"data":[{"b64_json":"iVBORw0KGgo=","revised_prompt":"p"}],"usage":{"input_tokens":5,"output_tokens":0,"total_tokens":5}}`,
		`{"type":"image_generation.partial_image","b64_json":"iVBO","partial_image_index":0}`,
		`{"type":"image_generation.completed","b64_json":"iVBO","usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}`,
		`{"created":1,"data":[]}`, `{"data":[{"url":"http://x/y.png"}]}`)
}
