package randompool

import (
	"testing"

	"github.com/aiperf-go/aiperf/internal/fuzzcheck"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func FuzzLoad(f *testing.F) {
	fuzzcheck.Loader(f, New(), "pool.jsonl", sdk.DatasetOptions{RandomSeed: 5, NumEntries: 3}, nil,
		`{"text": "alpha", "output_length": 8}`+"\n"+`{"text": "beta", "extra": {"top_k": 5}}`,
		`{"texts": ["a", "b"]}`, `{"text": "x", "timestamp": 5}`, `{"image": "data:image/png;base64,iVBORw0KGgo="}`)
}
