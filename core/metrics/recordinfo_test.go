package metrics

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// docsExampleValues are the built-in processor's values (in ns) for AIPerf's
// documented profile_export.jsonl line: TTFT 255.886568 ms, latency
// 297.525228 ms, eight chunk gaps, OSL 9, ISL 550.
func docsExampleValues() *sdk.RecordMetrics {
	gaps := []float64{4898437, 5316006, 4801489, 5674918, 4811467, 5097998, 5504797, 5533548}
	rm := processed(1759813207532900363, vals(map[string]float64{
		TagTTFT: 255886568, TagTTFO: 255886568, TagTTST: 4898437, TagRequestLatency: 297525228,
		TagITL: 5204832.5, TagTPSPerUser: 192.1291415237666,
		TagOSL: 9, TagOutputTokenCount: 9, TagISL: 550,
	}))
	rm.Values[TagICL] = sdk.MetricValue{List: gaps, IsList: true}
	rm.Record.StartPerfNs = 1_000_000_000
	rm.InputTokens = intp(550)
	return rm
}

// The documented successful JSONL line (docs/METRICS.md §5), value for value.
func TestToRecordInfoMatchesDocsExample(t *testing.T) {
	rm := docsExampleValues()
	rec := rm.Record
	rec.SessionNum, rec.XRequestID, rec.XCorrelationID = 45, "7609a2e7", "32ee4f33"
	rec.ConversationID, rec.WorkerID = "77aa5b0e", "worker_359d423a"
	rec.AckPerfNs = rec.StartPerfNs + 117830613
	rec.EndPerfNs = rec.StartPerfNs + 305864241
	rec.CreditIssuedNs = rec.StartPerfNs - 1000

	info := ToRecordInfo(rm, newCatalog(t, streamingInfo()), "record_processor_1fa47cd7")

	wantFloat := map[string]float64{
		TagTTFT: 255.886568, TagRequestLatency: 297.525228, TagITL: 5.2048325,
		TagTPSPerUser: 192.1291415237666, TagTTST: 4.898437, TagTTFO: 255.886568,
	}
	for tag, w := range wantFloat {
		got, ok := info.Metrics[tag].Value.(float64)
		if !ok || !near(got, w) {
			t.Errorf("%s = %#v, want %v", tag, info.Metrics[tag].Value, w)
		}
	}
	wantInt := map[string]int{TagISL: 550, TagOutputTokenCount: 9, TagOSL: 9}
	for tag, w := range wantInt {
		if got, ok := info.Metrics[tag].Value.(int); !ok || got != w || info.Metrics[tag].Unit != "tokens" {
			t.Errorf("%s = %#v %q, want int %d tokens", tag, info.Metrics[tag].Value, info.Metrics[tag].Unit, w)
		}
	}
	icl, ok := info.Metrics[TagICL].Value.([]float64)
	wantICL := []float64{4.898437, 5.316006, 4.801489, 5.674918, 4.811467, 5.097998, 5.504797, 5.533548}
	if !ok || len(icl) != len(wantICL) {
		t.Fatalf("ICL = %#v, want %v", info.Metrics[TagICL].Value, wantICL)
	}
	for i := range icl {
		if !near(icl[i], wantICL[i]) {
			t.Errorf("ICL[%d] = %v, want %v", i, icl[i], wantICL[i])
		}
	}
	if u := info.Metrics[TagTTFT].Unit; u != "ms" {
		t.Errorf("TTFT unit = %q, want ms", u)
	}
	if u := info.Metrics[TagTPSPerUser].Unit; u != "tokens/sec/user" {
		t.Errorf("TPS/user unit = %q", u)
	}

	md := info.Metadata
	if md.RequestStartNs != 1759813207532900363 || md.RecordProcessorID != "record_processor_1fa47cd7" ||
		md.SessionNum != 45 || md.WorkerID != "worker_359d423a" || md.BenchmarkPhase != "profiling" {
		t.Errorf("metadata = %+v", md)
	}
	if md.RequestAckNs == nil || *md.RequestAckNs != clock.WallNs(rec.AckPerfNs) {
		t.Errorf("request_ack_ns = %v, want wall of ack", md.RequestAckNs)
	}
	if md.RequestEndNs != clock.WallNs(rec.EndPerfNs) {
		t.Errorf("request_end_ns = %d, want %d", md.RequestEndNs, clock.WallNs(rec.EndPerfNs))
	}
	if md.CreditIssuedNs == nil || *md.CreditIssuedNs != clock.WallNs(rec.CreditIssuedNs) {
		t.Errorf("credit_issued_ns = %v", md.CreditIssuedNs)
	}

	line, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"cancellation_time_ns", "null,", "request_count", "min_request_timestamp"} {
		if strings.Contains(string(line), absent) {
			t.Errorf("JSONL line contains %q: %s", absent, line)
		}
	}
	if !strings.Contains(string(line), `"input_sequence_length":{"value":550,"unit":"tokens"}`) {
		t.Errorf("ISL not written as an int: %s", line)
	}
	// AIPerf 0.13 omits "error" on successes.
	if strings.Contains(string(line), `"error"`) {
		t.Errorf("a success carries an error member: %s", line)
	}
	// AIPerf 0.13's phase fields of a profiling record in a run without warmup.
	if md.PhaseIndex != 0 || md.ProfilingIndex == nil || *md.ProfilingIndex != 0 || md.PhaseName != "profiling" ||
		md.PhaseKind != "profiling" || md.ContextOverflowSkip || md.AgentDepth != 0 || md.RootCorrelationID != "32ee4f33" {
		t.Errorf("phase metadata = %+v", md)
	}
	pos := 0
	for _, k := range strings.Split("session_num,x_request_id,x_correlation_id,conversation_id,turn_index,"+
		"credit_issued_ns,request_start_ns,request_ack_ns,request_end_ns,worker_id,record_processor_id,"+
		"benchmark_phase,phase_index,profiling_index,phase_name,phase_kind,was_cancelled,context_overflow_skip,"+
		"agent_depth,root_correlation_id", ",") {
		i := strings.Index(string(line[pos:]), `"`+k+`":`)
		if i < 0 {
			t.Errorf("metadata key %s missing or out of AIPerf's order: %s", k, line)
			break
		}
		pos += i
	}
}

// phase_index counts the warmup phase; warmup records have no
// profiling_index (AIPerf 0.13).
func TestToRecordInfoPhaseLayout(t *testing.T) {
	cat := newCatalog(t, streamingInfo())
	tests := []struct {
		name      string
		phase     string
		layout    PhaseLayout
		index     int
		profiling int // -1: absent
	}{
		{"profiling alone", sdk.PhaseProfiling, PhaseLayout{}, 0, 0},
		{"profiling after warmup", sdk.PhaseProfiling, PhaseLayout{Warmup: true}, 1, 0},
		{"warmup", sdk.PhaseWarmup, PhaseLayout{Warmup: true}, 0, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rm := timedRecord(100, 50, 2)
			rm.Record.Phase = tc.phase
			md := ToRecordInfoIn(rm, cat, "rp", tc.layout).Metadata
			if md.PhaseIndex != tc.index || md.PhaseName != tc.phase || md.PhaseKind != tc.phase {
				t.Errorf("metadata = %+v", md)
			}
			if tc.profiling < 0 && md.ProfilingIndex != nil || tc.profiling >= 0 && (md.ProfilingIndex == nil || *md.ProfilingIndex != tc.profiling) {
				t.Errorf("profiling_index = %v, want %d", md.ProfilingIndex, tc.profiling)
			}
		})
	}
}

// The documented cancelled line: only error_isl, no ack, cancellation time.
func TestToRecordInfoCancelled(t *testing.T) {
	rm := errorRecord(1759879161000000000, 499, "RequestCancellationError", "Request was cancelled after 0.000 seconds")
	rm.Values = vals(map[string]float64{TagErrorISL: 550})
	rm.InputTokens = intp(550)
	rm.Record.WasCancelled = true
	rm.Record.CancellationTimeNs = 12345
	rm.Record.AckPerfNs = 0
	info := ToRecordInfo(rm, newCatalog(t, streamingInfo()), "rp")

	var tags []string
	for tag := range info.Metrics {
		tags = append(tags, tag)
	}
	if !slices.Equal(tags, []string{TagErrorISL}) || info.Metrics[TagErrorISL].Value != 550 {
		t.Fatalf("metrics = %v, want only error_isl=550", info.Metrics)
	}
	md := info.Metadata
	if md.RequestAckNs != nil || md.CancellationTimeNs == nil || *md.CancellationTimeNs != clock.WallNs(12345) || !md.WasCancelled {
		t.Fatalf("metadata = %+v", md)
	}
	if info.Error == nil || info.Error.Code != 499 {
		t.Fatalf("error = %+v", info.Error)
	}
	line, _ := json.Marshal(info)
	if strings.Contains(string(line), "request_ack_ns") || strings.Contains(string(line), "credit_issued_ns") {
		t.Fatalf("absent optional fields written: %s", line)
	}
}

// AIPerf 0.13 stamps request_ack_ns when a 2xx response's headers arrive,
// streaming or not, and never on a non-2xx response.
func TestToRecordInfoAck(t *testing.T) {
	cat := newCatalog(t, streamingInfo())
	for _, tc := range []struct {
		name      string
		status    int
		streaming bool
		want      bool
	}{
		{"streaming 200", 200, true, true},
		{"non-streaming 200", 200, false, true},
		{"HTTP 500", 500, true, false},
		{"no status recorded", 0, true, true},
	} {
		rm := timedRecord(100, 50, 2)
		rm.Record.Streaming, rm.Record.Status, rm.Record.AckPerfNs = tc.streaming, tc.status, 20
		if got := ToRecordInfo(rm, cat, "rp").Metadata.RequestAckNs != nil; got != tc.want {
			t.Errorf("%s: request_ack_ns written %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestToRecordInfoNonStreaming(t *testing.T) {
	rm := timedRecord(100, 50, 2)
	rm.Record.Streaming = false
	info := ToRecordInfo(rm, newCatalog(t, sdk.RunInfo{Endpoint: chatEndpoint}), "rp")
	// Streaming-only metrics never reach a non-streaming run's lines.
	if _, ok := info.Metrics[TagTTFT]; ok {
		t.Errorf("time_to_first_token exported on a non-streaming run: %v", info.Metrics)
	}
	if got := info.Metrics[TagRequestLatency]; got.Value != 0.00005 || got.Unit != "ms" {
		t.Errorf("request_latency = %+v, want 0.00005 ms", got)
	}
	if ToRecordInfo(nil, newCatalog(t, streamingInfo()), "rp") != nil {
		t.Fatal("ToRecordInfo(nil) != nil")
	}
}

func TestToRecordInfoKeepsThirdPartyMetrics(t *testing.T) {
	rm := &sdk.RecordMetrics{Record: &sdk.RequestRecord{}, Values: map[string]sdk.MetricValue{
		"answer_characters": {Scalar: 42},
		"chunk_sizes":       {List: []float64{1, 2}, IsList: true},
	}}
	info := ToRecordInfo(rm, newCatalog(t, streamingInfo()), "p")
	if got := info.Metrics["answer_characters"]; got.Value != 42.0 || got.Unit != "" {
		t.Errorf("answer_characters = %+v, want the plugin's raw value, unitless", got)
	}
	if got, ok := info.Metrics["chunk_sizes"].Value.([]float64); !ok || len(got) != 2 {
		t.Errorf("chunk_sizes = %+v", info.Metrics["chunk_sizes"])
	}
}

// A declared plugin metric is converted like a built-in; run-level tags
// and NO_INDIVIDUAL_RECORDS metrics never appear per record.
func TestToRecordInfoUsesTheCatalog(t *testing.T) {
	decl := append(builtinDecl(), Declared{Plugin: "probe", Specs: []sdk.MetricSpec{
		{Tag: "kv_cache_wait", Header: "KV Cache Wait", Unit: "ns", DisplayUnit: "ms"},
		{Tag: "probe_tokens", Header: "Probe Tokens", Unit: "tokens", Integer: true},
		{Tag: "probe_internal", Header: "Probe Internal", Unit: "ns", Flags: sdk.FlagNoIndividualRecords},
	}})
	cat, err := NewCatalog(decl, streamingInfo())
	if err != nil {
		t.Fatal(err)
	}
	rm := processed(1, vals(map[string]float64{
		"kv_cache_wait": 1_500_000, "probe_tokens": 7, "probe_internal": 3, TagRequestCount: 1, TagBenchmarkDuration: 5,
	}))
	info := ToRecordInfo(rm, cat, "rp")
	if got := info.Metrics["kv_cache_wait"]; got.Value != 1.5 || got.Unit != "ms" {
		t.Errorf("kv_cache_wait = %+v, want 1.5 ms", got)
	}
	if got := info.Metrics["probe_tokens"]; got.Value != 7 || got.Unit != "tokens" {
		t.Errorf("probe_tokens = %#v, want int 7 tokens", got)
	}
	for _, tag := range []string{"probe_internal", TagRequestCount, TagBenchmarkDuration} {
		if m, ok := info.Metrics[tag]; ok {
			t.Errorf("%s = %+v exported per record", tag, m)
		}
	}
	// Without a catalog every value is undeclared: raw and unitless.
	if got := ToRecordInfo(rm, nil, "rp").Metrics["kv_cache_wait"]; got.Value != 1_500_000.0 || got.Unit != "" {
		t.Errorf("kv_cache_wait without catalog = %+v", got)
	}
}
