package shardresult

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// This file reads a run directory's per-request export back into an
// accumulator: what `aiperf process-export-files` folds for an exact merge
// and what a shard digests for its result, one code for both.

// Span is the profiling records' span (epoch ns): the earliest request
// start to the latest request end. Throughputs of a merged result divide
// by it, as a single run's divide by its phase.
type Span struct {
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
}

// NewSpan is the empty span, ready to widen.
func NewSpan() Span { return Span{Start: math.MaxInt64, End: math.MinInt64} }

// Widen takes o's bounds into s.
func (s *Span) Widen(o Span) {
	s.Start, s.End = min(s.Start, o.Start), max(s.End, o.End)
}

// exportLine is the part of a profile_export.jsonl line the fold reads.
type exportLine struct {
	Metadata sdk.RecordMetadata         `json:"metadata"`
	Metrics  map[string]json.RawMessage `json:"metrics"`
	Error    *sdk.ErrorDetails          `json:"error"`
}

// FoldFile streams the records file at path into acc, copying every line
// verbatim to w (io.Discard to copy nothing), widens span over the
// profiling records and returns how many it folded. Warmup records are
// copied but not folded: they never reach the profiling results.
func FoldFile(acc *metrics.Accumulator, cat *metrics.Catalog, path string, w io.Writer, span *Span) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	n := 0
	err = artifacts.ScanJSONL(f, path, func(b []byte) error {
		if w != io.Discard {
			if _, err := w.Write(append(b, '\n')); err != nil {
				return fmt.Errorf("copy: %w", err)
			}
		}
		var l exportLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		if l.Metadata.BenchmarkPhase == sdk.PhaseWarmup {
			return nil
		}
		rm, err := recordFromLine(&l, cat)
		if err != nil {
			return err
		}
		md := &l.Metadata
		span.Widen(Span{Start: md.RequestStartNs, End: max(md.RequestEndNs, md.RequestStartNs)})
		acc.Add(rm)
		n++
		return nil
	})
	return n, err
}

// recordFromLine rebuilds what the accumulator reads of a processed record
// from its export line: the timestamps back on this process's monotonic
// clock (clock.PerfNs undoes the export's clock.WallNs) and every value
// back in its metric's unit (the export writes display units).
func recordFromLine(l *exportLine, cat *metrics.Catalog) (*sdk.RecordMetrics, error) {
	md := &l.Metadata
	perf := func(p *int64) int64 {
		if p == nil || *p == 0 {
			return 0
		}
		return clock.PerfNs(*p)
	}
	rec := &sdk.RequestRecord{
		ConversationID: md.ConversationID, TurnIndex: md.TurnIndex, SessionNum: md.SessionNum,
		XRequestID: md.XRequestID, XCorrelationID: md.XCorrelationID, Phase: sdk.PhaseProfiling, WorkerID: md.WorkerID,
		CreditIssuedNs: perf(md.CreditIssuedNs), TimestampNs: md.RequestStartNs,
		StartPerfNs: clock.PerfNs(md.RequestStartNs), AckPerfNs: perf(md.RequestAckNs), EndPerfNs: perf(&md.RequestEndNs),
		Error: l.Error, WasCancelled: md.WasCancelled, CancellationTimeNs: perf(md.CancellationTimeNs),
	}
	values := make(map[string]sdk.MetricValue, len(l.Metrics))
	for tag, raw := range l.Metrics {
		var m struct {
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("metric %s: %w", tag, err)
		}
		mul := 1.0
		if def, ok := cat.Lookup(tag); ok {
			mul = def.FromDisplay(1)
		}
		var one float64
		if err := json.Unmarshal(m.Value, &one); err == nil {
			values[tag] = sdk.MetricValue{Scalar: one * mul}
			continue
		}
		var list []float64
		if err := json.Unmarshal(m.Value, &list); err != nil {
			return nil, fmt.Errorf("metric %s: value %s is neither a number nor a list of numbers", tag, m.Value)
		}
		for i := range list {
			list[i] *= mul
		}
		values[tag] = sdk.MetricValue{IsList: true, List: list}
	}
	return &sdk.RecordMetrics{Record: rec, Values: values}, nil
}

// SummaryCancelled reads was_cancelled from a summary file's bytes (name
// for errors).
func SummaryCancelled(summary []byte, name string) (bool, error) {
	var doc struct {
		WasCancelled bool `json:"was_cancelled"`
	}
	if err := json.Unmarshal(summary, &doc); err != nil {
		return false, fmt.Errorf("parse %s: %w", name, err)
	}
	return doc.WasCancelled, nil
}

// SummaryInputConfig is a summary file's input_config, numbers kept as
// written (json.Number), for a merged summary.
func SummaryInputConfig(summary []byte, name string) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(summary))
	dec.UseNumber()
	var doc struct {
		InputConfig map[string]any `json:"input_config"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	return doc.InputConfig, nil
}

// SummaryGoodput is a summary file's goodput SLOs (input_config.slos:
// metric tag to threshold in its display unit); nil without --goodput.
func SummaryGoodput(summary []byte, name string) (map[string]float64, error) {
	var doc struct {
		InputConfig struct {
			SLOs map[string]float64 `json:"slos"`
		} `json:"input_config"`
	}
	if err := json.Unmarshal(summary, &doc); err != nil {
		return nil, fmt.Errorf("parse input_config.slos of %s: %w", name, err)
	}
	if len(doc.InputConfig.SLOs) == 0 {
		return nil, nil
	}
	return doc.InputConfig.SLOs, nil
}
