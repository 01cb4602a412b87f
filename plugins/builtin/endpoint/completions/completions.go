// Package completions is the "completions" endpoint: the OpenAI legacy
// Completions API (/v1/completions), streaming and not.
package completions

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type completions).
const Name = "completions"

// Path is the API path for both streaming and non-streaming requests.
const Path = "/v1/completions"

// Endpoint formats completions requests and parses their responses. It is
// stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the completions endpoint.
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
	}
}
