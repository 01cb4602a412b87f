package engine

import (
	"fmt"
	"math/rand/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// PreparedRequest is a request rendered ahead of its send time: the payload
// bytes are final, so nothing but the transport runs on the timed path.
type PreparedRequest struct {
	ConversationID string
	TurnIndex      int
	Model          string
	Payload        []byte
	// InputText is this turn's own prompt text (its texts joined without a
	// separator); InputTokens its count, or nil when the endpoint does not
	// tokenize input. They are the ISL of a request sent without history;
	// for a later turn sent with it, Completed.History completes the input.
	InputText   string
	InputTokens *int
	MaxTokens   *int
	// Turn is the dataset turn, kept to re-render later turns of a session
	// with the conversation's history.
	Turn sdk.Turn
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
	// ModelSelection is round_robin (default) or random (seeded by Seed),
	// applied per conversation when a turn names no model.
	ModelSelection string
	Seed           int64
}

// RequestInfo is the endpoint input for one turn.
func (o PrepareOptions) RequestInfo(model string, turn sdk.Turn, history []sdk.HistoryEntry) sdk.RequestInfo {
	return sdk.RequestInfo{
		Model:              model,
		Streaming:          o.Streaming,
		Turn:               turn,
		History:            history,
		UseLegacyMaxTokens: o.UseLegacyMaxTokens,
		IncludeUsage:       o.Streaming && o.IncludeUsage,
		ExtraInputs:        o.ExtraInputs,
	}
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
	pick := modelPicker(opts)
	reqs := make([]PreparedRequest, 0, len(convs))
	inputs := make([]sdk.InputEntry, 0, len(convs))
	for ci, conv := range convs {
		entry := sdk.InputEntry{SessionID: conv.SessionID}
		convModel := pick(ci)
		for ti, turn := range conv.Turns {
			model := turn.Model
			if model == "" {
				model = convModel
			}
			body, err := ep.FormatPayload(opts.RequestInfo(model, turn, nil))
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
				Turn:           turn,
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

// modelPicker assigns models to conversations: round robin, or uniformly at
// random from a seeded source (--model-selection-strategy).
func modelPicker(opts PrepareOptions) func(conv int) string {
	if opts.ModelSelection != "random" || len(opts.Models) == 1 {
		return func(conv int) string { return opts.Models[conv%len(opts.Models)] }
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x6d6f64656c))
	return func(int) string { return opts.Models[rng.IntN(len(opts.Models))] }
}
