package hfgenerate

import (
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ParseResponse implements sdk.Endpoint. A stream event (it has "token")
// carries token.text only, never its final generated_text, which repeats
// the whole answer; a whole body carries "generated_text" (of the first
// item when it is a list). Empty or missing text carries nothing. TGI
// reports no usage object.
//
// AIPerf picks the reading by the run's --streaming; an endpoint here sees
// one unit without the run, so the "token" member decides: TGI puts it in
// every stream event and never in a /generate body.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(Name, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	obj := u.Object
	if u.Array != nil {
		// A list answer: its first item, which must be an object.
		if err := json.Unmarshal(u.Array[0], &obj); err != nil || obj == nil {
			return sdk.ParsedResponse{}, fmt.Errorf("%s: response list item 0 is not an object: %q", Name, openai.ErrorHead(data))
		}
	}
	if obj == nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: response is not a JSON object: %q", Name, openai.ErrorHead(data))
	}
	if token, isEvent := obj["token"]; isEvent {
		// AIPerf swallows any error reading a stream event.
		var tok struct {
			Text json.RawMessage `json:"text"`
		}
		if json.Unmarshal(token, &tok) != nil {
			return sdk.ParsedResponse{}, nil
		}
		text, _ := openai.JSONString(tok.Text)
		return sdk.ParsedResponse{Text: text}, nil
	}
	text, _ := openai.JSONString(obj["generated_text"])
	return sdk.ParsedResponse{Text: text}, nil
}
