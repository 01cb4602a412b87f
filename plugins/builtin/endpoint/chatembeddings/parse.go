package chatembeddings

import (
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ParseResponse implements sdk.Endpoint with AIPerf's lenient embeddings
// extraction (try_extract_embeddings): OpenAI's "data" list when its first
// item is {"object":"embedding"} (every item with an "embedding" key is a
// vector), else "embeddings" (a list of vectors, or one flat vector), else
// "embedding" (likewise). Anything else carries nothing; it is not an
// error. Server usage is not read, as in AIPerf.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(Name, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	if u.Object == nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: response is not a JSON object: %q", Name, openai.ErrorHead(data))
	}
	n := openAIVectors(u.Object["data"])
	for _, field := range []string{"embeddings", "embedding"} {
		if n > 0 {
			break
		}
		n = vectors(u.Object[field])
	}
	if n == 0 {
		return sdk.ParsedResponse{}, nil
	}
	return sdk.ParsedResponse{Result: &sdk.Result{Kind: sdk.ResultEmbeddings, Count: n}}, nil
}

// openAIVectors counts the items of an OpenAI "data" list whose first item
// is an embedding object; 0 when it is not that shape.
func openAIVectors(raw json.RawMessage) int {
	var items []map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '[' {
		return 0
	}
	// An item that is not an object decodes as nil (a type error, which
	// encoding/json reports after decoding the rest): it has no embedding.
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(raw, &items); err != nil && !errors.As(err, &typeErr) {
		return 0
	}
	if len(items) == 0 {
		return 0
	}
	if s, _ := openai.JSONString(items[0]["object"]); s != "embedding" {
		return 0
	}
	n := 0
	for _, it := range items {
		if _, has := it["embedding"]; has {
			n++
		}
	}
	return n
}

// vectors counts the vectors of an "embeddings"/"embedding" value: a list
// of lists is that many, a list starting with a number one; else 0.
func vectors(raw json.RawMessage) int {
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return 0
	}
	switch c := items[0][0]; {
	case c == '[':
		return len(items)
	case c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f':
		// A number; Python's bool is an int too.
		return 1
	}
	return 0
}
