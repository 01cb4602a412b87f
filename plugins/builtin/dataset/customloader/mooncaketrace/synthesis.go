package mooncaketrace

import (
	"context"
	"fmt"

	"github.com/aiperf-go/aiperf/core/tracesynth"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// scan calls fn for every record of path, like jsonl.Scan. With synthesis
// options it first reads and checks every record (a bad line fails before
// anything is transformed), applies the options as AIPerf 0.13's trace
// loaders do (tracesynth.Apply: max_isl filter, session grouping, the
// synthesizer when a multiplier is set, max_osl cap) and then calls fn with
// the resulting records in file order, each with its line: the grouping
// into conversations is the same as in AIPerf's session order, and prompts
// are built in the order they are without the options. seed is the run's
// random seed (the root multiplier's draws).
func (l *Loader) scan(ctx context.Context, path string, seed int64, fn func(line int, data []byte) error) error {
	if l.Config.Synthesis == (tracesynth.Options{}) {
		return jsonl.Scan(ctx, path, fn)
	}
	p, err := l.Config.Synthesis.Params(l.blockSize())
	if err != nil {
		return fmt.Errorf("synthesis: %w", err)
	}
	var traces []*tracesynth.Trace
	err = jsonl.Scan(ctx, path, func(line int, data []byte) error {
		var r record
		if err := jsonl.Decode(data, &r); err != nil {
			return err
		}
		if err := r.check(); err != nil {
			return err
		}
		t, err := tracesynth.ParseTrace(data)
		if err != nil {
			return err
		}
		t.Line = line
		traces = append(traces, t)
		return nil
	})
	if err != nil {
		return err
	}
	res, err := tracesynth.Apply(traces, p, seed)
	if err != nil {
		return fmt.Errorf("%s: synthesis: %w", path, err)
	}
	if l.Info != nil {
		for _, msg := range res.Summary(p) {
			l.Info(msg)
		}
	}
	for _, t := range res.InputOrder() {
		data, _ := t.MarshalJSON()
		if err := fn(t.Line, data); err != nil {
			return &jsonl.Error{Path: path, Line: t.Line, Err: fmt.Errorf("after synthesis: %w", err)}
		}
	}
	return nil
}
