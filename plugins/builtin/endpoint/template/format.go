package template

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// FormatPayload implements sdk.Endpoint. The body is the template rendered
// with the turn's variables (templateVars), parsed as JSON and written back
// compactly in its own key order, then --extra-inputs (without
// payload_template and response_field) and Turn.Extra merged over it: a key
// already there is replaced in place, new keys are appended (sorted, as
// openai.Object.Update orders a Go map's keys).
func (e *Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	s, err := e.settingsFor(req.ExtraInputs)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	rendered, err := render(s.tmpl, templateVars(req))
	if err != nil {
		return nil, fmt.Errorf("template: render payload_template %s: %w", s.name, err)
	}
	payload, err := parseRendered(rendered)
	if err != nil {
		return nil, fmt.Errorf("template: Template did not render valid JSON (payload_template %s): %w: %s",
			s.name, err, firstChars(rendered, 100))
	}

	extra := withoutTemplateKeys(req.ExtraInputs)
	if obj, ok := payload.(*openai.Object); ok {
		openai.ApplyExtras(obj, extra, req.Turn.Extra)
	} else if len(extra) > 0 || len(req.Turn.Extra) > 0 {
		// AIPerf fails the same way (a list has no update()).
		return nil, fmt.Errorf("template: payload_template %s rendered a JSON %s, not an object: "+
			"--extra-inputs and per-turn fields cannot be merged into it", s.name, jsonKind(payload))
	}
	out, err := openai.AppendValue(make([]byte, 0, len(rendered)+64), payload)
	if err != nil {
		return nil, fmt.Errorf("template: format payload: %w", err)
	}
	return out, nil
}

// withoutTemplateKeys is the extra inputs that go into the body.
func withoutTemplateKeys(extra map[string]any) map[string]any {
	_, hasTemplate := extra[KeyPayloadTemplate]
	_, hasField := extra[KeyResponseField]
	if !hasTemplate && !hasField {
		return extra
	}
	out := make(map[string]any, len(extra))
	for k, v := range extra {
		if k != KeyPayloadTemplate && k != KeyResponseField {
			out[k] = v
		}
	}
	return out
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}
