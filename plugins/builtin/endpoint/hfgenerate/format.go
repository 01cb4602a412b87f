package hfgenerate

import (
	"errors"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// ErrMultiTurn is AIPerf's ValueError for a request past a conversation's
// first turn: TGI's API takes one prompt.
var ErrMultiTurn = errors.New("TGI endpoint supports a single turn per request")

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's order,
// {"inputs": every non-empty text joined by spaces, "parameters": {...}}:
// parameters holds max_new_tokens (when Turn.MaxTokens is set) and then the
// --extra-inputs, which TGI reads there; Turn.Extra is merged at the top
// level. There is no model and no stream field: streaming is the path.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	if len(req.History) > 0 {
		return nil, fmt.Errorf("%s: format payload: %w", Name, ErrMultiTurn)
	}
	inputs := strings.Join(openai.TurnTexts(&req.Turn), " ")
	params := openai.NewObject(1 + len(req.ExtraInputs))
	if req.Turn.MaxTokens != nil {
		params.Set("max_new_tokens", *req.Turn.MaxTokens)
	}
	params.Update(req.ExtraInputs)
	body := openai.NewObject(2 + len(req.Turn.Extra))
	body.Set("inputs", inputs)
	body.Set("parameters", params)
	body.Update(req.Turn.Extra)
	out, err := body.AppendJSON(make([]byte, 0, 64+len(inputs)+64*len(req.ExtraInputs)+64*len(req.Turn.Extra)))
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", Name, err)
	}
	return out, nil
}
