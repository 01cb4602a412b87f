// Package imagegen is the "image_generation" endpoint: OpenAI Image
// Generation (/v1/images/generations), streaming (partial image events)
// and not. It sends the first text of the turn as the prompt and counts
// the images that come back.
package imagegen

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type image_generation).
const Name = "image_generation"

// Path is the API path for both streaming and non-streaming requests
// (AIPerf has no separate streaming path).
const Path = "/v1/images/generations"

// Endpoint formats image generation requests and parses their responses.
// It is stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the image generation endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint. The server's answer is images, not
// tokens: no TTFT, ITL or OSL; ISL counts the prompt.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		StreamingPath:     Path,
		ServiceKind:       "openai",
		SupportsStreaming: true,
		ProducesTokens:    false,
		TokenizesInput:    true,
		MetricsTitle:      "Image Generation Metrics",
		ProducesImages:    true,
	}
}
