package sdk

import "github.com/aiperf-go/aiperf/plugin-sdk/payload"

// EndpointMetadata describes an endpoint type (category endpoint).
type EndpointMetadata struct {
	EndpointPath      string `json:"endpoint_path" yaml:"endpoint_path"`
	StreamingPath     string `json:"streaming_path,omitempty" yaml:"streaming_path"`
	ServiceKind       string `json:"service_kind" yaml:"service_kind"`
	SupportsStreaming bool   `json:"supports_streaming" yaml:"supports_streaming"`
	ProducesTokens    bool   `json:"produces_tokens" yaml:"produces_tokens"`
	TokenizesInput    bool   `json:"tokenizes_input" yaml:"tokenizes_input"`
	MetricsTitle      string `json:"metrics_title" yaml:"metrics_title"`
	// What the API accepts and returns beyond text (AIPerf's endpoint
	// metadata). Supports* enable the media metrics (num_images, rtfx, ...)
	// and tell the dataset which media a turn may carry; ProducesVideos
	// enables the video generation metrics.
	SupportsImages bool `json:"supports_images,omitempty" yaml:"supports_images"`
	SupportsAudio  bool `json:"supports_audio,omitempty" yaml:"supports_audio"`
	SupportsVideos bool `json:"supports_videos,omitempty" yaml:"supports_videos"`
	ProducesImages bool `json:"produces_images,omitempty" yaml:"produces_images"`
	ProducesVideos bool `json:"produces_videos,omitempty" yaml:"produces_videos"`
	// RequiresPolling marks an asynchronous job API (AIPerf's video
	// generation): the transport submits, then polls <url>/<id> until the
	// job completes (TransportRequest.Poll).
	RequiresPolling bool `json:"requires_polling,omitempty" yaml:"requires_polling"`
	// RequiresFormData sends the payload (a JSON object) as
	// multipart/form-data, one field per key in order.
	RequiresFormData bool `json:"requires_form_data,omitempty" yaml:"requires_form_data"`
	// ConsumesSystemMessage says the endpoint sends RequestInfo's
	// SystemMessage and UserContextMessage on the wire (AIPerf's
	// consumes_system_message): --system-prompt and
	// --shared-system-prompt-length are refused on the others, where the
	// text would silently never be sent.
	ConsumesSystemMessage bool `json:"consumes_system_message,omitempty" yaml:"consumes_system_message"`
	// SendsRawMessages says the endpoint sends a turn's RawMessages (and
	// RawTools) verbatim in place of a rendered message; datasets with such
	// turns (mooncake "messages") are refused on the others.
	SendsRawMessages bool `json:"sends_raw_messages,omitempty" yaml:"sends_raw_messages"`
}

// RequestInfo is what an endpoint needs to format one request body.
type RequestInfo struct {
	Model     string
	Streaming bool
	Turn      Turn
	// History holds earlier turns of the same conversation with the
	// assistant's replies (multi-turn chat); empty for single-turn.
	History []HistoryEntry
	// UseLegacyMaxTokens selects "max_tokens" over "max_completion_tokens".
	UseLegacyMaxTokens bool
	// IncludeUsage asks a streaming server for a final usage chunk.
	IncludeUsage bool
	// ExtraInputs is --extra-inputs, merged into the body last (per-turn Extra after it).
	ExtraInputs map[string]any
	// SystemMessage is the conversation's system prompt (--system-prompt,
	// --shared-system-prompt-length), sent ahead of every turn of the
	// conversation where the API puts one (a leading system message, the
	// Responses "instructions", the Anthropic "system"); "" for none.
	SystemMessage string
	// UserContextMessage is the conversation's own context
	// (--user-context-prompt-length), sent as a user message after the
	// system message and before the turns; "" for none.
	UserContextMessage string
}

// InputExtractor is implemented by endpoints whose request bodies the
// generic walk (payload.Extract with the OpenAI content-part types) reads
// wrongly: other part type names, or texts outside the walked fields
// (Responses "instructions", Anthropic "system"). ISL and the media metrics
// count what it returns. It runs off the timed path, once per request.
type InputExtractor interface {
	ExtractInputs(body []byte) (payload.Inputs, error)
}

// HeaderProvider is implemented by endpoints whose API authenticates or
// versions requests with headers of its own (Anthropic's x-api-key and
// anthropic-version). The core calls it once per run; its headers replace
// the "Authorization: Bearer <key>" header --api-key otherwise adds. User
// headers (-H) still win.
type HeaderProvider interface {
	Headers(apiKey string) map[string]string
}

// HistoryEntry is one earlier exchange of a conversation.
type HistoryEntry struct {
	Role string
	Text string
}

// Endpoint formats request bodies and parses responses for one API shape
// (category endpoint). Neither method runs between a request's send and its
// last byte: payloads are rendered ahead of the run (a later turn of a
// multi-turn session between the previous turn's end and its own send, with
// the conversation so far), and responses are parsed by the record pipeline
// after the request ended. Only FirstTokenDetector, when an endpoint
// implements it, runs on the timed path.
type Endpoint interface {
	Metadata() EndpointMetadata
	// FormatPayload returns the exact JSON body to send.
	FormatPayload(req RequestInfo) ([]byte, error)
	// ParseResponse parses one response unit (an SSE event's data or a whole
	// non-streaming body). It returns a zero ParsedResponse (no content, nil
	// usage) for units that carry nothing, such as "[DONE]".
	ParseResponse(data []byte) (ParsedResponse, error)
}

// RecordParser is implemented by endpoints that parse a whole record in one
// call. External plugins implement it so the core makes one call per
// record, never one per chunk; the core prefers it over ParseResponse when
// present. The result has one ParsedResponse per unit, in order, with
// PerfNs copied from the unit.
type RecordParser interface {
	ParseRecord(units []Response) ([]ParsedResponse, error)
}

// FirstTokenDetector is implemented by endpoints that can tell from one
// stream event whether it carries the first generated content. Contract: it
// runs on the timed path (between send and last byte), only for a request
// that holds a prefill-concurrency slot (--prefill-concurrency), on each
// event until it first reports true; it must be cheap, must not block, and
// is never served by an external plugin. An endpoint without it releases
// the slot at the first stream event.
type FirstTokenDetector interface {
	IsFirstToken(data []byte) bool
}
