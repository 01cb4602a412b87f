package solidorag

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ParseResponse implements sdk.Endpoint for a whole body or one stream
// event: a non-empty "content" string is generated text; anything else,
// such as the closing event with only "sources", carries nothing. The
// sources are not kept (nothing downstream reads them) and there is no usage.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(Name, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	if u.Object == nil {
		return sdk.ParsedResponse{}, fmt.Errorf("%s: response is not a JSON object: %q", Name, openai.ErrorHead(data))
	}
	text, _ := openai.JSONString(u.Object["content"])
	return sdk.ParsedResponse{Text: text}, nil
}
