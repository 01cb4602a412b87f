package dcgm

import (
	"testing"

	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// BenchmarkParse is the dcgm collector's work per sample after the GET:
// the mock's two-GPU DCGM exporter page (about 8 KB) into readings.
func BenchmarkParse(b *testing.B) {
	body := mocktest.Page(b, "/dcgm/metrics")
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if gpus, err := Parse(body); err != nil || len(gpus) != 2 {
			b.Fatalf("parse: %v (%d GPUs)", err, len(gpus))
		}
	}
}
