package tracesynth

import (
	"fmt"
	"slices"
	"strconv"
)

// Result is a trace after Apply.
type Result struct {
	// Traces are the kept records in AIPerf's order: sessions in order of
	// first appearance (a record without session_id is a session of its
	// own), each session's records in file order.
	Traces []*Trace
	// SkippedMaxISL counts records dropped for input_length > MaxISL.
	SkippedMaxISL int
	// CappedMaxOSL counts records whose output_length the final cap
	// lowered to MaxOSL (after a synthesis, which caps first, usually 0).
	CappedMaxOSL int
	// index[i] is the input position of Traces[i].
	index []int
}

// InputOrder returns the kept records in their input order. A loader that
// groups sessions itself gets the same conversations from either order;
// this one also builds prompts in the order it would without the options.
func (r Result) InputOrder() []*Trace {
	pos := make([]int, len(r.Traces))
	for i := range pos {
		pos[i] = i
	}
	slices.SortFunc(pos, func(a, b int) int { return r.index[a] - r.index[b] })
	out := make([]*Trace, len(pos))
	for i, p := range pos {
		out[i] = r.Traces[p]
	}
	return out
}

// Apply is what AIPerf 0.13's trace loaders do with the --synthesis-*
// options (BaseTraceDatasetLoader.load_dataset, less the fixed-schedule
// offset window): drop records whose input_length exceeds MaxISL, group
// the rest into sessions, run Synthesize over them in that order when a
// multiplier is off its default, and cap output_length at MaxOSL. With
// DefaultParams only the grouping happens. The input is not modified.
func Apply(in []*Trace, p Params, seed int64) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	var res Result
	var order [][]int // sessions, as input positions
	index := map[string]int{}
	for i, t := range in {
		if isl, ok, err := t.int("input_length"); err != nil {
			return Result{}, fmt.Errorf("%s: %w", lineRef(t, i), err)
		} else if ok && p.MaxISL > 0 && isl > int64(p.MaxISL) {
			res.SkippedMaxISL++
			continue
		}
		sid, err := t.SessionID()
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", lineRef(t, i), err)
		}
		if sid == "" { // AIPerf: `trace.session_id or <new id>`
			order = append(order, []int{i})
			continue
		}
		if j, ok := index[sid]; ok {
			order[j] = append(order[j], i)
			continue
		}
		index[sid] = len(order)
		order = append(order, []int{i})
	}
	for _, s := range order {
		for _, i := range s {
			res.Traces = append(res.Traces, in[i])
			res.index = append(res.index, i)
		}
	}
	if p.Transforms() {
		out, err := Synthesize(res.Traces, p, seed)
		if err != nil {
			return Result{}, err
		}
		res.Traces = out
	}
	if p.MaxOSL > 0 {
		for i, t := range res.Traces {
			osl, ok, err := t.int("output_length")
			if err != nil {
				return Result{}, fmt.Errorf("%s: %w", lineRef(t, i), err)
			}
			if ok && osl > int64(p.MaxOSL) {
				if !p.Transforms() { // Synthesize returned fresh records
					t = t.clone()
					res.Traces[i] = t
				}
				t.set("output_length", intRaw(int64(p.MaxOSL)))
				res.CappedMaxOSL++
			}
		}
	}
	return res, nil
}

// Summary returns AIPerf's log lines for what Apply dropped and capped.
func (r Result) Summary(p Params) []string {
	var out []string
	if r.SkippedMaxISL > 0 {
		out = append(out, fmt.Sprintf("Skipped %s traces because input_length exceeded max_isl of %d", thousands(r.SkippedMaxISL), p.MaxISL))
	}
	if r.CappedMaxOSL > 0 {
		out = append(out, fmt.Sprintf("%s traces exceeded max_osl of %d and were capped to %d", thousands(r.CappedMaxOSL), p.MaxOSL, p.MaxOSL))
	}
	return out
}

// thousands is Python's f"{n:,}".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
