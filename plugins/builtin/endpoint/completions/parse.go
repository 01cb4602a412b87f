package completions

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// response holds only the fields parsing needs.
type response struct {
	Choices []struct {
		Text string `json:"text"`
	} `json:"choices"`
	Usage *openai.RawUsage `json:"usage"`
}

// ParseResponse implements sdk.Endpoint for one SSE data payload or one whole
// non-streaming body: choices[0].text is the generated text and usage is
// captured. The object field ("text_completion") is not required.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if openai.IsEmptyUnit(data) {
		return sdk.ParsedResponse{}, nil
	}
	var r response
	if err := openai.Unmarshal(Name, data, &r); err != nil {
		return sdk.ParsedResponse{}, err
	}
	out := sdk.ParsedResponse{Usage: r.Usage.Normalize()}
	if len(r.Choices) > 0 {
		out.Text = r.Choices[0].Text
	}
	return out, nil
}
