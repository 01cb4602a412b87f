package grpcplugin

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
)

func f64(v float64) *float64 { return &v }
func i64(v int64) *int64     { return &v }

func sampleExportContext() *sdk.ExportContext {
	start := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	return &sdk.ExportContext{
		ArtifactDir: "/tmp/art", ExportLevel: "records", Streaming: true, AIPerfVersion: "0.4.0",
		BenchmarkID: "b-1", CLICommand: "aiperf profile -m x",
		Files:       sdk.ArtifactFiles{SummaryJSON: "profile_export_aiperf.json", Log: "logs/aiperf.log"},
		Endpoint:    sdk.EndpointMetadata{EndpointPath: "/v1/textgen", ProducesTokens: true, MetricsTitle: "LLM Metrics"},
		InputConfig: map[string]any{"model": "m", "concurrency": float64(4)},
		Inputs:      []sdk.InputEntry{{SessionID: "s0", Payloads: [][]byte{[]byte(`{"a":1}`), []byte("not json")}}},
		Results: &sdk.Results{
			Metrics: []sdk.MetricResult{
				{Tag: "time_to_first_token", Header: "Time to First Token", Unit: "ms",
					Flags: sdk.FlagStreamingTokensOnly, DisplayOrder: 100, Avg: f64(12.5), P99: f64(30), Count: i64(10)},
				{Tag: "output_token_count", Header: "Output Sequence Length", Unit: "tokens", Integer: true,
					Avg: f64(128), Std: f64(math.NaN())},
			},
			ErrorSummary:       []sdk.ErrorCount{{ErrorDetails: sdk.ErrorDetails{Code: 500, Type: "Internal", Message: "x"}, Count: 2}},
			StartTime:          start,
			EndTime:            start.Add(90 * time.Second),
			BenchmarkDurationS: 90,
			CompletedRecords:   10,
		},
	}
}

func TestExportContextRoundTrip(t *testing.T) {
	ec := sampleExportContext()
	b, err := MarshalExportContext(ec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UnmarshalExportContext(b)
	if err != nil {
		t.Fatal(err)
	}
	// NaN is sent as absent; everything else survives, hidden fields included.
	ec.Results.Metrics[1].Std = nil
	if !reflect.DeepEqual(got, ec) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, ec)
	}
	m := got.Results.Metrics[0]
	if m.Tag != "time_to_first_token" || m.Header != "Time to First Token" || m.Flags != sdk.FlagStreamingTokensOnly || m.DisplayOrder != 100 {
		t.Errorf("hidden fields lost: %+v", m)
	}
}

func TestUnmarshalExportContextBadJSON(t *testing.T) {
	if _, err := UnmarshalExportContext([]byte(`{"results":`)); err == nil {
		t.Fatal("want an error for truncated JSON")
	}
	if _, err := MarshalExportContext(nil); err == nil {
		t.Fatal("want an error for a nil context")
	}
}

type exporter struct{ got *sdk.ExportContext }

func (e *exporter) Export(_ context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	e.got = ec
	return []sdk.ExportedFile{{Label: "Textgen Export", Path: ec.ArtifactDir + "/textgen.json"}}, nil
}

func TestExportOverGRPC(t *testing.T) {
	ex := &exporter{}
	c := serve(t, ex)
	b, err := MarshalExportContext(sampleExportContext())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Export(context.Background(), &pluginpb.ExportRequest{ExportContextJson: b})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Files) != 1 || resp.Files[0].Path != "/tmp/art/textgen.json" || resp.Files[0].Label != "Textgen Export" {
		t.Errorf("files = %v", resp.Files)
	}
	if ex.got.Results.Metrics[0].Tag != "time_to_first_token" || ex.got.Results.CompletedRecords != 10 {
		t.Errorf("exporter saw %+v", ex.got.Results)
	}
}
