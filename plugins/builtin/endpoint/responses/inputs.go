package responses

import (
	"encoding/json"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/payload"
)

var _ sdk.InputExtractor = (*Endpoint)(nil)

// partTypes are the Responses API's content part types; output_text is on
// replayed assistant items. It has no video input.
var partTypes = payload.PartTypes{Text: []string{"input_text", "output_text"}, Image: []string{"input_image"},
	Audio: []string{"input_audio"}}

// ExtractInputs is AIPerf's Responses extraction (openai_responses.py): the
// generic walk with the Responses part types, with "instructions" (a
// string or text parts) first.
func (*Endpoint) ExtractInputs(body []byte) (payload.Inputs, error) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return payload.Inputs{}, err
	}
	in := payload.ExtractObject(obj, partTypes)
	var first []string
	switch ins := obj["instructions"].(type) {
	case string:
		first = []string{ins} // AIPerf inserts even an empty string
	case []any:
		for _, p := range ins {
			switch x := p.(type) {
			case map[string]any:
				if t, ok := x["text"].(string); ok && t != "" {
					first = append(first, t)
				}
			case string:
				if x != "" {
					first = append(first, x)
				}
			}
		}
	}
	in.Texts = append(first, in.Texts...)
	return in, nil
}
