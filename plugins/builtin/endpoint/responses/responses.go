// Package responses is the "responses" endpoint: the OpenAI Responses API
// (/v1/responses), streaming (typed SSE events) and not (a "response"
// object), as AIPerf 0.13's endpoints/openai_responses.py.
package responses

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type responses).
const Name = "responses"

// Path is the API path for both streaming and non-streaming requests.
const Path = "/v1/responses"

// Endpoint formats Responses API requests and parses their responses. It is
// stateless and safe for concurrent use.
type Endpoint struct{}

var (
	_ sdk.Endpoint           = (*Endpoint)(nil)
	_ sdk.RecordParser       = (*Endpoint)(nil)
	_ sdk.FirstTokenDetector = (*Endpoint)(nil)
)

// New returns the responses endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint. AIPerf declares image and audio input
// (video is rejected when formatting).
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		StreamingPath:     Path,
		ServiceKind:       "openai",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		MetricsTitle:      "LLM Metrics",
		SupportsImages:    true,
		SupportsAudio:     true,
		// AIPerf's consumes_system_message; verbatim message arrays too.
		ConsumesSystemMessage: true,
		SendsRawMessages:      true,
	}
}
