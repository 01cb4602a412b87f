// Package template is the "template" endpoint: the request body is a
// user's Jinja2 template rendered per turn (--extra-inputs
// payload_template:<file or template>), for servers with an API of their
// own; responses are read with a JMESPath expression (response_field) or by
// recognising embeddings, rankings or text. It follows AIPerf 0.13's
// TemplateEndpoint.
package template

import (
	"sync"
	"sync/atomic"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the endpoint type name (--endpoint-type template).
const Name = "template"

// The --extra-inputs keys the endpoint reads; neither reaches the body.
const (
	KeyPayloadTemplate = "payload_template"
	KeyResponseField   = "response_field"
)

// Endpoint renders request bodies from the configured template and parses
// responses. The template arrives with every FormatPayload call (in
// RequestInfo.ExtraInputs); it is compiled once and cached. Safe for
// concurrent use.
type Endpoint struct {
	mu    sync.Mutex
	cache map[settingsKey]*settings
	// last is the settings of the latest FormatPayload call: ParseResponse
	// reads response_field from it (payloads are rendered before any
	// response is parsed). Nil until then: responses are auto-detected.
	last atomic.Pointer[settings]
}

var _ sdk.Endpoint = (*Endpoint)(nil)

// New returns the template endpoint.
func New() *Endpoint { return &Endpoint{cache: map[settingsKey]*settings{}} }

// Metadata implements sdk.Endpoint. The endpoint has no path of its own
// (AIPerf's endpoint_path null): requests go to the base URL unless
// --custom-endpoint names one.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		ServiceKind:       "openai",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		MetricsTitle:      "LLM Metrics",
		SupportsImages:    true,
		SupportsAudio:     true,
		SupportsVideos:    true,
	}
}
