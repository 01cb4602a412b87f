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
	// SystemMessage and UserContextMessage are the conversation's, sent with
	// every turn.
	SystemMessage, UserContextMessage string
}

// SelfContained reports whether the turn carries its whole request (a
// verbatim body or message array): it is sent as prepared, never
// re-rendered with the session's history.
func (r *PreparedRequest) SelfContained() bool {
	return len(r.Turn.RawPayload) > 0 || len(r.Turn.RawMessages) > 0
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

// RequestInfo is the endpoint input for one turn of req's conversation.
func (o PrepareOptions) RequestInfo(req *PreparedRequest, history []sdk.HistoryEntry) sdk.RequestInfo {
	return sdk.RequestInfo{
		Model:              req.Model,
		Streaming:          o.Streaming,
		Turn:               req.Turn,
		History:            history,
		UseLegacyMaxTokens: o.UseLegacyMaxTokens,
		IncludeUsage:       o.Streaming && o.IncludeUsage,
		ExtraInputs:        o.ExtraInputs,
		SystemMessage:      req.SystemMessage,
		UserContextMessage: req.UserContextMessage,
	}
}

// Render is the body of req: its verbatim payload when the dataset gave one
// (AIPerf sends raw_payload as is, bypassing the endpoint), else the
// endpoint's format of the turn with history.
func (o PrepareOptions) Render(ep sdk.Endpoint, req *PreparedRequest, history []sdk.HistoryEntry) ([]byte, error) {
	if len(req.Turn.RawPayload) > 0 {
		return req.Turn.RawPayload, nil
	}
	return ep.FormatPayload(o.RequestInfo(req, history))
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
			req := PreparedRequest{
				ConversationID:     conv.SessionID,
				TurnIndex:          ti,
				Model:              model,
				MaxTokens:          turn.MaxTokens,
				Turn:               turn,
				SystemMessage:      conv.SystemMessage,
				UserContextMessage: conv.UserContextMessage,
			}
			if len(turn.RawMessages) > 0 && !meta.SendsRawMessages {
				return nil, nil, fmt.Errorf("conversation %s turn %d carries a verbatim message array (mooncake \"messages\"), which this endpoint does not send (its metadata has no sends_raw_messages); use --endpoint-type chat, responses or messages", conv.SessionID, ti)
			}
			body, err := opts.Render(ep, &req, nil)
			if err != nil {
				return nil, nil, fmt.Errorf("format payload for conversation %s turn %d: %w", conv.SessionID, ti, err)
			}
			in := BodyInputs(ep, body)
			text := InputText(in)
			req.Payload = body
			req.InputText = text
			req.InputImages, req.InputAudios, req.InputVideos = in.Images, in.Audios, in.Videos
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
