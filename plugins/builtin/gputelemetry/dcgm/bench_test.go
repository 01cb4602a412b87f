package dcgm

import (
	"io"
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// BenchmarkParse is the dcgm collector's work per sample after the GET:
// the mock's two-GPU DCGM exporter page (about 8 KB) into readings.
func BenchmarkParse(b *testing.B) {
	resp, err := http.Get(mocktest.Start(b, mockserver.Config{Fast: true}) + "/dcgm/metrics")
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if gpus, err := Parse(body); err != nil || len(gpus) != 2 {
			b.Fatalf("parse: %v (%d GPUs)", err, len(gpus))
		}
	}
}
