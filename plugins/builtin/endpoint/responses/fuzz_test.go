package responses

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"id":"resp_1","object":"response","status":"completed","output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi there"}]}],"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8,"output_tokens_details":{"reasoning_tokens":1}}}`,
		`{"type":"response.created","response":{"id":"resp_1","status":"in_progress"}}`,
		`{"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":" thee"}`+"\n"+`{"type":"response.output_text.done","output_index":0,"content_index":0,"text":" thee"}`,
		`{"type":"response.reasoning_summary_text.delta","delta":"hmm"}`,
		`{"type":"response.function_call_arguments.delta","delta":"{\"a\""}`,
		`{"type":"response.completed","response":{"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}}}`)
}
