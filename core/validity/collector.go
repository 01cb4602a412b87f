package validity

import (
	"runtime"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Metric tags the correction reads from each record (ns, as the record
// processor computes them).
const (
	tagLatency = "request_latency"
	tagTTFT    = "time_to_first_token"
)

// Collector gathers a profiling phase's inputs: the record collector
// calls Add for every processed record (warmup records are skipped), the
// run calls Begin and End around the profiling phase. Add runs on one
// goroutine; Input is called once the pipeline has drained.
type Collector struct {
	openLoop bool

	beginNs, endNs   int64
	beginCPU, endCPU time.Duration
	cpuKnown         bool

	// spans are every record's start and end, in chunks: appending to one
	// slice held the old and the grown copy at once, 36 MB at 1M records.
	spans      chunked[span]
	lag        []float64
	successful int
	records    int

	latency, ttft, corrLatency, corrTTFT []float64
}

// NewCollector returns a collector; openLoop keeps the schedule lags and
// the corrected latencies.
func NewCollector(openLoop bool) *Collector {
	return &Collector{openLoop: openLoop}
}

// Begin marks the profiling phase's start (a nil collector ignores it).
func (c *Collector) Begin() {
	if c == nil {
		return
	}
	c.beginCPU, c.cpuKnown = processCPU()
	c.beginNs = clock.Now()
}

// End marks the profiling phase's end.
func (c *Collector) End() {
	if c == nil {
		return
	}
	c.endNs = clock.Now()
	cpu, ok := processCPU()
	c.endCPU, c.cpuKnown = cpu, ok && c.cpuKnown
}

// Add folds one processed record.
func (c *Collector) Add(rm *sdk.RecordMetrics) {
	rec := rm.Record
	if rec == nil || rec.Phase == sdk.PhaseWarmup {
		return
	}
	c.records++
	if rec.StartPerfNs > 0 {
		c.spans.add(span{rec.StartPerfNs, rec.EndPerfNs})
	}
	if !rec.Valid() {
		return
	}
	c.successful++
	if !c.openLoop {
		return
	}
	// A request sent early is not credited: the correction only adds.
	lag := 0.0
	scheduled := rec.ScheduledNs > 0 && rec.StartPerfNs > 0
	if scheduled {
		c.lag = append(c.lag, float64(rec.StartPerfNs-rec.ScheduledNs))
		lag = max(0, float64(rec.StartPerfNs-rec.ScheduledNs))
	}
	// A request without a schedule (a later turn sent after its delay) is
	// its own send time: corrected equals measured.
	if v, ok := rm.Values[tagLatency]; ok && !v.IsList {
		c.latency = append(c.latency, v.Scalar)
		c.corrLatency = append(c.corrLatency, v.Scalar+lag)
	}
	if v, ok := rm.Values[tagTTFT]; ok && !v.IsList {
		c.ttft = append(c.ttft, v.Scalar)
		c.corrTTFT = append(c.corrTTFT, v.Scalar+lag)
	}
}

// Target is what the run asked for.
type Target struct {
	// Mode is the timing mode; OpenLoop says whether it sends on a
	// schedule.
	Mode     string
	OpenLoop bool
	// Rate (requests/s, 0: none) and Concurrency (closed-loop target or
	// open-loop ceiling, 0: none).
	Rate        float64
	Concurrency int
	// Ramp is how long the rate or concurrency ramp takes: the window the
	// targets are checked over starts after it.
	Ramp time.Duration
}

// Input is what was measured, for Evaluate.
func (c *Collector) Input(t Target) Input {
	in := Input{
		Mode: t.Mode, OpenLoop: t.OpenLoop, TargetRate: t.Rate, TargetConcurrency: t.Concurrency,
		Cores: runtime.GOMAXPROCS(0), CPUKnown: c.cpuKnown && c.endNs > c.beginNs,
		CPU: c.endCPU - c.beginCPU, Wall: time.Duration(c.endNs - c.beginNs),
		Lag: c.lag, Successful: c.successful, Records: c.records,
		Latency: c.latency, TTFT: c.ttft, CorrectedLatency: c.corrLatency, CorrectedTTFT: c.corrTTFT,
	}
	// The window runs from the phase start (after the ramp) to the last
	// request start: where the strategy was sending at its target. The
	// drain after the last send (closed loop) is not held against it.
	w0 := c.beginNs + int64(t.Ramp)
	w1 := int64(0)
	c.spans.each(func(sp span) {
		if sp.start >= w0 {
			in.Sent++
			w1 = max(w1, sp.start)
		}
	})
	if w1 <= w0 {
		return in
	}
	in.Window = time.Duration(w1 - w0)
	busy := 0.0
	c.spans.each(func(sp span) {
		s, e := sp.start, sp.end
		if e <= 0 {
			e = max(c.endNs, s)
		}
		if d := min(e, w1) - max(s, w0); d > 0 {
			busy += float64(d)
		}
	})
	in.InFlight, in.InFlightKnown = busy/float64(w1-w0), true
	return in
}

// span is a record's start and end (perf ns).
type span struct{ start, end int64 }

// chunked is an append-only list in fixed chunks: growing never copies.
type chunked[T any] struct{ chunks [][]T }

const chunkLen = 8192

func (c *chunked[T]) add(v T) {
	if n := len(c.chunks); n == 0 || len(c.chunks[n-1]) == chunkLen {
		c.chunks = append(c.chunks, make([]T, 0, chunkLen))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
}

func (c *chunked[T]) each(fn func(T)) {
	for _, ch := range c.chunks {
		for _, v := range ch {
			fn(v)
		}
	}
}
