package imagegen

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ParseResponse implements sdk.Endpoint for a whole body or one streaming
// event (the SSE event name is not consulted, as in AIPerf). Any non-empty
// JSON object is content, images or not: a Result of kind images counting
// one image for a top-level b64_json (a streaming event, partial or
// final), else one per data[] item. usage input_tokens/output_tokens are
// the prompt/completion tokens. An empty object, [DONE] and empty data
// carry nothing; malformed JSON, a non-object answer and a data member
// that is not a list of objects are errors (AIPerf's lookups raise there).
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(Name, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	if u.Object == nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: the response is not a JSON object: %q", Name, head(data))
	}
	n, err := imageCount(u.Object)
	if err != nil {
		return sdk.ParsedResponse{}, err
	}
	return sdk.ParsedResponse{
		Usage:  usage(u.Object["usage"]),
		Result: &sdk.Result{Kind: sdk.ResultImages, Count: n},
	}, nil
}

// imageCount counts the images of a response object.
func imageCount(obj map[string]json.RawMessage) (int, error) {
	if _, ok := obj["b64_json"]; ok {
		return 1, nil
	}
	raw, ok := obj["data"]
	if !ok {
		return 0, nil
	}
	raw = bytes.TrimSpace(raw)
	var items []json.RawMessage
	switch {
	case len(raw) > 0 && (raw[0] == '{' || raw[0] == '"') && openai.JSONFalsy(raw):
		return 0, nil // an empty dict or string iterates over nothing
	case len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil:
		return 0, fmt.Errorf("%s: \"data\" is not a list of image objects: %q", Name, head(raw))
	}
	for i, it := range items {
		if it = bytes.TrimSpace(it); len(it) == 0 || it[0] != '{' {
			return 0, fmt.Errorf("%s: data[%d] is not an image object: %q", Name, i, head(it))
		}
	}
	return len(items), nil
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
