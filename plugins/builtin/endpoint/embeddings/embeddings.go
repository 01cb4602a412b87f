// Package embeddings is the "embeddings" endpoint: the OpenAI Embeddings API
// (/v1/embeddings), one vector per input text, never streamed.
package embeddings

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type embeddings).
const Name = "embeddings"

// Path is the API path.
const Path = "/v1/embeddings"

// Endpoint formats embeddings requests and parses their responses. It is
// stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the embeddings endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint: AIPerf's embeddings metadata (no
// streaming, no generated tokens, the input is tokenized for ISL).
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return Metadata("Embeddings Metrics")
}

// Metadata is the metadata of an OpenAI-shaped embeddings endpoint with the
// given metrics title (nim_embeddings differs in title and image support).
func Metadata(metricsTitle string) sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:   Path,
		ServiceKind:    "openai",
		TokenizesInput: true,
		MetricsTitle:   metricsTitle,
	}
}
