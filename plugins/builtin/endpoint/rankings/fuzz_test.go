package rankings

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
)

func FuzzParseNIM(f *testing.F) {
	fuzzcheck.Endpoint(f, NewNIM(), `{"rankings":[{"index":1,"logit":0.5},{"index":0,"logit":-1.2}],"usage":{"prompt_tokens":9,"total_tokens":9}}`, `{"rankings":[]}`)
}

func FuzzParseHFTEI(f *testing.F) {
	fuzzcheck.Endpoint(f, NewHFTEI(), `[{"index":0,"score":0.9},{"index":1,"score":0.1}]`, `[]`)
}

func FuzzParseCohere(f *testing.F) {
	fuzzcheck.Endpoint(f, NewCohere(), `{"id":"r","results":[{"index":0,"relevance_score":0.9}],"meta":{"billed_units":{"search_units":1}}}`, `{"results":[]}`)
}
