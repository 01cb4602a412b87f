package sdktest

import (
	"testing"

	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

func TestRecordProcessorAcceptsConformingProcessors(t *testing.T) {
	// Working before Init and failing before Init are both accepted.
	for _, fault := range []string{"", fixtures.RPErrorsBeforeInit} {
		t.Run("fault="+fault, func(t *testing.T) {
			runSuite(t, func(tb testing.TB) { RecordProcessor(tb, &fixtures.Processor{Fault: fault}) }).wantClean(t)
		})
	}
}

func TestRecordProcessorReportsEachViolation(t *testing.T) {
	tests := []struct {
		fault string
		want  []string
	}{
		{fixtures.RPPanicsBeforeInit, []string{"Process before Init panicked", "nil pointer dereference"}},
		{fixtures.RPInitFails, []string{"Init(streaming chat endpoint) returned error: fixture: cannot init"}},
		{fixtures.RPNaNWithoutTokens, []string{"Process(no responses): metric characters_per_token = NaN is not finite"}},
		{fixtures.RPListNotFlagged, []string{"Process(streamed answer): metric inter_chunk_gaps has 2 list values but IsList is false"}},
		{fixtures.RPErrorsOnFailed, []string{"Process(HTTP 500 error) returned error: fixture: failed record"}},
		{fixtures.RPPanicsOnEmpty, []string{"Process(no responses) panicked", "index out of range"}},
		{fixtures.RPTagWithWhitespace, []string{`metric tag "answer characters" must be a non-empty name without whitespace`}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			r := runSuite(t, func(tb testing.TB) { RecordProcessor(tb, &fixtures.Processor{Fault: tc.fault}) })
			r.wantReport(t, tc.want...)
		})
	}
}

func TestRecordProcessorInitFailureStopsTheChecks(t *testing.T) {
	r := runSuite(t, func(tb testing.TB) { RecordProcessor(tb, &fixtures.Processor{Fault: fixtures.RPInitFails}) })
	if n := len(r.all()); n != 1 {
		t.Errorf("reported %d failures, want only the Init failure: %q", n, r.all())
	}
}

func TestSampleRecordsCoverTheCases(t *testing.T) {
	// The checks rely on these shapes; keep them from drifting.
	recs := sampleRecords()
	if len(recs) != 5 {
		t.Fatalf("%d sample records, want 5", len(recs))
	}
	for i, want := range []struct {
		valid, cancelled bool
		responses        int
	}{{true, false, 5}, {true, false, 1}, {false, false, 0}, {false, true, 1}, {true, false, 0}} {
		r := recs[i].rec
		if r.Record.Valid() != want.valid || r.Record.WasCancelled != want.cancelled || len(r.Responses) != want.responses {
			t.Errorf("%s: valid %v cancelled %v responses %d, want %+v", recs[i].name, r.Record.Valid(),
				r.Record.WasCancelled, len(r.Responses), want)
		}
	}
}
