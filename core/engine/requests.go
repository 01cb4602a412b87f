package engine

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// PreparedRequest is a request rendered ahead of its send time: the payload
// bytes are final, so nothing but the transport runs on the timed path.
type PreparedRequest struct {
	ConversationID string
	TurnIndex      int
	Model          string
	Payload        []byte
	// InputText is the prompt text (for ISL); InputTokens its count, or nil
	// when the endpoint does not tokenize input.
	InputText   string
	InputTokens *int
	MaxTokens   *int
}

// PrepareOptions are the run settings that shape payloads.
type PrepareOptions struct {
	Models             []string
	Streaming          bool
	UseLegacyMaxTokens bool
	ExtraInputs        map[string]any
	// IncludeUsage asks streaming servers for a usage chunk where the
	// endpoint does not already force it (chat always does, as AIPerf).
	IncludeUsage bool
	// Tokenizer counts ISL once per prompt here instead of once per request.
	Tokenizer sdk.Tokenizer
}

// Prepare renders every turn of every conversation with the endpoint.
// Models are assigned round robin over conversations when a turn names none.
func Prepare(ep sdk.Endpoint, convs []sdk.Conversation, opts PrepareOptions) ([]PreparedRequest, []sdk.InputEntry, error) {
	if len(convs) == 0 {
		return nil, nil, fmt.Errorf("dataset is empty: nothing to send")
	}
	if len(opts.Models) == 0 {
		return nil, nil, fmt.Errorf("no model name given")
	}
	meta := ep.Metadata()
	reqs := make([]PreparedRequest, 0, len(convs))
	inputs := make([]sdk.InputEntry, 0, len(convs))
	for ci, conv := range convs {
		entry := sdk.InputEntry{SessionID: conv.SessionID}
		for ti, turn := range conv.Turns {
			model := turn.Model
			if model == "" {
				model = opts.Models[ci%len(opts.Models)]
			}
			body, err := ep.FormatPayload(sdk.RequestInfo{
				Model:              model,
				Streaming:          opts.Streaming,
				Turn:               turn,
				UseLegacyMaxTokens: opts.UseLegacyMaxTokens,
				IncludeUsage:       opts.Streaming && opts.IncludeUsage,
				ExtraInputs:        opts.ExtraInputs,
			})
			if err != nil {
				return nil, nil, fmt.Errorf("format payload for conversation %s turn %d: %w", conv.SessionID, ti, err)
			}
			text := joinTexts(turn.Texts)
			req := PreparedRequest{
				ConversationID: conv.SessionID,
				TurnIndex:      ti,
				Model:          model,
				Payload:        body,
				InputText:      text,
				MaxTokens:      turn.MaxTokens,
			}
			if meta.TokenizesInput && opts.Tokenizer != nil && text != "" {
				n := opts.Tokenizer.Count(text)
				req.InputTokens = &n
			}
			reqs = append(reqs, req)
			entry.Payloads = append(entry.Payloads, body)
		}
		inputs = append(inputs, entry)
	}
	return reqs, inputs, nil
}

func joinTexts(texts []string) string {
	if len(texts) == 1 {
		return texts[0]
	}
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b := make([]byte, 0, n)
	for _, t := range texts {
		b = append(b, t...)
	}
	return string(b)
}
