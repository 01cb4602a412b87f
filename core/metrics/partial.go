package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/store"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// This file is the mergeable form of an accumulator (a shard's share of a
// sharded run): per metric a Digest (count, sum, min, max, mean and M2
// exact; percentiles from a DDSketch), the run-level counts, and a
// Summarize over the merged state that computes the aggregate and derived
// metrics with the single-run code (tally.runLevel).

// DefaultRelativeAccuracy is the DDSketch relative accuracy α a Digest
// keeps percentiles to (0.1 %).
const DefaultRelativeAccuracy = 0.001

// Digest is a mergeable summary of one metric's values, in its base unit.
type Digest struct {
	Count         int64
	Sum, Min, Max float64
	Mean, M2      float64 // M2: sum of squared deviations from Mean
	// MeanLo is what Mean misses of the true mean (Mean+MeanLo, a
	// double-double): values far from zero with a small spread would
	// otherwise lose the merged std to the means' rounding.
	MeanLo           float64
	sk               *ddsketch.DDSketch
	relativeAccuracy float64
}

// NewDigest summarises values (base units) with relative accuracy alpha.
func NewDigest(values []float64, alpha float64) (*Digest, error) {
	sk, err := ddsketch.NewDefaultDDSketch(alpha)
	if err != nil {
		return nil, fmt.Errorf("metrics: sketch with relative accuracy %v: %w", alpha, err)
	}
	d := &Digest{sk: sk, relativeAccuracy: alpha}
	if len(values) == 0 {
		return d, nil
	}
	d.Min, d.Max = values[0], values[0]
	// Two passes, as statsInPlace, so M2 is as exact as the single run's std.
	for _, x := range values {
		d.Sum += x
		d.Min, d.Max = min(d.Min, x), max(d.Max, x)
		if err := sk.Add(x); err != nil {
			return nil, fmt.Errorf("metrics: sketch value %v: %w", x, err)
		}
	}
	d.Count = int64(len(values))
	d.Mean = d.Sum / float64(d.Count)
	var dev float64
	for _, x := range values {
		dx := x - d.Mean
		dev += dx
		d.M2 += dx * dx
	}
	d.MeanLo = dev / float64(d.Count)
	return d, nil
}

// RelativeAccuracy is the sketch's α.
func (d *Digest) RelativeAccuracy() float64 { return d.relativeAccuracy }

// Merge folds o into d (Chan et al.'s pairwise update for the mean and M2).
func (d *Digest) Merge(o *Digest) error {
	if o.Count == 0 {
		return nil
	}
	if err := d.sk.MergeWith(o.sk); err != nil {
		return fmt.Errorf("metrics: merge sketches of relative accuracy %v and %v: %w", d.relativeAccuracy, o.relativeAccuracy, err)
	}
	if d.Count == 0 {
		d.Count, d.Sum, d.Min, d.Max, d.Mean, d.MeanLo, d.M2 = o.Count, o.Sum, o.Min, o.Max, o.Mean, o.MeanLo, o.M2
		return nil
	}
	n := d.Count + o.Count
	// Close means subtract exactly (Sterbenz); the low parts carry the rest.
	delta := (o.Mean - d.Mean) + (o.MeanLo - d.MeanLo)
	d.M2 += o.M2 + delta*delta*float64(d.Count)*float64(o.Count)/float64(n)
	// mean += delta·nb/n in double-double (Fast2Sum: |Mean| >= the step).
	step := d.MeanLo + delta*float64(o.Count)/float64(n)
	hi := d.Mean + step
	d.Mean, d.MeanLo = hi, step-(hi-d.Mean)
	d.Count = n
	d.Sum += o.Sum
	d.Min, d.Max = min(d.Min, o.Min), max(d.Max, o.Max)
	return nil
}

// at is the value of rank idx (0-based, ascending) from the sketch,
// clamped to [Min, Max]. The rank is passed as idx+0.5 so that the
// sketch's "first bucket whose cumulative count exceeds the rank" is the
// one holding value idx, whatever the rounding of q×(n−1).
func (d *Digest) at(idx int64) float64 {
	if idx <= 0 {
		return d.Min
	}
	if idx >= d.Count-1 {
		return d.Max
	}
	q := min((float64(idx)+0.5)/float64(d.Count-1), 1)
	v, err := d.sk.GetValueAtQuantile(q)
	if err != nil || math.IsNaN(v) {
		return d.Min
	}
	return min(max(v, d.Min), d.Max)
}

// percentile is statsInPlace's linear interpolation between closest ranks
// with each rank's value from the sketch: each is within α of the true
// value, so the interpolation is too.
func (d *Digest) percentile(q float64) float64 {
	idx := q / 100 * float64(d.Count-1)
	lo := int64(idx)
	frac := idx - float64(lo)
	vlo := d.at(lo)
	if frac == 0 {
		return vlo
	}
	return vlo + frac*(d.at(min(lo+1, d.Count-1))-vlo)
}

// Stats are the digest's summary statistics: count, sum, min, max, mean
// and std exact (up to float rounding), percentiles within α.
func (d *Digest) Stats() Stats {
	if d.Count == 0 {
		return Stats{}
	}
	return Stats{
		Avg: d.Sum / float64(d.Count), Min: d.Min, Max: d.Max,
		P1: d.percentile(1), P5: d.percentile(5), P10: d.percentile(10),
		P25: d.percentile(25), P50: d.percentile(50), P75: d.percentile(75),
		P90: d.percentile(90), P95: d.percentile(95), P99: d.percentile(99),
		Std:   math.Sqrt(max(d.M2, 0) / float64(d.Count)),
		Count: d.Count, Sum: d.Sum,
	}
}

// digestJSON is a Digest on the wire; the sketch in DDSketch's own
// encoding (index mapping included).
type digestJSON struct {
	Count            int64   `json:"count"`
	Sum              float64 `json:"sum"`
	Min              float64 `json:"min"`
	Max              float64 `json:"max"`
	Mean             float64 `json:"mean"`
	MeanLo           float64 `json:"mean_lo"`
	M2               float64 `json:"m2"`
	RelativeAccuracy float64 `json:"relative_accuracy"`
	Sketch           []byte  `json:"ddsketch"`
}

// MarshalJSON writes the digest with its sketch encoded.
func (d *Digest) MarshalJSON() ([]byte, error) {
	var b []byte
	d.sk.Encode(&b, false)
	return json.Marshal(digestJSON{Count: d.Count, Sum: d.Sum, Min: d.Min, Max: d.Max, Mean: d.Mean, MeanLo: d.MeanLo, M2: d.M2,
		RelativeAccuracy: d.relativeAccuracy, Sketch: b})
}

// UnmarshalJSON reads a digest MarshalJSON wrote.
func (d *Digest) UnmarshalJSON(b []byte) error {
	var w digestJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	sk, err := ddsketch.DecodeDDSketch(w.Sketch, store.DefaultProvider, nil)
	if err != nil {
		return fmt.Errorf("ddsketch: %w", err)
	}
	if sk.IndexMapping == nil {
		return errors.New("ddsketch: no index mapping")
	}
	if c := int64(math.Round(sk.GetCount())); c != w.Count {
		return fmt.Errorf("ddsketch holds %d values, the digest says %d", c, w.Count)
	}
	*d = Digest{Count: w.Count, Sum: w.Sum, Min: w.Min, Max: w.Max, Mean: w.Mean, MeanLo: w.MeanLo, M2: w.M2,
		sk: sk, relativeAccuracy: w.RelativeAccuracy}
	return nil
}

// Partial is an accumulator's state in mergeable form: what Summarize
// reads, with every value series as a Digest. Sweep metrics (time-weighted
// concurrency), the fixed-schedule replay lag and timeslices need the
// records' times and are not part of it.
type Partial struct {
	Records       int64 `json:"records"`
	Valid         int64 `json:"valid"`
	Errored       int64 `json:"errored"`
	Good          int64 `json:"good"`
	MinRequestTS  int64 `json:"min_request_ts"`
	MaxResponseTS int64 `json:"max_response_ts"`
	HasMinTS      bool  `json:"has_min_ts"`
	HasMaxTS      bool  `json:"has_max_ts"`
	FirstStartNs  int64 `json:"first_start_ns"`
	LastEndNs     int64 `json:"last_end_ns"`
	// Errors are the error groups in first-seen order.
	Errors []sdk.ErrorCount `json:"errors,omitempty"`
	// Counters are the families' counters ({hits, seen}) by family counter.
	Counters [][2]int64 `json:"counters"`
	// Metrics are the record metrics' and the derived latencies' digests
	// by tag; Extra the undeclared tags' (ExtraOrder keeps their order).
	Metrics    map[string]*Digest `json:"metrics"`
	Extra      map[string]*Digest `json:"extra,omitempty"`
	ExtraOrder []string           `json:"extra_order,omitempty"`
}

// Partial returns the accumulator's state with relative accuracy alpha.
func (a *Accumulator) Partial(alpha float64) (*Partial, error) {
	if err := a.Err(); err != nil {
		return nil, err
	}
	p := &Partial{
		Records: a.records.Load(), Valid: a.valid.Load(), Errored: a.errored.Load(), Good: a.good.Load(),
		MinRequestTS: a.minRequestTS, MaxResponseTS: a.maxResponseTS, HasMinTS: a.hasMinTS, HasMaxTS: a.hasMaxTS,
		FirstStartNs: a.firstStartNs, LastEndNs: a.lastEndNs,
		Errors: append([]sdk.ErrorCount(nil), a.errs...), Metrics: map[string]*Digest{},
	}
	for _, c := range a.fam.counters() {
		p.Counters = append(p.Counters, [2]int64{c.n, c.seen})
	}
	put := func(m map[string]*Digest, tag string, s *series) error {
		d, err := NewDigest(s.values(), alpha)
		if err != nil {
			return fmt.Errorf("metric %s: %w", tag, err)
		}
		m[tag] = d
		return nil
	}
	for id := range a.series {
		if a.series[id].len() > 0 {
			if err := put(p.Metrics, a.cat.defs[id].Tag, &a.series[id]); err != nil {
				return nil, err
			}
		}
	}
	for _, tm := range a.fam.timings() {
		if tm.s.len() > 0 {
			if err := put(p.Metrics, a.cat.defs[a.cat.runLevelID(tm.i)].Tag, tm.s); err != nil {
				return nil, err
			}
		}
	}
	if len(a.extraOrder) > 0 {
		p.Extra = map[string]*Digest{}
		for _, tag := range a.extraOrder {
			if err := put(p.Extra, tag, a.extra[tag]); err != nil {
				return nil, err
			}
		}
		p.ExtraOrder = append([]string(nil), a.extraOrder...)
	}
	return p, nil
}

// Merge folds o into p: counts add, timestamps take the extremes, error
// groups add by group (first-seen order across p then o), digests merge.
func (p *Partial) Merge(o *Partial) error {
	if len(p.Counters) != len(o.Counters) {
		return fmt.Errorf("metrics: partials with %d and %d family counters", len(p.Counters), len(o.Counters))
	}
	p.Records += o.Records
	p.Valid += o.Valid
	p.Errored += o.Errored
	p.Good += o.Good
	if o.HasMinTS && (!p.HasMinTS || o.MinRequestTS < p.MinRequestTS) {
		p.MinRequestTS, p.HasMinTS = o.MinRequestTS, true
	}
	if o.HasMaxTS && (!p.HasMaxTS || o.MaxResponseTS > p.MaxResponseTS) {
		p.MaxResponseTS, p.HasMaxTS = o.MaxResponseTS, true
	}
	p.FirstStartNs, p.LastEndNs = min(p.FirstStartNs, o.FirstStartNs), max(p.LastEndNs, o.LastEndNs)
	for _, e := range o.Errors {
		found := false
		for i := range p.Errors {
			if p.Errors[i].ErrorDetails == e.ErrorDetails {
				p.Errors[i].Count += e.Count
				found = true
				break
			}
		}
		if !found {
			p.Errors = append(p.Errors, e)
		}
	}
	for i := range p.Counters {
		p.Counters[i][0] += o.Counters[i][0]
		p.Counters[i][1] += o.Counters[i][1]
	}
	merge := func(dst map[string]*Digest, tag string, d *Digest) error {
		if have, ok := dst[tag]; ok {
			if err := have.Merge(d); err != nil {
				return fmt.Errorf("metric %s: %w", tag, err)
			}
			return nil
		}
		cp := *d
		cp.sk = d.sk.Copy()
		dst[tag] = &cp
		return nil
	}
	if p.Metrics == nil {
		p.Metrics = map[string]*Digest{}
	}
	for tag, d := range o.Metrics {
		if err := merge(p.Metrics, tag, d); err != nil {
			return err
		}
	}
	for _, tag := range o.ExtraOrder {
		if p.Extra == nil {
			p.Extra = map[string]*Digest{}
		}
		if _, ok := p.Extra[tag]; !ok {
			p.ExtraOrder = append(p.ExtraOrder, tag)
		}
		if err := merge(p.Extra, tag, o.Extra[tag]); err != nil {
			return err
		}
	}
	return nil
}

// SummarizePartial is Summarize over a merged Partial: the record metrics
// from their digests, the aggregate and derived metrics by the single-run
// code with the throughputs over [win0, win1] (epoch ns). cat must be built
// for info as the accumulators' were.
func SummarizePartial(cat *Catalog, info sdk.RunInfo, p *Partial, win0, win1 int64) (*sdk.Results, error) {
	if len(p.Counters) != int(numFamilyCounters) {
		return nil, fmt.Errorf("metrics: partial has %d family counters, this build %d", len(p.Counters), numFamilyCounters)
	}
	res := &sdk.Results{CompletedRecords: int(p.Records)}
	res.ErrorSummary = errorSummary(p.Errors)
	if p.FirstStartNs <= p.LastEndNs {
		res.StartTime, res.EndTime = time.Unix(0, p.FirstStartNs), time.Unix(0, p.LastEndNs)
	}
	t := tally{valid: p.Valid, failed: p.Errored, good: p.Good,
		minRequestTS: p.MinRequestTS, maxResponseTS: p.MaxResponseTS, hasMinTS: p.HasMinTS, hasMaxTS: p.HasMaxTS,
		win0: win0, win1: win1}
	for i, c := range p.Counters {
		t.counters[i] = counter{n: c[0], seen: c[1]}
	}
	rs := resultSet{failed: p.Errored}
	for id := range cat.nRecord {
		d, ok := p.Metrics[cat.defs[id].Tag]
		if !ok || d.Count == 0 {
			continue
		}
		t.addTotal(cat, metricID(id), d.Sum)
		if cat.on[id] {
			rs.addDigest(&cat.defs[id], d)
		}
	}
	var f families
	for _, tm := range f.timings() {
		id := cat.runLevelID(tm.i)
		if d, ok := p.Metrics[cat.defs[id].Tag]; ok && d.Count > 0 && cat.on[id] {
			rs.addDigest(&cat.defs[id], d)
		}
	}
	for _, tag := range p.ExtraOrder {
		if d := p.Extra[tag]; d != nil && d.Count > 0 {
			rs.addDigest(extraEntry(tag), d)
		}
	}
	rl := t.runLevel(len(info.Goodput) > 0)
	rs.addRunLevel(cat, &rl)
	res.Metrics = rs.sorted()
	if d, ok := rl.value(rlBenchmarkDuration); ok && cat.on[cat.runLevelID(rlBenchmarkDuration)] {
		res.BenchmarkDurationS = d / nsPerSec
	}
	return res, nil
}

// addDigest is add for a digest: full statistics and, as add, the
// error-adjusted view (its nearest-rank percentiles from the sketch).
func (rs *resultSet) addDigest(e *entry, d *Digest) {
	rs.metrics = append(rs.metrics, recordResult(e, d.Stats()))
	if rs.failed > 0 && e.Flags.Has(sdk.FlagPercentileIncludesFailedRequests) {
		// Its nearest ranks read from the digest.
		rs.adj = append(rs.adj, adjusted{order: e.order, res: adjustedRanks(e, d.Count, d.at, rs.failed)})
	}
}

// IsSweep reports whether tag is a sweep metric: a time-weighted statistic
// of every record's intervals, which a Partial does not carry.
func IsSweep(tag string) bool {
	_, ok := sweepByTag[tag]
	return ok
}
