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
	// RetryAfter is the Retry-After header of a 429 or 503 response, as
	// the server sent it (seconds or an HTTP date); "" otherwise. Not part
	// of the error's identity: the error summary groups without it.
	RetryAfter string `json:"retry_after,omitempty"`
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

	// RequestHeaders and RequestBody are what the engine sent: every
	// header, credentials included and NOT redacted (a writer must redact
	// them: the raw exporter does), and the exact body bytes. Both are nil
	// for a request that was never sent (a later turn whose payload could
	// not be rendered). Read-only; never serialized.
	RequestHeaders map[string]string `json:"-"`
	RequestBody    []byte            `json:"-"`

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

	// HTTPTrace is the request's HTTP lifecycle as the transport saw it on
	// the connection; nil when no response arrived (the request failed
	// before response headers) or the transport does not trace.
	HTTPTrace *HTTPTrace `json:"http_trace,omitempty"`
}

// HTTPTrace is one request's HTTP lifecycle: AIPerf's aiohttp trace data
// (AioHttpTraceData), from which the http_req_* metrics are computed
// (docs/METRICS.md §2.3). Stamps are monotonic readings on the process clock
// (core/clock); 0 means the event did not happen (a reused connection has no
// DNS or connect stamps). Counters count what AIPerf counts: request and
// response body bytes, not the request line, headers or chunk framing.
type HTTPTrace struct {
	// RequestSendStartNs is when the transport took the request, before it
	// asked the pool for a connection (aiohttp's on_request_start): the
	// sending phase therefore includes getting the connection, as in AIPerf.
	RequestSendStartNs int64 `json:"request_send_start_perf_ns"`

	// PoolWaitStartNs..PoolWaitEndNs is the wait for a connection: from
	// asking the pool to holding a pooled connection, or to the start of
	// opening a new one (aiohttp's connection_queued_start/end).
	PoolWaitStartNs int64 `json:"connection_pool_wait_start_perf_ns,omitempty"`
	PoolWaitEndNs   int64 `json:"connection_pool_wait_end_perf_ns,omitempty"`
	// ConnectionReused reports a connection taken from the pool rather than
	// opened for this request (aiohttp's connection_reuseconn).
	ConnectionReused bool `json:"connection_reused"`
	// DNSLookupStartNs..DNSLookupEndNs is the host name's resolution for a
	// new connection; both 0 for an IP address or a reused connection.
	DNSLookupStartNs int64 `json:"dns_lookup_start_perf_ns,omitempty"`
	DNSLookupEndNs   int64 `json:"dns_lookup_end_perf_ns,omitempty"`
	// TCPConnectStartNs..TCPConnectEndNs is the opening of a new connection
	// (aiohttp's connection_create_start/end): name resolution, TCP connect
	// and, for https, the TLS handshake, until the request holds it.
	TCPConnectStartNs int64 `json:"tcp_connect_start_perf_ns,omitempty"`
	TCPConnectEndNs   int64 `json:"tcp_connect_end_perf_ns,omitempty"`
	// TLSHandshakeStartNs..TLSHandshakeEndNs is the TLS part of it (ours:
	// aiohttp does not separate it).
	TLSHandshakeStartNs int64 `json:"tls_handshake_start_perf_ns,omitempty"`
	TLSHandshakeEndNs   int64 `json:"tls_handshake_end_perf_ns,omitempty"`

	// RequestHeadersSentNs is when the request line and headers were
	// written, RequestSendEndNs when the whole request was.
	RequestHeadersSentNs int64 `json:"request_headers_sent_perf_ns,omitempty"`
	RequestSendEndNs     int64 `json:"request_send_end_perf_ns,omitempty"`
	// RequestChunks counts the writes of request body data to the
	// connection, RequestBytes the body bytes written.
	RequestChunks int64 `json:"request_chunks_count"`
	RequestBytes  int64 `json:"request_bytes_total"`

	// ResponseHeadersReceivedNs is when the response headers had been read
	// (the record's AckPerfNs).
	ResponseHeadersReceivedNs int64 `json:"response_headers_received_perf_ns,omitempty"`
	// ResponseReceiveStartNs and ResponseReceiveEndNs are the first and last
	// body chunk's arrival. A streamed body counts one chunk per read that
	// returned data; a whole body read at once (non-streaming, errors) is one
	// chunk at its end, as aiohttp's read() reports it.
	ResponseReceiveStartNs int64 `json:"response_receive_start_perf_ns,omitempty"`
	ResponseReceiveEndNs   int64 `json:"response_receive_end_perf_ns,omitempty"`
	ResponseChunks         int64 `json:"response_chunks_count"`
	ResponseBytes          int64 `json:"response_bytes_total"`
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
	// Result is a non-text result the unit carries (embeddings, rankings,
	// images, a video job). A unit with one counts as content, text or not.
	Result *Result
}

// HasContent reports whether the unit carries generated content: text,
// reasoning or a non-text result.
func (p ParsedResponse) HasContent() bool {
	return p.Text != "" || p.Reasoning != "" || p.Result != nil
}

// Result kinds.
const (
	ResultEmbeddings = "embeddings"
	ResultRankings   = "rankings"
	ResultImages     = "images"
	ResultVideo      = "video"
)

// Result is what a non-text API returned in one response unit.
type Result struct {
	// Kind is one of the Result* kinds.
	Kind string
	// Count is how many items came back: vectors, ranked passages, images.
	Count int
	// Video is the job state of a video generation response.
	Video *VideoJob
}

// VideoJob is a video generation job as its API reports it.
type VideoJob struct {
	ID     string
	Status string
	// InferenceTimeS and PeakMemoryMB feed video_inference_time and
	// video_peak_memory; nil when the server does not report them.
	InferenceTimeS *float64
	PeakMemoryMB   *float64
}

// ParsedRecord is a request record with its responses parsed and its token
// counts filled in. Nil counts are absent (never zero by default).
type ParsedRecord struct {
	Record    *RequestRecord
	Responses []ParsedResponse
	// InputText is the prompt text that was sent (for ISL): the texts the
	// body carried, joined with spaces (payload.Inputs).
	InputText string
	// InputImages, InputAudios and InputVideos count the media parts the
	// body carried (num_images, ...).
	InputImages, InputAudios, InputVideos int
	// AudioDurationS is the length of the turn's first audio clip
	// (audio_duration, rtfx); nil when unknown.
	AudioDurationS *float64

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
