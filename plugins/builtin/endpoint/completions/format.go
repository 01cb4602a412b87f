package completions

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's key order:
// prompt (a bare string for one text, a list for several; empty texts are
// dropped), model, stream, max_tokens (always this name; omitted when unset
// or 0, as AIPerf's truthiness test does), then --extra-inputs and
// Turn.Extra, then stream_options.include_usage=true when the merged "stream"
// is true. As for chat, AIPerf 0.13 (endpoints/openai_completions.py
// format_payload) asks for the usage chunk on every streaming request, not
// only with --use-server-token-count, so RequestInfo.IncludeUsage is not
// consulted; an author's own stream_options.include_usage is kept.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	model := req.Turn.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		return nil, errors.New("completions: format payload: no model (RequestInfo.Model and Turn.Model are empty)")
	}

	body := openai.NewObject(5 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("prompt", prompt(req.Turn.Texts))
	body.Set("model", model)
	body.Set("stream", req.Streaming)
	if req.Turn.MaxTokens != nil && *req.Turn.MaxTokens != 0 {
		body.Set("max_tokens", *req.Turn.MaxTokens)
	}
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	// Decided on the merged body: servers reject stream_options when an
	// extra input turned streaming off.
	if stream, _ := body.Get("stream"); openai.Truthy(stream) {
		openai.EnsureIncludeUsage(body)
	}

	hint := 160 + 64*(len(req.ExtraInputs)+len(req.Turn.Extra))
	for _, t := range req.Turn.Texts {
		hint += len(t) + 8
	}
	out, err := body.AppendJSON(make([]byte, 0, hint+hint/16))
	if err != nil {
		return nil, fmt.Errorf("completions: format payload: %w", err)
	}
	return out, nil
}

// prompt returns the non-empty texts: a bare string when there is one
// (servers and AIPerf's trap list expect it), else a list.
func prompt(texts []string) any {
	n := 0
	for _, t := range texts {
		if t != "" {
			n++
		}
	}
	switch {
	case n == len(texts) && n == 1:
		return texts[0]
	case n == 0:
		return ""
	case n == len(texts):
		return texts
	}
	out := make([]string, 0, n)
	for _, t := range texts {
		if t != "" {
			out = append(out, t)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}
