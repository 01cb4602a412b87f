package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/payload"
)

// PreparedRequest is a request rendered ahead of its send time: the payload
// bytes are final, so nothing but the transport runs on the timed path.
type PreparedRequest struct {
	ConversationID string
	TurnIndex      int
	Model          string
	Payload        []byte
	MaxTokens      *int
	// Turn is the dataset turn, kept to re-render later turns of a session
	// with the conversation's history; nil reads as an empty turn
	// (TurnInfo). The turns of single-turn
	// conversations keep only what the send path reads (lean), and all
	// those with nothing left share one empty Turn: at a million prompts
	// a Turn per request was 300 MB.
	Turn *sdk.Turn
	// SystemMessage and UserContextMessage are the conversation's, sent with
	// every turn.
	SystemMessage, UserContextMessage string
	// isl caches the token count of Payload, made by the first record sent
	// with it (Inputs), so a dataset entry sent many times is counted once
	// and none is counted before the run starts.
	isl *islCache
}

type islCache struct {
	once   sync.Once
	tokens *int
	// sends counts the records read from this body; from the second on,
	// what it carries is kept (inputs) instead of walking its JSON again
	// for every record: a dataset entry sent many times costs one walk
	// more than once, one sent once (a large dataset) keeps nothing.
	sends  atomic.Int32
	inputs atomic.Pointer[bodyInputs]
}

// bodyInputs is what a prepared body carries, read once.
type bodyInputs struct {
	text string
	in   payload.Inputs
}

// Inputs is what the body sent carries for ISL and the media metrics, read
// off the timed path by the record pipeline: the text (InputText of
// BodyInputs), its token count (nil when count is false or there is nothing
// countable) and the media parts. A body equal to the prepared Payload (a
// request sent without history) is counted once per prepared request; any
// other body (a later turn with its history) every time. What a prepared
// body carries is kept from its second record on (islCache).
func (r *PreparedRequest) Inputs(ep sdk.Endpoint, tok sdk.Tokenizer, body []byte, count bool) (text string, tokens *int, in payload.Inputs) {
	prepared := r.isl != nil && len(body) == len(r.Payload) && (len(body) == 0 || &body[0] == &r.Payload[0])
	if !prepared {
		in = BodyInputs(ep, body)
		text = InputText(in)
		if !count {
			return text, nil, in
		}
		return text, CountInput(tok, in, text), in
	}
	if c := r.isl.inputs.Load(); c != nil {
		text, in = c.text, c.in
	} else {
		in = BodyInputs(ep, body)
		text = InputText(in)
		if r.isl.sends.Add(1) >= 2 {
			r.isl.inputs.Store(&bodyInputs{text: text, in: in})
		}
	}
	if !count {
		return text, nil, in
	}
	r.isl.once.Do(func() { r.isl.tokens = CountInput(tok, in, text) })
	return text, r.isl.tokens, in
}

// TurnInfo is the request's dataset turn, the empty turn when it has none.
func (r *PreparedRequest) TurnInfo() *sdk.Turn {
	if r.Turn == nil {
		return &emptyTurn
	}
	return r.Turn
}

// SelfContained reports whether the turn carries its whole request (a
// verbatim body or message array): it is sent as prepared, never
// re-rendered with the session's history.
func (r *PreparedRequest) SelfContained() bool {
	t := r.TurnInfo()
	return len(t.RawPayload) > 0 || len(t.RawMessages) > 0
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
		Turn:               *req.TurnInfo(),
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
	if raw := req.TurnInfo().RawPayload; len(raw) > 0 {
		return raw, nil
	}
	return ep.FormatPayload(o.RequestInfo(req, history))
}

// Prepare renders every turn of every conversation with the endpoint.
// Models are assigned round robin over conversations when a turn names none.
// The texts and media of single-turn conversations are cleared in convs as
// their bodies are built: the prepared body is then the only copy.
func Prepare(ep sdk.Endpoint, convs []sdk.Conversation, opts PrepareOptions) ([]PreparedRequest, []sdk.InputEntry, error) {
	return PrepareContext(context.Background(), ep, convs, opts)
}

// PrepareContext is Prepare that stops when ctx ends (a large dataset takes
// seconds to render; Ctrl-C must not wait for it).
func PrepareContext(ctx context.Context, ep sdk.Endpoint, convs []sdk.Conversation, opts PrepareOptions) ([]PreparedRequest, []sdk.InputEntry, error) {
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
		if ci > 0 && ci%1024 == 0 && ctx.Err() != nil {
			// Checked per batch: nothing has been sent yet, so there is
			// nothing to export either.
			return nil, nil, fmt.Errorf("cancelled while preparing request %d of the dataset; nothing was sent: %w", ci, ctx.Err())
		}
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
				Turn:               &conv.Turns[ti],
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
			req.Payload = body
			req.isl = &islCache{}
			if len(conv.Turns) == 1 {
				// Never rendered again (no later turn, no history): the
				// body is the one copy of the prompt the run keeps, and the
				// dataset's copy is let go now, not after the last body is
				// built (at 1M entries the two would not fit together).
				req.Turn = lean(turn)
				convs[ci].Turns[0] = sdk.Turn{}
			}
			reqs = append(reqs, req)
			entry.Payloads = append(entry.Payloads, body)
		}
		inputs = append(inputs, entry)
	}
	return reqs, inputs, nil
}

// lean is a turn reduced to what the send path still reads of a request
// that is never re-rendered (its delay, schedule offset, audio length,
// verbatim payload): its texts, media and rendering inputs are in the body
// now. A turn with nothing left is the shared empty one.
func lean(t sdk.Turn) *sdk.Turn {
	t.Texts, t.TextGroups, t.Images, t.Audios, t.Videos = nil, nil, nil, nil, nil
	t.RawMessages, t.RawTools = nil, nil
	t.MaxTokens, t.Model, t.Role, t.Extra = nil, "", "", nil
	if reflect.ValueOf(t).IsZero() {
		return &emptyTurn
	}
	return &t
}

// emptyTurn is the lean turn of most single-turn requests; read-only.
var emptyTurn sdk.Turn

// modelPicker assigns models to conversations: round robin, or uniformly at
// random from a seeded source (--model-selection-strategy).
func modelPicker(opts PrepareOptions) func(conv int) string {
	if opts.ModelSelection != "random" || len(opts.Models) == 1 {
		return func(conv int) string { return opts.Models[conv%len(opts.Models)] }
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x6d6f64656c))
	return func(int) string { return opts.Models[rng.IntN(len(opts.Models))] }
}
