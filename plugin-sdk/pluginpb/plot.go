package pluginpb

// Plots: a run's artifacts (every request's metrics, timeslices, GPU and
// server series) cross as one PlotCall, with series as packed columns of
// doubles, cut into PlotChunks so no message exceeds 1 MiB however large
// the run (gRPC's default limit is 4 MiB; a 100k-request run is ~17 MB).

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"google.golang.org/protobuf/proto"
)

// PlotChunkBytes is the most data one PlotChunk carries.
const PlotChunkBytes = 1 << 20

// MaxPlotBytes bounds a reassembled plot call or image, so a runaway peer
// cannot exhaust memory; a protobuf message cannot exceed 2 GiB anyway.
const MaxPlotBytes = 1 << 30

// FromPlotRun converts a run; per-request metrics become one column per
// metric name (sorted), NaN where a request lacks the metric.
func FromPlotRun(r *sdk.PlotRun) *PlotRun {
	if r == nil {
		return &PlotRun{}
	}
	out := &PlotRun{Dir: r.Dir, Summary: fromPlotStats(r.Summary), StartNs: r.StartNs, SliceDuration: r.SliceDuration,
		GpuCount: int64(r.GPUCount),
		Config: &PlotRunConfig{Model: r.Config.Model, EndpointType: r.Config.EndpointType, Streaming: r.Config.Streaming,
			Concurrency: r.Config.Concurrency, RequestRate: r.Config.RequestRate},
		Requests: fromPlotRequests(r.Requests)}
	for _, ts := range r.Timeslices {
		out.Timeslices = append(out.Timeslices, &PlotTimeslice{Index: int64(ts.Index), StartNs: ts.StartNs, EndNs: ts.EndNs,
			Metrics: fromPlotStats(ts.Metrics)})
	}
	for _, g := range r.GPUs {
		m := &PlotGPU{Index: int64(g.Index), Uuid: g.UUID, Name: g.Name, Source: g.Source, Times: g.Times}
		for _, name := range slices.Sorted(maps.Keys(g.Metrics)) {
			m.Metrics = append(m.Metrics, &PlotColumn{Name: name, Values: g.Metrics[name]})
		}
		out.Gpus = append(out.Gpus, m)
	}
	for _, s := range r.ServerMetrics {
		out.ServerMetrics = append(out.ServerMetrics, &PlotServerSeries{Metric: s.Metric, Type: s.Type, Unit: s.Unit,
			Endpoint: s.Endpoint, Labels: s.Labels, Stats: s.Stats, Times: s.Times, Values: s.Values})
	}
	return out
}

func fromPlotRequests(reqs []sdk.PlotRequest) *PlotRequests {
	n := len(reqs)
	out := &PlotRequests{StartNs: make([]int64, n), EndNs: make([]int64, n), Error: make([]bool, n)}
	cols := map[string][]float64{}
	for i, r := range reqs {
		out.StartNs[i], out.EndNs[i], out.Error[i] = r.StartNs, r.EndNs, r.Error
		for name, v := range r.Metrics {
			c := cols[name]
			if c == nil {
				c = make([]float64, n)
				for j := range c {
					c[j] = math.NaN()
				}
				cols[name] = c
			}
			c[i] = v
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cols)) {
		out.Metrics = append(out.Metrics, &PlotColumn{Name: name, Values: cols[name]})
	}
	return out
}

func fromPlotStats(m map[string]sdk.PlotStat) map[string]*PlotStat {
	if m == nil {
		return nil
	}
	out := make(map[string]*PlotStat, len(m))
	for k, s := range m {
		out[k] = &PlotStat{Unit: s.Unit, Stats: s.Stats}
	}
	return out
}

// ToPlotRun converts a protocol run. Every map it returns is non-nil (as
// aiperf's artifact reader makes them); a NaN in a request's metric column
// means the request lacks the metric. A column whose length differs from
// its series' is an error naming it.
func ToPlotRun(m *PlotRun) (*sdk.PlotRun, error) {
	if m == nil {
		return nil, errors.New("plot run is missing")
	}
	gpuCount := m.GetGpuCount()
	if gpuCount < 0 || gpuCount > math.MaxInt32 {
		return nil, fmt.Errorf("run %s: gpu_count %d: want 0 to %d", m.GetDir(), gpuCount, math.MaxInt32)
	}
	c := m.GetConfig()
	out := &sdk.PlotRun{Dir: m.GetDir(), Summary: toPlotStats(m.GetSummary()), StartNs: m.GetStartNs(),
		SliceDuration: m.GetSliceDuration(), GPUCount: int(gpuCount),
		Config: sdk.PlotRunConfig{Model: c.GetModel(), EndpointType: c.GetEndpointType(), Streaming: c.GetStreaming(),
			Concurrency: c.GetConcurrency(), RequestRate: c.GetRequestRate()}}
	var err error
	if out.Requests, err = toPlotRequests(m.GetRequests()); err != nil {
		return nil, fmt.Errorf("run %s: %w", m.GetDir(), err)
	}
	for _, ts := range m.GetTimeslices() {
		out.Timeslices = append(out.Timeslices, sdk.PlotTimeslice{Index: int(ts.GetIndex()), StartNs: ts.GetStartNs(),
			EndNs: ts.GetEndNs(), Metrics: toPlotStats(ts.GetMetrics())})
	}
	for _, g := range m.GetGpus() {
		gpu := sdk.PlotGPU{Index: int(g.GetIndex()), UUID: g.GetUuid(), Name: g.GetName(), Source: g.GetSource(),
			Times: g.GetTimes(), Metrics: make(map[string][]float64, len(g.GetMetrics()))}
		for _, col := range g.GetMetrics() {
			if len(col.GetValues()) != len(gpu.Times) {
				return nil, fmt.Errorf("run %s: GPU %s: metric %s has %d values for %d sample times",
					m.GetDir(), gpu.UUID, col.GetName(), len(col.GetValues()), len(gpu.Times))
			}
			gpu.Metrics[col.GetName()] = col.GetValues()
		}
		out.GPUs = append(out.GPUs, gpu)
	}
	for _, s := range m.GetServerMetrics() {
		if len(s.GetValues()) != len(s.GetTimes()) {
			return nil, fmt.Errorf("run %s: server metric %s: %d values for %d times", m.GetDir(), s.GetMetric(),
				len(s.GetValues()), len(s.GetTimes()))
		}
		out.ServerMetrics = append(out.ServerMetrics, sdk.PlotServerSeries{Metric: s.GetMetric(), Type: s.GetType(),
			Unit: s.GetUnit(), Endpoint: s.GetEndpoint(), Labels: nonNil(s.GetLabels()), Stats: nonNil(s.GetStats()),
			Times: s.GetTimes(), Values: s.GetValues()})
	}
	return out, nil
}

func toPlotRequests(m *PlotRequests) ([]sdk.PlotRequest, error) {
	n := len(m.GetStartNs())
	if len(m.GetEndNs()) != n || len(m.GetError()) != n {
		return nil, fmt.Errorf("requests: %d start times, %d end times, %d error flags", n, len(m.GetEndNs()), len(m.GetError()))
	}
	cols := m.GetMetrics()
	for _, c := range cols {
		if len(c.GetValues()) != n {
			return nil, fmt.Errorf("requests: metric %s has %d values for %d requests", c.GetName(), len(c.GetValues()), n)
		}
	}
	out := make([]sdk.PlotRequest, n)
	for i := range out {
		r := &out[i]
		r.StartNs, r.EndNs, r.Error = m.StartNs[i], m.EndNs[i], m.Error[i]
		r.Metrics = make(map[string]float64, len(cols))
		for _, c := range cols {
			if v := c.Values[i]; !math.IsNaN(v) {
				r.Metrics[c.Name] = v
			}
		}
	}
	return out, nil
}

func toPlotStats(m map[string]*PlotStat) map[string]sdk.PlotStat {
	out := make(map[string]sdk.PlotStat, len(m))
	for k, s := range m {
		out[k] = sdk.PlotStat{Unit: s.GetUnit(), Stats: nonNil(s.GetStats())}
	}
	return out
}

func nonNil[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// FromPlotOptions converts drawing options.
func FromPlotOptions(o sdk.PlotOptions) *PlotOptions {
	return &PlotOptions{Format: o.Format, Width: int32(o.Width), Height: int32(o.Height), Dpi: int32(o.DPI), Theme: o.Theme}
}

// ToPlotOptions converts protocol drawing options.
func ToPlotOptions(o *PlotOptions) sdk.PlotOptions {
	return sdk.PlotOptions{Format: o.GetFormat(), Width: int(o.GetWidth()), Height: int(o.GetHeight()), DPI: int(o.GetDpi()),
		Theme: o.GetTheme()}
}

// MarshalPlotCall encodes the runs (one for a single-run plot, every run
// with comparison) and the options as a serialized PlotCall.
func MarshalPlotCall(runs []*sdk.PlotRun, comparison bool, opts sdk.PlotOptions) ([]byte, error) {
	call := &PlotCall{Comparison: comparison, Options: FromPlotOptions(opts), Runs: make([]*PlotRun, len(runs))}
	for i, r := range runs {
		call.Runs[i] = FromPlotRun(r)
	}
	b, err := proto.Marshal(call)
	if err != nil {
		return nil, fmt.Errorf("encoding plot call: %w", err)
	}
	return b, nil
}

// UnmarshalPlotCall decodes a serialized PlotCall.
func UnmarshalPlotCall(b []byte) (runs []*sdk.PlotRun, comparison bool, opts sdk.PlotOptions, err error) {
	var call PlotCall
	if err := proto.Unmarshal(b, &call); err != nil {
		return nil, false, opts, fmt.Errorf("decoding plot call: %w", err)
	}
	runs = make([]*sdk.PlotRun, len(call.GetRuns()))
	for i, r := range call.GetRuns() {
		if runs[i], err = ToPlotRun(r); err != nil {
			return nil, false, opts, fmt.Errorf("decoding plot call: %w", err)
		}
	}
	return runs, call.GetComparison(), ToPlotOptions(call.GetOptions()), nil
}

// SendChunks sends data in PlotChunks of at most PlotChunkBytes each (none
// for empty data).
func SendChunks(send func(*PlotChunk) error, data []byte) error {
	for len(data) > 0 {
		n := min(len(data), PlotChunkBytes)
		if err := send(&PlotChunk{Data: data[:n]}); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// RecvChunks reads PlotChunks until the sender closes its side (io.EOF)
// and returns their data joined; more than MaxPlotBytes is an error.
func RecvChunks(recv func() (*PlotChunk, error)) ([]byte, error) {
	var buf []byte
	for {
		c, err := recv()
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf)+len(c.GetData()) > MaxPlotBytes {
			return nil, fmt.Errorf("plot data exceeds %d MiB", MaxPlotBytes>>20)
		}
		buf = append(buf, c.GetData()...)
	}
}

// ChunkWriter is an io.Writer that sends what is written in PlotChunks of
// PlotChunkBytes as they fill; Flush sends the rest.
type ChunkWriter struct {
	Send func(*PlotChunk) error
	buf  []byte
	n    int
}

// Write implements io.Writer.
func (w *ChunkWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, PlotChunkBytes)
		}
		k := min(len(p), PlotChunkBytes-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p, written = p[k:], written+k
		if len(w.buf) == PlotChunkBytes {
			if err := w.Flush(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// Flush sends what is buffered.
func (w *ChunkWriter) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.n+len(w.buf) > MaxPlotBytes {
		return fmt.Errorf("plot image exceeds %d MiB", MaxPlotBytes>>20)
	}
	w.n += len(w.buf)
	// A sent message must not be changed afterwards: start a new buffer.
	err := w.Send(&PlotChunk{Data: w.buf})
	w.buf = nil
	return err
}
