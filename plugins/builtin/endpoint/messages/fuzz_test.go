package messages

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Hi"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"usage":{"input_tokens":5,"output_tokens":3}}`,
		`{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}`+"\n"+
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" thee"}}`+"\n"+
			`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}`,
		`{"type":"ping"}`, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
}
