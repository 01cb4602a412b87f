package pluginpb

import (
	"bytes"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"google.golang.org/protobuf/proto"
)

func sampleRun() *sdk.PlotRun {
	return &sdk.PlotRun{Dir: "/runs/c4", StartNs: 1_000, SliceDuration: 0.5, GPUCount: 2,
		Config:  sdk.PlotRunConfig{Model: "m", EndpointType: "chat", Streaming: true, Concurrency: 4, RequestRate: 2.5},
		Summary: map[string]sdk.PlotStat{"time_to_first_token": {Unit: "ms", Stats: map[string]float64{"avg": 12.5, "p99": 20}}},
		Requests: []sdk.PlotRequest{
			{StartNs: 1_000, EndNs: 9_000, Metrics: map[string]float64{"time_to_first_token": 12, "request_latency": 80}},
			{StartNs: 2_000, EndNs: 4_000, Error: true, Metrics: map[string]float64{"request_latency": 20}},
			{StartNs: 3_000, EndNs: 3_000, Metrics: map[string]float64{}},
			{StartNs: 4_000, EndNs: 9_500, Metrics: map[string]float64{"time_to_first_token": 0, "request_latency": 55}},
		},
		Timeslices: []sdk.PlotTimeslice{{Index: 0, StartNs: 1_000, EndNs: 500_001_000,
			Metrics: map[string]sdk.PlotStat{"Time to First Token": {Unit: "ms", Stats: map[string]float64{"avg": 6, "std": 6}}}}},
		GPUs: []sdk.PlotGPU{{Index: 1, UUID: "GPU-1", Name: "H100", Source: "http://dcgm:9400/metrics", Times: []float64{-0.1, 0.3},
			Metrics: map[string][]float64{"nvidia_power_usage": {300, 310.5}, "nvidia_gpu_utilization": {80, 90}}}},
		ServerMetrics: []sdk.PlotServerSeries{{Metric: "vllm:num_requests_running", Type: "gauge", Unit: "requests",
			Endpoint: "http://vllm:8000/metrics", Labels: map[string]string{"model_name": "m"}, Stats: map[string]float64{"avg": 3},
			Times: []float64{0.25}, Values: []float64{3}}},
	}
}

// Every field crosses; a metric a request lacks stays absent (not 0), and
// a 0 value stays 0.
func TestPlotCallRoundTrip(t *testing.T) {
	opts := sdk.PlotOptions{Format: "svg", Width: 800, Height: 600, DPI: 200, Theme: "dark"}
	b, err := MarshalPlotCall([]*sdk.PlotRun{sampleRun(), sampleRun()}, true, opts)
	if err != nil {
		t.Fatal(err)
	}
	runs, comparison, gotOpts, err := UnmarshalPlotCall(b)
	if err != nil {
		t.Fatal(err)
	}
	if !comparison || gotOpts != opts || len(runs) != 2 {
		t.Fatalf("comparison %v, options %+v, %d runs", comparison, gotOpts, len(runs))
	}
	if !reflect.DeepEqual(runs[1], sampleRun()) {
		t.Errorf("round trip:\n got %+v\nwant %+v", runs[1], sampleRun())
	}
	if _, ok := runs[0].Requests[1].Metrics["time_to_first_token"]; ok {
		t.Error("the failed request gained a TTFT")
	}
	if v, ok := runs[0].Requests[3].Metrics["time_to_first_token"]; !ok || v != 0 {
		t.Errorf("a TTFT of 0 became %v (present %v)", v, ok)
	}
}

// Requests cross as packed columns: one column per metric name, NaN where
// a request lacks it.
func TestPlotRequestsAreColumns(t *testing.T) {
	m := FromPlotRun(sampleRun()).GetRequests()
	if !reflect.DeepEqual(m.GetStartNs(), []int64{1_000, 2_000, 3_000, 4_000}) || !reflect.DeepEqual(m.GetError(), []bool{false, true, false, false}) {
		t.Errorf("start %v, error %v", m.GetStartNs(), m.GetError())
	}
	if len(m.GetMetrics()) != 2 || m.GetMetrics()[0].GetName() != "request_latency" || m.GetMetrics()[1].GetName() != "time_to_first_token" {
		t.Fatalf("columns %v", m.GetMetrics())
	}
	ttft := m.GetMetrics()[1].GetValues()
	if ttft[0] != 12 || !math.IsNaN(ttft[1]) || !math.IsNaN(ttft[2]) || ttft[3] != 0 {
		t.Errorf("TTFT column %v", ttft)
	}
}

func TestToPlotRunRefusesRaggedColumns(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*PlotRun)
		want   string
	}{
		{"metric", func(m *PlotRun) { m.Requests.Metrics[0].Values = m.Requests.Metrics[0].Values[:3] },
			"run /runs/c4: requests: metric request_latency has 3 values for 4 requests"},
		{"end times", func(m *PlotRun) { m.Requests.EndNs = nil }, "run /runs/c4: requests: 4 start times, 0 end times, 4 error flags"},
		{"gpu", func(m *PlotRun) { m.Gpus[0].Metrics[0].Values = []float64{1} },
			"run /runs/c4: GPU GPU-1: metric nvidia_gpu_utilization has 1 values for 2 sample times"},
		{"server", func(m *PlotRun) { m.ServerMetrics[0].Values = nil }, "run /runs/c4: server metric vllm:num_requests_running: 0 values for 1 times"},
		{"negative gpu count", func(m *PlotRun) { m.GpuCount = -1 }, "run /runs/c4: gpu_count -1: want 0 to 2147483647"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := FromPlotRun(sampleRun())
			tc.mutate(m)
			b, err := proto.Marshal(&PlotCall{Runs: []*PlotRun{m}})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, _, err := UnmarshalPlotCall(b); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, _, _, err := UnmarshalPlotCall([]byte{0xff, 0xff}); err == nil || !strings.Contains(err.Error(), "decoding plot call") {
		t.Errorf("garbage: err = %v", err)
	}
}

// Chunks are at most PlotChunkBytes, and joined they are the data.
func TestChunks(t *testing.T) {
	data := make([]byte, 2*PlotChunkBytes+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var sent []*PlotChunk
	if err := SendChunks(func(c *PlotChunk) error { sent = append(sent, c); return nil }, data); err != nil {
		t.Fatal(err)
	}
	if len(sent) != 3 || len(sent[0].Data) != PlotChunkBytes || len(sent[2].Data) != 123 {
		t.Fatalf("%d chunks", len(sent))
	}
	i := 0
	got, err := RecvChunks(func() (*PlotChunk, error) {
		if i == len(sent) {
			return nil, io.EOF
		}
		i++
		return sent[i-1], nil
	})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("joined %d bytes, err %v", len(got), err)
	}

	// The writer fills chunks across writes of any size and flushes the rest.
	var out []*PlotChunk
	w := &ChunkWriter{Send: func(c *PlotChunk) error { out = append(out, c); return nil }}
	for _, n := range []int{10, PlotChunkBytes, PlotChunkBytes - 10, 5} {
		if k, err := w.Write(data[:n]); err != nil || k != n {
			t.Fatalf("Write(%d) = %d, %v", n, k, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || len(out[0].Data) != PlotChunkBytes || len(out[1].Data) != PlotChunkBytes || len(out[2].Data) != 5 {
		t.Errorf("chunk sizes: %d chunks", len(out))
	}
	if !bytes.Equal(out[0].Data[:10], data[:10]) || !bytes.Equal(out[0].Data[10:], data[:PlotChunkBytes-10]) {
		t.Error("first chunk holds the wrong bytes")
	}
	if err := SendChunks(func(*PlotChunk) error { t.Error("sent a chunk for no data"); return nil }, nil); err != nil {
		t.Fatal(err)
	}
}
