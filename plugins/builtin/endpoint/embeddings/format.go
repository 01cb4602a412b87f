package embeddings

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's order,
// {"model":...,"input":[every non-empty text]} with --extra-inputs and then
// Turn.Extra merged over it. "input" is a list even for one text. Streaming
// and Turn.MaxTokens are ignored (AIPerf only logs the latter).
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	return Format(Name, req, openai.TurnTexts(&req.Turn))
}

// Format builds an embeddings body whose "input" is inputs; errors name
// endpoint. nim_embeddings shares it with its own inputs.
func Format(endpoint string, req sdk.RequestInfo, inputs []string) ([]byte, error) {
	if len(req.History) > 0 {
		// AIPerf's ValueError("Embeddings endpoint only supports one turn.").
		return nil, fmt.Errorf("%s: format payload: %w", endpoint, ErrMultiTurn)
	}
	model := openai.TurnModel(&req)
	if model == "" {
		return nil, fmt.Errorf("%s: format payload: no model (RequestInfo.Model and Turn.Model are empty)", endpoint)
	}
	body := openai.NewObject(2 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("model", model)
	body.Set("input", inputs)
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	size := 64 + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra)
	for _, s := range inputs {
		size += len(s) + 8
	}
	out, err := body.AppendJSON(make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", endpoint, err)
	}
	return out, nil
}

// ErrMultiTurn is the error for a request past a conversation's first turn
// (RequestInfo.History set): an embeddings request embeds one turn.
var ErrMultiTurn = errors.New("embeddings endpoint only supports one turn")
