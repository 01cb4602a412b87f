// Package chat is the "chat" endpoint: OpenAI Chat Completions
// (/v1/chat/completions), streaming and not, the default endpoint of AIPerf.
package chat

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type chat).
const Name = "chat"

// Path is the API path for both streaming and non-streaming requests.
const Path = "/v1/chat/completions"

// Endpoint formats chat requests and parses their responses. It is stateless
// and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the chat endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		StreamingPath:     Path,
		ServiceKind:       "openai",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		MetricsTitle:      "LLM Metrics",
		// Content parts carry images, audio and video (AIPerf's chat metadata).
		SupportsAudio:  true,
		SupportsImages: true,
		SupportsVideos: true,
		// AIPerf's consumes_system_message; verbatim message arrays too.
		ConsumesSystemMessage: true,
		SendsRawMessages:      true,
	}
}
