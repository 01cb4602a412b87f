package sdktest

import (
	"testing"

	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

// The suite has no hot path; these show what it costs a plugin author's
// test run: the in-process endpoint checks, and a whole out-of-process run
// (start, handshake, every check, kill).

func BenchmarkEndpointChecks(b *testing.B) {
	ep := &fixtures.Endpoint{}
	for b.Loop() {
		Endpoint(b, ep, fixtureCase)
	}
}

func BenchmarkGRPCPluginAllCategories(b *testing.B) {
	if fixtureBinary == "" {
		b.Skip(fixtureSkip)
	}
	sample := writeSample(b)
	for b.Loop() {
		// runSuite kills the process at the end of each run.
		r := runSuite(b, func(tb testing.TB) {
			GRPCPlugin(tb, fixtureBinary, WithEnv("SDKTEST_PLUGIN_MODE=all"), WithEndpointCase(fixtureCase), WithDatasetSample(sample))
		})
		if fs := r.all(); len(fs) > 0 {
			b.Fatalf("the suite reported failures: %q", fs)
		}
	}
}
