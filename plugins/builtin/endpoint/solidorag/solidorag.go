// Package solidorag is the "solido_rag" endpoint: Solido's RAG service
// (/rag/api/prompt), a list of query texts answered by generated "content",
// streamed as server-sent events when the client accepts them.
package solidorag

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type solido_rag).
const Name = "solido_rag"

// Path is the API path for both streaming and non-streaming requests.
const Path = "/rag/api/prompt"

// Endpoint formats Solido RAG requests and parses their responses. It is
// stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the solido_rag endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint: AIPerf's solido_rag metadata. AIPerf
// has no streaming path for it; StreamingPath repeats Path as for chat.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		StreamingPath:     Path,
		ServiceKind:       "openai",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		MetricsTitle:      "SOLIDO RAG Metrics",
	}
}
