package videogen

import (
	"encoding/json"
	"fmt"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ParseResponse implements sdk.Endpoint for one job state: the submit
// answer or the final poll answer the transport recorded. Any non-empty
// JSON object is content: a Result of kind video with the job's id,
// status, inference_time_s and peak_memory_mb (nil when absent or not
// numbers). usage, when sent, is read like every OpenAI usage. An empty
// object, [DONE] and empty data carry nothing; malformed JSON and a
// non-object answer are errors.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(Name, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	if u.Object == nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: the response is not a JSON object: %q", Name, head(data))
	}
	job := &sdk.VideoJob{
		ID:             text(u.Object["id"]),
		Status:         text(u.Object["status"]),
		InferenceTimeS: number(u.Object["inference_time_s"]),
		PeakMemoryMB:   number(u.Object["peak_memory_mb"]),
	}
	return sdk.ParsedResponse{
		Usage:  usage(u.Object["usage"]),
		Result: &sdk.Result{Kind: sdk.ResultVideo, Video: job},
	}, nil
}

// text reads a string member; a number is kept as its JSON text (a numeric
// job id), anything else is "".
func text(raw json.RawMessage) string {
	if s, ok := openai.JSONString(raw); ok {
		return s
	}
	if number(raw) != nil {
		return string(raw)
	}
	return ""
}

// number reads a numeric member; nil when absent, null or not a number.
func number(raw json.RawMessage) *float64 {
	if len(raw) == 0 {
		return nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || !json.Valid(raw) {
		return nil
	}
	return &f
}

// usage reads the usage member; a missing, empty or ill-typed one is none.
func usage(raw json.RawMessage) *sdk.Usage {
	if len(raw) == 0 {
		return nil
	}
	var u openai.RawUsage
	if openai.Unmarshal(Name, raw, &u) != nil {
		return nil
	}
	return u.Normalize()
}

// head is the start of data quoted by errors.
func head(b []byte) []byte {
	const n = 200
	if len(b) > n {
		return b[:n]
	}
	return b
}
