// Package messages is the "messages" endpoint: Anthropic's Messages API
// (/v1/messages), streaming (typed SSE events) and not (a "message"
// object), as AIPerf 0.13's endpoints/anthropic_messages.py.
package messages

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type messages).
const Name = "messages"

// Path is the API path for both streaming and non-streaming requests.
const Path = "/v1/messages"

// AnthropicVersion is the API version every request names.
const AnthropicVersion = "2023-06-01"

// Endpoint formats Messages API requests and parses their responses. It is
// stateless and safe for concurrent use.
type Endpoint struct{}

var (
	_ sdk.Endpoint           = (*Endpoint)(nil)
	_ sdk.RecordParser       = (*Endpoint)(nil)
	_ sdk.HeaderProvider     = (*Endpoint)(nil)
	_ sdk.FirstTokenDetector = (*Endpoint)(nil)
)

// New returns the messages endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint. AIPerf declares image input only
// (audio and video are rejected when formatting).
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
		// AIPerf's consumes_system_message; verbatim message arrays too.
		ConsumesSystemMessage: true,
		SendsRawMessages:      true,
	}
}

// Headers implements sdk.HeaderProvider: Anthropic authenticates with
// x-api-key (no Bearer token) and requires anthropic-version.
func (*Endpoint) Headers(apiKey string) map[string]string {
	h := map[string]string{"anthropic-version": AnthropicVersion}
	if apiKey != "" {
		h["x-api-key"] = apiKey
	}
	return h
}
