package videogen

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseResponse(f *testing.F) {
	fuzzcheck.Endpoint(f, New(),
		`{"id":"video_1","object":"video","status":"queued","progress":0}`,
		`{"id":"v","status":"completed","usage":{"input_tokens":7,"output_tokens":0}}`,
		`{"id":"v","status":"completed","inference_time_s":1.5,"peak_memory_mb":2048}`,
		`{"id":"v","status":"failed","error":{"code":"x","message":"boom"}}`)
}
