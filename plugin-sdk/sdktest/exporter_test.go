package sdktest

import (
	"testing"

	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

func TestDataExporterAcceptsConformingExporter(t *testing.T) {
	runSuite(t, func(tb testing.TB) { DataExporter(tb, &fixtures.Exporter{}) }).wantClean(t)
}

func TestDataExporterReportsEachViolation(t *testing.T) {
	tests := []struct {
		fault string
		want  []string
	}{
		{fixtures.DEReportsUnwritten, []string{"fixture_summary.json", "the reported file does not exist"}},
		{fixtures.DEWritesOutside, []string{"fixture_summary.json", "lies outside the artifact directory"}},
		{fixtures.DEWritesEmpty, []string{"fixture_summary.json", "is empty"}},
		{fixtures.DENoLabel, []string{"has no label"}},
		{fixtures.DEPanicsOnNoMetrics, []string{"Export(run without metrics) panicked", "index out of range"}},
		{fixtures.DEFails, []string{"Export(representative run) returned error: fixture: export failed"}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			ex := &fixtures.Exporter{Fault: tc.fault, OutsideDir: t.TempDir()}
			r := runSuite(t, func(tb testing.TB) { DataExporter(tb, ex) })
			r.wantReport(t, tc.want...)
		})
	}
}

func TestSampleExportContextCrossesTheWire(t *testing.T) {
	// GRPCPlugin sends this context as JSON; it must encode.
	ec := sampleExportContext(t.TempDir())
	if len(ec.Results.Metrics) != 4 || ec.Results.Metrics[1].P99 == nil || ec.Results.Metrics[3].P50 != nil {
		t.Fatalf("sample metrics changed shape: %+v", ec.Results.Metrics)
	}
	doc, err := grpcplugin.MarshalExportContext(ec)
	if err != nil {
		t.Fatal(err)
	}
	back, err := grpcplugin.UnmarshalExportContext(doc)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := back.Results.Metric("request_latency"); !ok || *m.P99 != 405 || len(back.Inputs) != 2 {
		t.Errorf("round trip lost data: request_latency %+v (found %v), %d inputs", m, ok, len(back.Inputs))
	}
}
