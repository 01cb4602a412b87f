package imagegen

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's key
// order: prompt (the turn's first text only), model, response_format
// "b64_json" (SGLang answers only that), n 1, stream true when streaming
// (absent otherwise), then --extra-inputs and Turn.Extra merged over it.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	prompt, ok := openai.FirstText(&req.Turn)
	if !ok {
		return nil, errors.New("image_generation: format payload: Image generation endpoint requires a text prompt")
	}
	model := openai.TurnModel(&req)
	if model == "" {
		return nil, errors.New("image_generation: format payload: no model (RequestInfo.Model and Turn.Model are empty)")
	}
	body := openai.NewObject(5 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("prompt", prompt)
	body.Set("model", model)
	body.Set("response_format", "b64_json")
	body.Set("n", 1)
	if req.Streaming {
		body.Set("stream", true)
	}
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	out, err := body.AppendJSON(make([]byte, 0, 128+len(prompt)+64*(len(req.ExtraInputs)+len(req.Turn.Extra))))
	if err != nil {
		return nil, fmt.Errorf("image_generation: format payload: %w", err)
	}
	return out, nil
}
