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
	prompt, ok := firstText(&req.Turn)
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

// firstText is AIPerf's turn.texts[0].contents[0]: the turn's first text,
// else the first content of its first text group. ok is false when the
// first group has no content (AIPerf refuses such a turn); an empty
// string is still a prompt.
func firstText(t *sdk.Turn) (string, bool) {
	if len(t.Texts) > 0 {
		return t.Texts[0], true
	}
	if len(t.TextGroups) > 0 && len(t.TextGroups[0].Contents) > 0 {
		return t.TextGroups[0].Contents[0], true
	}
	return "", false
}
