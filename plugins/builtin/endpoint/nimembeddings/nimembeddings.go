// Package nimembeddings is the "nim_embeddings" endpoint: NVIDIA NIM's
// embeddings API, the OpenAI one (/v1/embeddings) plus image inputs.
package nimembeddings

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/embeddings"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// Name is the endpoint type name (--endpoint-type nim_embeddings).
const Name = "nim_embeddings"

// Endpoint formats NIM embeddings requests and parses their responses. It
// is stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the nim_embeddings endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint: embeddings' metadata, with images.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	m := embeddings.Metadata("NIM Embeddings Metrics")
	m.SupportsImages = true
	return m
}

// FormatPayload implements sdk.Endpoint. The body is embeddings' with
// "input" built from texts and images: the texts without images, the images
// (data URIs or URLs) without texts, and "<text> <image>" pairs when the
// turn has both, which then must be as many (AIPerf's ValueError
// otherwise). Empty strings are dropped first.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	texts := openai.TurnTexts(&req.Turn)
	images := nonEmpty(req.Turn.Images)
	inputs := texts
	switch {
	case len(texts) > 0 && len(images) > 0:
		if len(texts) != len(images) {
			return nil, fmt.Errorf("%s: format payload: when both texts and images are provided, they must have the same length. Got %d texts and %d images",
				Name, len(texts), len(images))
		}
		for i := range texts {
			inputs[i] = texts[i] + " " + images[i]
		}
	case len(images) > 0:
		inputs = images
	}
	return embeddings.Format(Name, req, inputs)
}

// ParseResponse implements sdk.Endpoint: the embeddings response, read as
// embeddings reads it.
func (*Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	return embeddings.Parse(Name, data)
}

func nonEmpty(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
