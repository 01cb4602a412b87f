package sdktest

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"

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
		{fixtures.RPNoMetrics, []string{"Metrics() declares no metrics"}},
		{fixtures.RPDuplicateTag, []string{"Metrics()[1] (answer_characters): tag \"answer_characters\" is declared twice"}},
		{fixtures.RPNoHeader, []string{"Metrics()[1] (characters_per_token) has no Header"}},
		{fixtures.RPNoUnit, []string{"Metrics()[0] (answer_characters) has no Unit"}},
		{fixtures.RPBadDisplayUnit, []string{`Metrics()[2] (inter_chunk_gaps): DisplayUnit "tokens" cannot be converted from Unit "ns"`}},
		{fixtures.RPUnknownFlag, []string{"Metrics()[0] (answer_characters): Flags 0x40000000 set bits no AIPerf metric flag uses"}},
		{fixtures.RPRequiresItself, []string{"Metrics()[1] (characters_per_token): Requires", "name the other metrics"}},
		{fixtures.RPUndeclaredTag, []string{"Process(streamed answer): metric debug_chunks is not declared by Metrics()"}},
		{fixtures.RPListAsScalar, []string{"Process(streamed answer): metric inter_chunk_gaps is declared List but its value is not a list"}},
		{fixtures.RPListNotFlagged, []string{"metric inter_chunk_gaps is declared List but its value is not a list"}},
		{fixtures.RPFractionalInteger, []string{"Process(streamed answer): metric characters_per_token is declared Integer but 5.66", "is not a whole number"}},
		{fixtures.RPPanicsInMetrics, []string{"Metrics() panicked: fixture: no metrics today"}},
		// The category check runs the settings checks of a Configurable processor.
		{fixtures.CFAcceptsUnknownKeys, []string{`the unknown setting in {"sdktest_unknown_setting": true} was accepted`}},
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

// The declared metrics are what Process is checked against, so a clean
// run relies on every sample tag being declared.
func TestRecordProcessorDeclarationsCoverTheFixture(t *testing.T) {
	p := &fixtures.Processor{}
	r := runSuite(t, func(tb testing.TB) {
		declared := checkMetricSpecs(tb, p.Metrics())
		if len(declared) != 3 {
			tb.Errorf("%d declared metrics, want 3", len(declared))
		}
	})
	r.wantClean(t)
}

// lifecycleless is a processor with neither settings nor Init: the suite
// skips what it lacks.
type lifecycleless struct{}

func (lifecycleless) Metrics() []sdk.MetricSpec {
	return []sdk.MetricSpec{{Tag: "records", Header: "Records", Unit: "records", Integer: true}}
}

func (lifecycleless) Process(*sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{"records": {Scalar: 1}}}, nil
}

func TestRecordProcessorWithoutLifecycle(t *testing.T) {
	runSuite(t, func(tb testing.TB) { RecordProcessor(tb, lifecycleless{}) }).wantClean(t)
}

func TestProcessorRunInfoCarriesTheRunFacts(t *testing.T) {
	info := processorRunInfo(t)
	if len(info.Models) == 0 || info.Seed == 0 || info.ArtifactDir == "" || !info.Streaming || info.Endpoint.EndpointPath == "" {
		t.Errorf("run info lacks facts a processor may need: %+v", info)
	}
}
