// Package live keeps what a live display shows while a run executes: the
// current phase's metric distributions (DDSketch, 1% relative error, exact
// count/min/max/mean), its throughput and its errors by type. It is fed by
// the record pipeline's collector goroutine, never by the senders, and read
// by the UI at its own refresh.
package live

import (
	"math"
	"sync"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// RelativeAccuracy is the sketches' relative error on percentiles.
const RelativeAccuracy = 0.01

// Tags are the metrics a live view shows, in display order, when the run
// measures them.
var Tags = []string{"time_to_first_token", "inter_token_latency", "request_latency", "output_sequence_length"}

const outputTokensTag = "output_sequence_length"

// Tap folds processed records into the current phase's live statistics.
// Add and View may run concurrently.
type Tap struct {
	defs []metrics.Def

	mu        sync.Mutex
	phase     string
	sketches  []*ddsketch.DDSketchWithExactSummaryStatistics
	valid     int64
	outTokens float64
	errIndex  map[string]int
	errs      []sdk.LiveErrorCount
}

// NewTap prepares a tap for the metrics of Tags that cat says apply to the
// run (TTFT and ITL only when streaming, ...).
func NewTap(cat *metrics.Catalog) *Tap {
	t := &Tap{}
	for _, tag := range Tags {
		if cat == nil || !cat.Applies(tag) {
			continue
		}
		if d, ok := cat.Lookup(tag); ok {
			t.defs = append(t.defs, d)
		}
	}
	t.reset("")
	return t
}

func (t *Tap) reset(phase string) {
	t.phase, t.valid, t.outTokens = phase, 0, 0
	t.sketches = make([]*ddsketch.DDSketchWithExactSummaryStatistics, len(t.defs))
	for i := range t.sketches {
		// Only fails for an accuracy outside (0, 1).
		t.sketches[i], _ = ddsketch.NewDefaultDDSketchWithExactSummaryStatistics(RelativeAccuracy)
	}
	t.errIndex, t.errs = map[string]int{}, nil
}

// Add folds one processed record; a record of another phase than the last
// one starts the statistics afresh (warmup, then profiling).
func (t *Tap) Add(rm *sdk.RecordMetrics) {
	if rm == nil || rm.Record == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if rm.Record.Phase != t.phase {
		t.reset(rm.Record.Phase)
	}
	if !rm.Record.Valid() {
		typ := "Unknown"
		if rm.Record.Error != nil && rm.Record.Error.Type != "" {
			typ = rm.Record.Error.Type
		}
		i, ok := t.errIndex[typ]
		if !ok {
			i = len(t.errs)
			t.errIndex[typ] = i
			t.errs = append(t.errs, sdk.LiveErrorCount{Type: typ})
		}
		t.errs[i].Count++
		return
	}
	t.valid++
	for i, d := range t.defs {
		v, ok := rm.Values[d.Tag]
		if !ok {
			continue
		}
		if d.Tag == outputTokensTag && !v.IsList {
			t.outTokens += v.Scalar
		}
		if v.IsList {
			for _, x := range v.List {
				t.add(i, d.ToDisplay(x))
			}
			continue
		}
		t.add(i, d.ToDisplay(v.Scalar))
	}
}

func (t *Tap) add(i int, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	_ = t.sketches[i].Add(v) // only NaN is refused
}

// View returns the statistics of phase (empty when no record of it has been
// processed yet) with the throughputs over elapsed.
func (t *Tap) View(phase string, elapsed time.Duration) (ms []sdk.LiveMetric, reqPerS, tokPerS float64, errs []sdk.LiveErrorCount) {
	t.mu.Lock()
	defer t.mu.Unlock()
	same := phase == t.phase
	for i, d := range t.defs {
		m := sdk.LiveMetric{Tag: d.Tag, Header: d.Header, Unit: string(d.DisplayUnit)}
		if same {
			fill(&m, t.sketches[i])
		}
		ms = append(ms, m)
	}
	if !same {
		return ms, 0, 0, nil
	}
	if s := elapsed.Seconds(); s > 0 {
		reqPerS, tokPerS = float64(t.valid)/s, t.outTokens/s
	}
	return ms, reqPerS, tokPerS, append([]sdk.LiveErrorCount(nil), t.errs...)
}

func fill(m *sdk.LiveMetric, s *ddsketch.DDSketchWithExactSummaryStatistics) {
	n := s.GetCount()
	if n == 0 {
		m.Avg, m.Min, m.Max, m.P50, m.P90, m.P99 = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return
	}
	m.Count = int64(n)
	m.Avg = s.GetSum() / n
	m.Min, _ = s.GetMinValue()
	m.Max, _ = s.GetMaxValue()
	q, err := s.GetValuesAtQuantiles([]float64{0.5, 0.9, 0.99})
	if err != nil {
		m.P50, m.P90, m.P99 = math.NaN(), math.NaN(), math.NaN()
		return
	}
	// The sketch's bucket midpoints can fall outside the exact range.
	for i := range q {
		q[i] = min(max(q[i], m.Min), m.Max)
	}
	m.P50, m.P90, m.P99 = q[0], q[1], q[2]
}

// Source is what the core hands a UI: the engine's progress plus the tap's
// statistics and the telemetry sampler's latest readings.
type Source struct {
	Progress sdk.ProgressSource
	Tap      *Tap
	// GPUs returns the latest GPU readings (nil: none collected).
	GPUs func() []sdk.LiveGPU
	// Servers names the server-metrics sources scraped.
	Servers []string
}

var _ sdk.LiveSource = (*Source)(nil)

// Snapshot implements sdk.ProgressSource.
func (s *Source) Snapshot() sdk.ProgressSnapshot { return s.Progress.Snapshot() }

// Live implements sdk.LiveSource.
func (s *Source) Live() sdk.LiveView {
	v := sdk.LiveView{Progress: s.Progress.Snapshot(), Server: s.Servers, At: time.Now()}
	if f, ok := s.Progress.(interface{ Finished() []sdk.ProgressSnapshot }); ok {
		v.Finished = f.Finished()
	}
	if s.Tap != nil {
		v.Metrics, v.RequestThroughput, v.OutputTokenThroughput, v.Errors = s.Tap.View(v.Progress.Phase, v.Progress.Elapsed)
	}
	if s.GPUs != nil {
		v.GPUs = s.GPUs()
	}
	return v
}
