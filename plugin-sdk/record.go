package sdk

// Phase names of a run.
const (
	PhaseWarmup    = "warmup"
	PhaseProfiling = "profiling"
)

// ErrorDetails describes why a request failed. Code is the HTTP status (or
// 499 for cancellation, 0 for transport errors without a status).
type ErrorDetails struct {
	Code    int    `json:"code,omitempty"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Response is one raw response unit as received: one SSE event (its data
// payload, joined across data: lines) or the whole body of a non-streaming
// response. PerfNs is the monotonic time of the unit's first byte.
type Response struct {
	PerfNs int64  `json:"perf_ns"`
	Event  string `json:"event,omitempty"`
	Data   []byte `json:"data"`
}

// RequestRecord is everything measured about one request. Every *Ns field
// is a monotonic reading on the process clock (core/clock) — including
// CreditIssuedNs and CancellationTimeNs — except TimestampNs, the wall-clock
// epoch time of the request start. Exports convert perf readings to epoch.
type RequestRecord struct {
	ConversationID string `json:"conversation_id"`
	TurnIndex      int    `json:"turn_index"`
	SessionNum     int    `json:"session_num"`
	XRequestID     string `json:"x_request_id"`
	XCorrelationID string `json:"x_correlation_id"`
	Model          string `json:"model"`
	Phase          string `json:"benchmark_phase"`
	WorkerID       string `json:"worker_id"`

	CreditIssuedNs int64 `json:"credit_issued_ns"`
	// ScheduledNs is when the timing strategy meant this request to go out;
	// 0 for closed-loop requests, which have no schedule.
	ScheduledNs int64 `json:"scheduled_ns,omitempty"`
	TimestampNs int64 `json:"timestamp_ns"`
	StartPerfNs int64 `json:"start_perf_ns"`
	// AckPerfNs is when response headers arrived; 0 if they never did.
	AckPerfNs int64 `json:"ack_perf_ns"`
	EndPerfNs int64 `json:"end_perf_ns"`

	Streaming bool       `json:"streaming"`
	Status    int        `json:"status"`
	Responses []Response `json:"responses"`
	// RequestedOutputTokens is the max_tokens sent, if any.
	RequestedOutputTokens *int `json:"requested_output_tokens,omitempty"`

	Error              *ErrorDetails `json:"error,omitempty"`
	WasCancelled       bool          `json:"was_cancelled"`
	CancellationTimeNs int64         `json:"cancellation_time_ns,omitempty"`
}

// Valid reports whether the request succeeded.
func (r *RequestRecord) Valid() bool { return r.Error == nil }

// Usage is the token accounting a server reported. Nil fields were absent,
// which is different from a reported zero.
type Usage struct {
	PromptTokens     *int `json:"prompt_tokens,omitempty"`
	CompletionTokens *int `json:"completion_tokens,omitempty"`
	TotalTokens      *int `json:"total_tokens,omitempty"`
	ReasoningTokens  *int `json:"reasoning_tokens,omitempty"`
}

// ParsedResponse is one response unit after the endpoint parsed it.
// A unit with neither Text nor Reasoning (role-only deltas, usage-only chunks)
// carries no content and is not a "content response".
type ParsedResponse struct {
	PerfNs    int64
	Text      string
	Reasoning string
	Usage     *Usage
}

// HasContent reports whether the unit carries generated text of any kind.
func (p ParsedResponse) HasContent() bool { return p.Text != "" || p.Reasoning != "" }

// ParsedRecord is a request record with its responses parsed and its token
// counts filled in. Nil counts are absent (never zero by default).
type ParsedRecord struct {
	Record    *RequestRecord
	Responses []ParsedResponse
	// InputText is the prompt text that was sent (for ISL).
	InputText string

	InputTokens     *int
	OutputTokens    *int
	ReasoningTokens *int
	// Usage is the last non-empty usage the server reported.
	Usage *Usage
}

// ContentResponses returns the responses that carry generated text.
func (p *ParsedRecord) ContentResponses() []ParsedResponse {
	out := make([]ParsedResponse, 0, len(p.Responses))
	for _, r := range p.Responses {
		if r.HasContent() {
			out = append(out, r)
		}
	}
	return out
}
