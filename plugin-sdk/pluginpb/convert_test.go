package pluginpb

import (
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"google.golang.org/protobuf/proto"
)

// roundTrip sends m through the wire format, as every call does.
func roundTrip[M proto.Message](t *testing.T, m M, into M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
	return into
}

func TestMetricSpecsRoundTrip(t *testing.T) {
	want := []sdk.MetricSpec{
		{Tag: "answer_characters", Header: "Answer Characters", ShortHeader: "Chars", Unit: "characters", Integer: true},
		{Tag: "inter_chunk_gap", Header: "Inter Chunk Gap", Unit: "ns", DisplayUnit: "ms", List: true,
			Flags: sdk.FlagStreamingTokensOnly | sdk.FlagPercentileIncludesFailedRequests, DisplayOrder: -5,
			Requires: []string{"time_to_first_token", "request_latency"}},
		{Tag: "ordered", Header: "Ordered", Unit: "tokens/sec", Flags: sdk.FlagLargerIsBetter, DisplayOrder: 850},
	}
	d := roundTrip(t, &DescribeResponse{Metrics: FromMetricSpecs(want)}, &DescribeResponse{})
	if got := ToMetricSpecs(d.GetMetrics()); !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if FromMetricSpecs(nil) != nil || ToMetricSpecs(nil) != nil {
		t.Error("no metrics must stay nil")
	}
	if got := ToMetricSpecs([]*MetricSpec{nil, {Tag: "x"}}); len(got) != 1 || got[0].Tag != "x" {
		t.Errorf("nil entries: %+v", got)
	}
}

func TestRunInfoRoundTrip(t *testing.T) {
	want := sdk.RunInfo{
		Endpoint:  sdk.EndpointMetadata{EndpointPath: "/v1/chat/completions", ServiceKind: "openai", ProducesTokens: true},
		Streaming: true, Goodput: map[string]float64{"time_to_first_token": 150},
		Models: []string{"a", "b"}, Seed: -42, ArtifactDir: "/tmp/artifacts/run1",
	}
	got := ToRunInfo(roundTrip(t, FromRunInfo(want), &RunInfo{}))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// Built-in-only facts do not cross the protocol.
	withLocal := want
	withLocal.Phase, withLocal.MaxConcurrency = "profiling", 8
	if got := ToRunInfo(FromRunInfo(withLocal)); got.Phase != "" || got.MaxConcurrency != 0 {
		t.Errorf("phase/max concurrency crossed: %+v", got)
	}
}

func TestDatasetOptionsRoundTrip(t *testing.T) {
	want := sdk.DatasetOptions{Models: []string{"a", "b"}, NumEntries: 100, InputTokensMean: 550, InputTokensStddev: 1.5,
		OutputTokensMean: 64, OutputTokensStddev: 2.5, RandomSeed: -42, InputFile: "/data/t.jsonl",
		CustomDatasetType: "mooncake_trace"}
	m := roundTrip(t, &LoadDatasetRequest{Path: "/data/t.jsonl", Options: FromDatasetOptions(want)}, &LoadDatasetRequest{})
	if got := ToDatasetOptions(m.GetOptions()); !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// block_size stays on the wire for older peers but is no dataset option:
	// the mooncake_trace loader reads it from its own settings.
	if bs := m.GetOptions().GetBlockSize(); bs != 0 {
		t.Errorf("block_size = %d, want it left unset", bs)
	}
	old := &DatasetOptions{NumEntries: 3, BlockSize: 16}
	if got := ToDatasetOptions(roundTrip(t, old, &DatasetOptions{})); !reflect.DeepEqual(got, sdk.DatasetOptions{NumEntries: 3}) {
		t.Errorf("a peer's block_size must be ignored: %+v", got)
	}
}
