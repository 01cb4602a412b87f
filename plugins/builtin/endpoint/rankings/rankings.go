// Package rankings holds the three reranking endpoints AIPerf ships: NVIDIA
// NIM ("nim_rankings", /v1/ranking), Hugging Face TEI ("hf_tei_rankings",
// /rerank) and Cohere ("cohere_rankings", /v2/rerank). Each sends one query
// and the passages to rank, taken from the turn's text groups "query" (or
// "queries") and "passages", and none streams.
package rankings

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Endpoint type names (--endpoint-type).
const (
	NIMName    = "nim_rankings"
	HFTEIName  = "hf_tei_rankings"
	CohereName = "cohere_rankings"
)

// API paths.
const (
	NIMPath    = "/v1/ranking"
	HFTEIPath  = "/rerank"
	CoherePath = "/v2/rerank"
)

// Endpoint formats rankings requests and parses their responses for one of
// the three APIs. It is stateless and safe for concurrent use.
type Endpoint struct {
	name         string
	path         string
	metricsTitle string
	// sendsModel is false for TEI, whose body has no model.
	sendsModel bool
	// build sets the API's fields on b.body, before the extras.
	build func(b *builder)
	// count returns how many ranked items a decoded response carries; 0
	// for none.
	count func(u *unit) (int, error)
}

var _ sdk.Endpoint = (*Endpoint)(nil)

// NewNIM returns the nim_rankings endpoint:
// {"model","query":{"text"},"passages":[{"text"},...]} answered by
// {"rankings":[...]}.
func NewNIM() *Endpoint {
	return &Endpoint{name: NIMName, path: NIMPath, metricsTitle: "Rankings Metrics", sendsModel: true, build: buildNIM, count: countNIM}
}

// NewHFTEI returns the hf_tei_rankings endpoint: {"query","texts":[...]}
// (no model) answered by a top-level list or {"results":[...]}.
func NewHFTEI() *Endpoint {
	return &Endpoint{name: HFTEIName, path: HFTEIPath, metricsTitle: "Ranking Metrics", build: buildHFTEI, count: countHFTEI}
}

// NewCohere returns the cohere_rankings endpoint:
// {"model","query","documents":[...]} answered by {"results":[...]}.
func NewCohere() *Endpoint {
	return &Endpoint{name: CohereName, path: CoherePath, metricsTitle: "Ranking Metrics", sendsModel: true, build: buildCohere, count: countCohere}
}

// Metadata implements sdk.Endpoint: AIPerf's metadata for the API (no
// streaming, no generated tokens).
func (e *Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:   e.path,
		ServiceKind:    "openai",
		TokenizesInput: true,
		MetricsTitle:   e.metricsTitle,
	}
}
