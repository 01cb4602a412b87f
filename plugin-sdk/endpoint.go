package sdk

// EndpointMetadata describes an endpoint type (category endpoint).
type EndpointMetadata struct {
	EndpointPath      string `json:"endpoint_path" yaml:"endpoint_path"`
	StreamingPath     string `json:"streaming_path,omitempty" yaml:"streaming_path"`
	ServiceKind       string `json:"service_kind" yaml:"service_kind"`
	SupportsStreaming bool   `json:"supports_streaming" yaml:"supports_streaming"`
	ProducesTokens    bool   `json:"produces_tokens" yaml:"produces_tokens"`
	TokenizesInput    bool   `json:"tokenizes_input" yaml:"tokenizes_input"`
	MetricsTitle      string `json:"metrics_title" yaml:"metrics_title"`
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
}

// HistoryEntry is one earlier exchange of a conversation.
type HistoryEntry struct {
	Role string
	Text string
}

// Endpoint formats request bodies and parses responses for one API shape.
// Both methods run outside the timed window.
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
