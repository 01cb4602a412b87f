package embeddings

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ParseResponse implements sdk.Endpoint. A body whose "data" items are all
// {"object":"embedding",...} carries one vector per item with a non-null
// "embedding"; empty or missing data carries nothing. Any other item is
// AIPerf's ValueError("Received invalid list in response: ..."), which
// fails the request. Server usage is not read: AIPerf reports no usage
// metrics for embeddings.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	return Parse(Name, data)
}

// Parse is ParseResponse with errors prefixed by endpoint (nim_embeddings
// reads the same shape).
func Parse(endpoint string, data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(endpoint, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	if u.Object == nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: response is not a JSON object: %q", endpoint, openai.ErrorHead(data))
	}
	raw := u.Object["data"]
	if openai.JSONFalsy(raw) {
		return sdk.ParsedResponse{}, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: Received invalid list in response: \"data\" is not a list: %q", endpoint, openai.ErrorHead(data))
	}
	vectors := 0
	for i, it := range items {
		var item struct {
			Object    json.RawMessage `json:"object"`
			Embedding present         `json:"embedding"`
		}
		if it[0] != '{' || json.Unmarshal(it, &item) != nil {
			return sdk.ParsedResponse{}, fmt.Errorf("%s: Received invalid list in response: data[%d] is not an object: %q", endpoint, i, openai.ErrorHead(data))
		}
		if s, _ := openai.JSONString(item.Object); s != "embedding" {
			return sdk.ParsedResponse{}, fmt.Errorf(`%s: Received invalid list in response: data[%d] has no "object":"embedding": %q`, endpoint, i, openai.ErrorHead(data))
		}
		if item.Embedding {
			vectors++
		}
	}
	if vectors == 0 {
		return sdk.ParsedResponse{}, nil
	}
	return sdk.ParsedResponse{Result: &sdk.Result{Kind: sdk.ResultEmbeddings, Count: vectors}}, nil
}

// present records whether a member is there and not null, without
// decoding (or copying) the vector.
type present bool

func (p *present) UnmarshalJSON(b []byte) error {
	*p = present(!bytes.Equal(b, []byte("null")))
	return nil
}
