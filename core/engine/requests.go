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
	// InputText is the text the prepared body carries, as ISL counts it
	// (BodyInputs, InputText); InputTokens its count, or nil when the
	// endpoint does not tokenize input or the body has no countable input.
	// They are the ISL of a request sent without history; a later turn
	// sent with it is counted from the body actually sent.
	InputText   string
	InputTokens *int
	// InputImages, InputAudios and InputVideos count the body's media parts.
	InputImages, InputAudios, InputVideos int
	MaxTokens                             *int
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
			in := BodyInputs(ep, body)
			text := InputText(in)
			req := PreparedRequest{
				ConversationID: conv.SessionID,
				TurnIndex:      ti,
				Model:          model,
				Payload:        body,
				InputText:      text,
				InputImages:    in.Images,
				InputAudios:    in.Audios,
				InputVideos:    in.Videos,
				MaxTokens:      turn.MaxTokens,
				Turn:           turn,
			}
			if meta.TokenizesInput {
				req.InputTokens = CountInput(opts.Tokenizer, in, text)
			}
			reqs = append(reqs, req)
			entry.Payloads = append(entry.Payloads, body)
		}
		inputs = append(inputs, entry)
	}
	return reqs, inputs, nil
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
