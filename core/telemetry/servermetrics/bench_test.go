package servermetrics

import (
	"testing"

	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// BenchmarkParseAndStore is the sampler's work per server-metrics scrape
// after the GET: parse the mock's vLLM-style /metrics page (about 7 KB)
// and fold it into the store. It runs every 333 ms per source, off the
// timed path.
func BenchmarkParseAndStore(b *testing.B) {
	body := mocktest.Page(b, "/metrics")
	b.SetBytes(int64(len(body)))
	st := NewStore("http://mock/metrics")
	b.ReportAllocs()
	var ns int64
	for b.Loop() {
		fams, err := Parse(body)
		if err != nil || len(fams) == 0 {
			b.Fatalf("parse: %v (%d families)", err, len(fams))
		}
		ns += 333e6
		st.Add(ns, 1e6, body, fams)
	}
}
