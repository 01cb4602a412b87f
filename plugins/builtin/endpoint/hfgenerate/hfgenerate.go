// Package hfgenerate is the "huggingface_generate" endpoint: Hugging Face
// Text Generation Inference's native API, /generate for a whole answer and
// /generate_stream for server-sent tokens.
package hfgenerate

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type huggingface_generate).
const Name = "huggingface_generate"

// API paths: streaming is chosen by path, the body is the same.
const (
	Path          = "/generate"
	StreamingPath = "/generate_stream"
)

// Endpoint formats TGI requests and parses their responses. It is stateless
// and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the huggingface_generate endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint: AIPerf's huggingface_generate metadata.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		StreamingPath:     StreamingPath,
		ServiceKind:       "openai",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		MetricsTitle:      "LLM Metrics",
	}
}
