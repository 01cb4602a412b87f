package artifacts

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// The optional files of a run that carry time series, under the names
// AIPerf 0.13's plot loader reads (data_loader.py): each is read when
// present and skipped when absent.
const (
	TimeslicesFile    = "profile_export_aiperf_timeslices.csv"
	GPUTelemetryFile  = "gpu_telemetry_export.jsonl"
	ServerMetricsFile = "server_metrics_export.json"
)

// legacyGPUFields maps AIPerf's pre-namespacing telemetry field names to
// today's (NVIDIA_TELEMETRY_FIELD_ALIASES); AIPerf's loader aliases them
// so old files plot too.
var legacyGPUFields = map[string]string{
	"gpu_power_usage":     "nvidia_power_usage",
	"energy_consumption":  "nvidia_energy_consumption",
	"gpu_utilization":     "nvidia_gpu_utilization",
	"mem_utilization":     "nvidia_memory_utilization",
	"gpu_memory_used":     "nvidia_memory_used",
	"gpu_temperature":     "nvidia_temperature",
	"decoder_utilization": "nvidia_decoder_utilization",
	"encoder_utilization": "nvidia_encoder_utilization",
	"jpg_utilization":     "nvidia_jpg_utilization",
	"sm_utilization":      "nvidia_sm_utilization",
	"xid_errors":          "nvidia_xid_errors",
	"power_violation":     "nvidia_power_violation",
}

// openOptional opens path; a missing file is (nil, nil).
func openOptional(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return f, nil
}

// readTimeslices streams the long-format timeslice CSV
// (Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value, one stat a row) into
// one entry per window. Start_NS and End_NS are optional, as AIPerf's
// loader needs only the other five columns.
func readTimeslices(path string) ([]sdk.PlotTimeslice, error) {
	f, err := openOptional(path)
	if f == nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil // an empty file: no windows
	}
	if err != nil {
		return nil, csvError(path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	for _, want := range []string{"Timeslice", "Metric", "Unit", "Stat", "Value"} {
		if _, ok := col[want]; !ok {
			return nil, fmt.Errorf("%s:1: header %q lacks column %s (want Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value)",
				path, strings.Join(header, ","), want)
		}
	}
	byIndex := map[int]*sdk.PlotTimeslice{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(path, err)
		}
		line, _ := r.FieldPos(0)
		field := func(name string) string { return rec[col[name]] }
		idx, err := strconv.Atoi(field("Timeslice"))
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("%s:%d: Timeslice %q is not a slice index", path, line, field("Timeslice"))
		}
		v, err := strconv.ParseFloat(field("Value"), 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: Value %q is not a number", path, line, field("Value"))
		}
		ts := byIndex[idx]
		if ts == nil {
			ts = &sdk.PlotTimeslice{Index: idx, Metrics: map[string]sdk.PlotStat{}}
			for _, b := range []struct {
				name string
				dst  *int64
			}{{"Start_NS", &ts.StartNs}, {"End_NS", &ts.EndNs}} {
				if i, ok := col[b.name]; ok {
					if *b.dst, err = strconv.ParseInt(rec[i], 10, 64); err != nil {
						return nil, fmt.Errorf("%s:%d: %s %q is not an integer", path, line, b.name, rec[i])
					}
				}
			}
			byIndex[idx] = ts
		}
		name := field("Metric")
		st, ok := ts.Metrics[name]
		if !ok {
			st = sdk.PlotStat{Unit: field("Unit"), Stats: map[string]float64{}}
			ts.Metrics[name] = st
		}
		st.Stats[field("Stat")] = v
	}
	out := make([]sdk.PlotTimeslice, 0, len(byIndex))
	for _, ts := range byIndex {
		out = append(out, *ts)
	}
	slices.SortFunc(out, func(a, b sdk.PlotTimeslice) int { return cmp.Compare(a.Index, b.Index) })
	return out, nil
}

func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %w", path, pe.Line, pe.Err)
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// gpuLine is one TelemetryRecord line of gpu_telemetry_export.jsonl.
type gpuLine struct {
	Index       *int                `json:"gpu_index"`
	UUID        string              `json:"gpu_uuid"`
	Name        string              `json:"gpu_model_name"`
	TimestampNs *int64              `json:"timestamp_ns"`
	Source      string              `json:"telemetry_source_url"`
	Data        map[string]*float64 `json:"telemetry_data"`
}

// gpuAcc collects one GPU's samples with absolute stamps until the run's
// origin is known.
type gpuAcc struct {
	gpu sdk.PlotGPU
	ns  []int64
}

// readGPUTelemetry streams the JSONL, a line per GPU per sample, into one
// series per (source, GPU UUID, index) with every field's values aligned to
// the samples. Stamps stay absolute (Times are filled by setTimes).
func readGPUTelemetry(path string) ([]*gpuAcc, error) {
	f, err := openOptional(path)
	if f == nil {
		return nil, err
	}
	defer f.Close()
	byKey := map[string]*gpuAcc{}
	var order []*gpuAcc
	err = ScanJSONL(f, path, func(line []byte) error {
		var l gpuLine
		if err := json.Unmarshal(line, &l); err != nil {
			return err
		}
		switch {
		case l.Index == nil:
			return errors.New("no gpu_index")
		case l.TimestampNs == nil:
			return errors.New("no timestamp_ns")
		}
		key := l.Source + "\x00" + l.UUID + "\x00" + strconv.Itoa(*l.Index)
		g := byKey[key]
		if g == nil {
			g = &gpuAcc{gpu: sdk.PlotGPU{Index: *l.Index, UUID: l.UUID, Name: l.Name, Source: l.Source,
				Metrics: map[string][]float64{}}}
			byKey[key] = g
			order = append(order, g)
		}
		n := len(g.ns)
		g.ns = append(g.ns, *l.TimestampNs)
		for name, v := range l.Data {
			if alias, ok := legacyGPUFields[name]; ok {
				if _, both := l.Data[alias]; both {
					continue // the current name wins, as AIPerf's loader
				}
				name = alias
			}
			vals := g.gpu.Metrics[name]
			for len(vals) < n {
				vals = append(vals, math.NaN()) // the field starts late
			}
			x := math.NaN()
			if v != nil {
				x = *v
			}
			g.gpu.Metrics[name] = append(vals, x)
		}
		for name, vals := range g.gpu.Metrics {
			if len(vals) == n { // absent from this sample
				g.gpu.Metrics[name] = append(vals, math.NaN())
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(order, func(a, b *gpuAcc) int {
		return cmp.Or(cmp.Compare(a.gpu.Source, b.gpu.Source), cmp.Compare(a.gpu.Index, b.gpu.Index))
	})
	return order, nil
}

// serverDoc is the part of server_metrics_export.json a plot reads.
type serverDoc struct {
	Metrics map[string]struct {
		Type   string `json:"type"`
		Unit   string `json:"unit"`
		Series []struct {
			Endpoint   string            `json:"endpoint_url"`
			Labels     map[string]string `json:"labels"`
			Stats      map[string]any    `json:"stats"`
			Timeslices []struct {
				StartNs int64    `json:"start_ns"`
				EndNs   int64    `json:"end_ns"`
				Avg     *float64 `json:"avg"`
				Rate    *float64 `json:"rate"`
			} `json:"timeslices"`
		} `json:"series"`
	} `json:"metrics"`
}

// serverAcc is one series with absolute slice midpoints.
type serverAcc struct {
	s  sdk.PlotServerSeries
	ns []int64
}

// readServerMetrics reads the series that have timeslices: a value per
// slice at its midpoint, as AIPerf's _load_server_metrics_json (a
// counter's rate, a gauge's or histogram's avg; null values are NaN).
func readServerMetrics(path string) ([]*serverAcc, error) {
	f, err := openOptional(path)
	if f == nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var doc serverDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, jsonErrorLine(b, err), err)
	}
	var out []*serverAcc
	for name, m := range doc.Metrics {
		for _, s := range m.Series {
			if len(s.Timeslices) == 0 {
				continue
			}
			a := &serverAcc{s: sdk.PlotServerSeries{Metric: name, Type: m.Type, Unit: m.Unit, Endpoint: s.Endpoint,
				Labels: s.Labels, Stats: map[string]float64{}}}
			for k, v := range s.Stats {
				if x, ok := v.(float64); ok {
					a.s.Stats[k] = x
				}
			}
			for _, t := range s.Timeslices {
				v := t.Avg
				if m.Type == "counter" {
					v = t.Rate
				}
				x := math.NaN()
				if v != nil {
					x = *v
				}
				a.ns = append(a.ns, t.StartNs+(t.EndNs-t.StartNs)/2)
				a.s.Values = append(a.s.Values, x)
			}
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(x, y *serverAcc) int {
		return cmp.Or(cmp.Compare(x.s.Metric, y.s.Metric), cmp.Compare(x.s.Endpoint, y.s.Endpoint),
			cmp.Compare(labelKey(x.s.Labels), labelKey(y.s.Labels)))
	})
	return out, nil
}

func labelKey(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + l[k] + ",")
	}
	return b.String()
}

// jsonErrorLine is the 1-based line of a decoding error's offset.
func jsonErrorLine(b []byte, err error) int {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return 1
	}
	off = min(max(off, 0), int64(len(b)))
	return 1 + bytes.Count(b[:off], []byte{'\n'})
}

// seconds is ns relative to origin in seconds.
func seconds(ns, origin int64) float64 { return float64(ns-origin) / 1e9 }

// readSeries reads the run's optional time-series files into run, with
// times relative to run.StartNs (set here when the run has no requests).
func readSeries(dir string, run *sdk.PlotRun) error {
	var err error
	if run.Timeslices, err = readTimeslices(filepath.Join(dir, TimeslicesFile)); err != nil {
		return err
	}
	gpus, err := readGPUTelemetry(filepath.Join(dir, GPUTelemetryFile))
	if err != nil {
		return err
	}
	server, err := readServerMetrics(filepath.Join(dir, ServerMetricsFile))
	if err != nil {
		return err
	}
	if run.StartNs == 0 { // no requests: the first sample is the origin
		var all []int64
		for _, g := range gpus {
			all = append(all, g.ns...)
		}
		for _, s := range server {
			all = append(all, s.ns...)
		}
		if len(all) > 0 {
			run.StartNs = slices.Min(all)
		}
	}
	for _, g := range gpus {
		g.gpu.Times = make([]float64, len(g.ns))
		for i, ns := range g.ns {
			g.gpu.Times[i] = seconds(ns, run.StartNs)
		}
		run.GPUs = append(run.GPUs, g.gpu)
	}
	for _, s := range server {
		s.s.Times = make([]float64, len(s.ns))
		for i, ns := range s.ns {
			s.s.Times[i] = seconds(ns, run.StartNs)
		}
		run.ServerMetrics = append(run.ServerMetrics, s.s)
	}
	return nil
}
