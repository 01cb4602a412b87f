package app

import (
	"github.com/aiperf-go/aiperf/core/engine"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Requests cut off by the end of a grace period reach the per-record
// exports as cancellations but no metric, live statistic or gate: AIPerf
// leaves them out of its results (docs/METRICS.md "Requests cut off by the
// grace period").

// skipGraceCut wraps the pipeline's accumulators; Summarize still goes to
// the originals, which the runner keeps.
func skipGraceCut(accs []sdk.Accumulator) []sdk.Accumulator {
	out := make([]sdk.Accumulator, len(accs))
	for i, a := range accs {
		out[i] = graceCutFilter{a}
	}
	return out
}

type graceCutFilter struct{ sdk.Accumulator }

func (f graceCutFilter) Add(rm *sdk.RecordMetrics) {
	if !engine.GraceCut(rm.Record) {
		f.Accumulator.Add(rm)
	}
}

// skipGraceCutHooks does the same for the collector's live hooks.
func skipGraceCutHooks(h interface{ Add(*sdk.RecordMetrics) }) interface{ Add(*sdk.RecordMetrics) } {
	if h == nil {
		return nil
	}
	return graceCutHooks{h}
}

type graceCutHooks struct {
	h interface{ Add(*sdk.RecordMetrics) }
}

func (g graceCutHooks) Add(rm *sdk.RecordMetrics) {
	if !engine.GraceCut(rm.Record) {
		g.h.Add(rm)
	}
}
