// Package chatembeddings is the "chat_embeddings" endpoint: a chat
// completions body (messages with text and image parts) posted to
// /v1/embeddings, which is how vLLM serves multimodal embedding models.
package chatembeddings

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
)

// Name is the endpoint type name (--endpoint-type chat_embeddings).
const Name = "chat_embeddings"

// Path is the API path.
const Path = "/v1/embeddings"

// Endpoint formats chat-shaped embeddings requests and parses their
// responses. It is stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the chat_embeddings endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint: AIPerf's chat_embeddings metadata
// (images, no streaming, no generated tokens).
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:   Path,
		ServiceKind:    "openai",
		TokenizesInput: true,
		MetricsTitle:   "Embeddings Metrics",
		SupportsImages: true,
		// Chat's body: the system prompt and verbatim messages go through.
		ConsumesSystemMessage: true,
		SendsRawMessages:      true,
	}
}

// FormatPayload implements sdk.Endpoint: exactly chat's body. The endpoint
// does not stream, so "stream" is false whatever RequestInfo.Streaming says
// (AIPerf turns --streaming off for it); an --extra-inputs "stream" still
// wins, as for chat.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	req.Streaming = false
	return chat.Format(Name, req)
}
