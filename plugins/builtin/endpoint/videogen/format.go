package videogen

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// FormatPayload implements sdk.Endpoint. The body is the JSON object
// AIPerf keeps in inputs.json: prompt (the turn's first text only), model,
// then --extra-inputs (size, seconds, seed, ...) and Turn.Extra merged over
// it. The transport sends it as form fields (RequiresFormData), so a
// number here is its text there.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	prompt, ok := openai.FirstText(&req.Turn)
	if !ok {
		return nil, errors.New("video_generation: format payload: Video generation endpoint requires a text prompt")
	}
	model := openai.TurnModel(&req)
	if model == "" {
		return nil, errors.New("video_generation: format payload: no model (RequestInfo.Model and Turn.Model are empty)")
	}
	body := openai.NewObject(2 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("prompt", prompt)
	body.Set("model", model)
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	out, err := body.AppendJSON(make([]byte, 0, 64+len(prompt)+64*(len(req.ExtraInputs)+len(req.Turn.Extra))))
	if err != nil {
		return nil, fmt.Errorf("video_generation: format payload: %w", err)
	}
	return out, nil
}
