package solidorag

import (
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// defaultFilters are the filters AIPerf always sends.
var defaultFilters = json.RawMessage(`{"family":"Solido","tool":"SDE"}`)

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's order,
// {"query":[every non-empty text],"filters":{"family":"Solido","tool":"SDE"},
// "inference_model":model} with --extra-inputs and then Turn.Extra merged
// over it. Only the current turn is sent (AIPerf reads the last one), and
// neither Streaming (only the Accept header changes) nor Turn.MaxTokens
// appears in it.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	model := openai.TurnModel(&req)
	if model == "" {
		return nil, fmt.Errorf("%s: format payload: no model (RequestInfo.Model and Turn.Model are empty)", Name)
	}
	query := openai.TurnTexts(&req.Turn)
	body := openai.NewObject(3 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("query", query)
	body.Set("filters", defaultFilters)
	body.Set("inference_model", model)
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	size := 96 + len(model) + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra)
	for _, q := range query {
		size += len(q) + 8
	}
	out, err := body.AppendJSON(make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", Name, err)
	}
	return out, nil
}
