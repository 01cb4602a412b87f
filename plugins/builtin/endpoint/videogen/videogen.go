// Package videogen is the "video_generation" endpoint: the OpenAI/SGLang
// video API (/v1/videos), an asynchronous job. The endpoint formats the
// job's fields and parses the job's state; the transport sends the fields
// as multipart/form-data and follows the job (RequiresFormData,
// RequiresPolling).
package videogen

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Name is the endpoint type name (--endpoint-type video_generation).
const Name = "video_generation"

// Path is the API path jobs are submitted to; they are polled at
// <Path>/<id>.
const Path = "/v1/videos"

// Endpoint formats video generation requests and parses job states. It is
// stateless and safe for concurrent use.
type Endpoint struct{}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the video generation endpoint.
func New() *Endpoint { return &Endpoint{} }

// Metadata implements sdk.Endpoint. No streaming; ISL counts the prompt;
// the server's inference time and peak memory feed the video metrics.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		ServiceKind:       "openai",
		SupportsStreaming: false,
		ProducesTokens:    false,
		TokenizesInput:    true,
		MetricsTitle:      "Video Generation Metrics",
		ProducesVideos:    true,
		RequiresPolling:   true,
		RequiresFormData:  true,
	}
}
