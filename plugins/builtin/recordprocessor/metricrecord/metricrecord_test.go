package metricrecord

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// streamed builds a streamed chat record whose token counts come from the
// real builtin tokenizer, the way the pipeline fills them.
func streamed(chunks ...string) *sdk.ParsedRecord {
	tok := tiktoken.New()
	rs := make([]sdk.ParsedResponse, len(chunks))
	text := ""
	for i, c := range chunks {
		rs[i] = sdk.ParsedResponse{PerfNs: int64(100_000_000 + i*10_000_000), Text: c}
		text += c
	}
	return &sdk.ParsedRecord{
		Record:       &sdk.RequestRecord{StartPerfNs: 0, TimestampNs: 1, Streaming: true},
		Responses:    rs,
		InputText:    "Hello there",
		InputTokens:  intp(len(tok.Encode("Hello there"))),
		OutputTokens: intp(len(tok.Encode(text))),
	}
}

// AIPerf's record metrics (docs/METRICS.md §2): headers, short headers, units,
// flags, orders and dependencies, as the core used to hard-code them.
func TestMetricsDeclaresAIPerfsRecordMetrics(t *testing.T) {
	const none = 0
	stream := sdk.FlagStreamingTokensOnly
	withFailed := sdk.FlagPercentileIncludesFailedRequests
	cases := []struct {
		tag, header, short, unit, display string
		flags                             sdk.MetricFlags
		order                             int
		integer, list                     bool
		requires                          []string
	}{
		{TagTTFT, "Time to First Token", "TTFT", "ns", "ms", stream | withFailed, 100, false, false, nil},
		{TagTTST, "Time to Second Token", "TTST", "ns", "ms", stream, 200, false, false, nil},
		{TagTTFO, "Time to First Output Token", "TTFO", "ns", "ms", stream | sdk.FlagSupportsReasoning, 210, false, false, nil},
		{TagRequestLatency, "Request Latency", "Req Latency", "ns", "ms", withFailed, 300, false, false, nil},
		{TagITL, "Inter Token Latency", "ITL", "ns", "ms", stream | withFailed, 400, false, false,
			[]string{TagRequestLatency, TagTTFT, TagOSL}},
		{TagICL, "Inter Chunk Latency", "ICL", "ns", "ms", stream | sdk.FlagNoConsole, none, false, true, nil},
		{TagTPSPerUser, "Output Token Throughput Per User", "Output TPS/User", "tokens/sec/user", "tokens/sec/user",
			stream | sdk.FlagLargerIsBetter, 500, false, false, []string{TagITL}},
		{TagOSL, "Output Sequence Length", "OSL", "tokens", "tokens",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 600, true, false, nil},
		{TagOutputTokenCount, "Output Token Count", "Output Tokens", "tokens", "tokens",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, none, true, false, nil},
		{TagReasoningCount, "Reasoning Token Count", "Reasoning Tokens", "tokens", "tokens",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter | sdk.FlagSupportsReasoning | sdk.FlagNoConsole, none, true, false, nil},
		{TagISL, "Input Sequence Length", "ISL", "tokens", "tokens",
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, 700, true, false, nil},
		{TagErrorISL, "Error Input Sequence Length", "Error ISL", "tokens", "tokens",
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole | sdk.FlagErrorOnly, none, true, false, nil},
		{TagScheduleLag, "Schedule Lag", "Sched Lag", "ns", "ms", sdk.FlagNoConsole, none, false, false, nil},
		// AIPerf 0.13's families (usage_metrics.py, usage_diff_metrics.py,
		// osl_mismatch_metrics.py, e2e_output_throughput_metric.py,
		// prefill_throughput_per_user.py, decode_duration_metric.py);
		// NO_CONSOLE stands for console group NONE; the usage counts are in
		// the USAGE group (checked below).
		{TagUsagePromptTokens, "Usage Prompt Tokens", "Usage Prompt", "tokens", "tokens",
			sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter, 1000, true, false, nil},
		{TagUsageCompletionTokens, "Usage Completion Tokens", "Usage Completion", "tokens", "tokens",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 1100, true, false, nil},
		{TagUsageTotalTokens, "Usage Total Tokens", "Usage Total", "tokens", "tokens",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 1200, true, false, nil},
		{TagUsageReasoningTokens, "Usage Reasoning Tokens", "Usage Reasoning", "tokens", "tokens",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 1110, true, false, nil},
		{TagUsagePromptDiff, "Usage Prompt Diff %", "Prompt Diff", "%", "%",
			sdk.FlagTokenizesInputOnly | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole, none, false, false,
			[]string{TagUsagePromptTokens, TagISL}},
		{TagUsageCompletionDiff, "Usage Completion Diff %", "Completion Diff", "%", "%",
			sdk.FlagProducesTokensOnly | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole, none, false, false,
			[]string{TagUsageCompletionTokens, TagOSL}},
		{TagUsageReasoningDiff, "Usage Reasoning Diff %", "Reasoning Diff", "%", "%",
			sdk.FlagProducesTokensOnly | sdk.FlagSupportsReasoning | sdk.FlagUsageDiffOnly | sdk.FlagNoConsole, none, false, false,
			[]string{TagUsageReasoningTokens, TagReasoningCount}},
		{TagOSLMismatchDiff, "OSL Mismatch Diff %", "OSL Diff", "%", "%",
			sdk.FlagProducesTokensOnly | sdk.FlagNoConsole, none, false, false, []string{TagOSL}},
		{TagE2EOutputTPS, "E2E Output Token Throughput", "E2E Output TPS/User", "tokens/sec/user", "tokens/sec/user",
			sdk.FlagProducesTokensOnly | sdk.FlagLargerIsBetter, 510, false, false, []string{TagOSL, TagRequestLatency}},
		{TagPrefillTPSPerUser, "Prefill Throughput Per User", "Prefill TPS/User", "tokens/sec/user", "tokens/sec/user",
			stream | sdk.FlagTokenizesInputOnly | sdk.FlagLargerIsBetter | sdk.FlagNoConsole, none, false, false,
			[]string{TagISL, TagTTFT}},
		{TagDecodeDuration, "Decode Duration", "Decode Duration", "ns", "ms", stream | withFailed, 350, false, false,
			[]string{TagRequestLatency, TagTTFT}},
	}
	got := New().Metrics()[:len(specs)] // then the HTTP trace metrics (http_specs_test.go)
	if len(got) != len(cases) {
		t.Fatalf("%d metrics declared, want %d", len(got), len(cases))
	}
	for i, tc := range cases {
		s := got[i]
		if s.Tag != tc.tag || s.Header != tc.header || s.ShortHeader != tc.short || s.Unit != tc.unit ||
			s.DisplayUnit != tc.display || s.Flags != tc.flags || s.DisplayOrder != tc.order ||
			s.Integer != tc.integer || s.List != tc.list || !slices.Equal(s.Requires, tc.requires) {
			t.Errorf("metric %d = %+v, want %+v", i, s, tc)
		}
	}
	// AIPerf's console groups: the usage counts have a table of their own.
	usage := map[string]bool{TagUsagePromptTokens: true, TagUsageCompletionTokens: true, TagUsageTotalTokens: true, TagUsageReasoningTokens: true}
	for _, s := range got {
		if want := map[bool]string{true: sdk.ConsoleGroupUsage}[usage[s.Tag]]; s.ConsoleGroup != want {
			t.Errorf("%s console group %q, want %q", s.Tag, s.ConsoleGroup, want)
		}
	}
	// A copy: the caller cannot change the processor's table.
	got[4].Requires[0], got[0].Header = "x", "x"
	if again := New().Metrics(); again[4].Requires[0] != TagRequestLatency || again[0].Header != "Time to First Token" {
		t.Error("Metrics returned the processor's own table")
	}
	// The core accepts the table and reads the lengths and latency by tag.
	cat := catalog(t, streamingInfo())
	for _, tag := range []string{metrics.TagRequestLatency, metrics.TagOSL, metrics.TagISL} {
		if d, ok := cat.Lookup(tag); !ok || d.Plugin != Name {
			t.Errorf("%s is not declared by %s: %+v", tag, Name, d)
		}
	}
}

func TestProcessComputesMetrics(t *testing.T) {
	// " world" and "!" are one o200k token each after "Hello": OSL 3.
	rm, err := New().Process(streamed("Hello", " world", "!"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		TagTTFT:           100_000_000,
		TagRequestLatency: 120_000_000,
		TagOSL:            3,
		TagISL:            2,
		TagITL:            10_000_000, // (120-100) ms / (3-1)
	}
	for tag, w := range want {
		if got := rm.Values[tag].Scalar; got != w {
			t.Errorf("%s = %v, want %v", tag, got, w)
		}
	}
	if _, err := New().Process(nil); err == nil {
		t.Error("Process(nil) succeeded")
	}
}

// Process is called from many goroutines; run with -race.
func TestProcessConcurrent(t *testing.T) {
	p := New()
	rec := streamed("a", "b")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				rm, err := p.Process(rec)
				if err != nil || rm.Values[TagRequestLatency].Scalar != 110_000_000 {
					t.Errorf("Process = %v, %v", rm, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// The documented successful JSONL line (docs/METRICS.md §5), value for value: the
// processor's values, the core's filter and its per-record export.
func TestDocsExampleRecordInfo(t *testing.T) {
	pr := docsExampleRecord()
	rec := pr.Record
	rec.SessionNum, rec.XRequestID = 45, "7609a2e7"
	rec.AckPerfNs = rec.StartPerfNs + 117830613
	rec.EndPerfNs = rec.StartPerfNs + 305864241

	info := metrics.ToRecordInfo(mustProcess(t, pr), catalog(t, streamingInfo()), "record_processor_1fa47cd7")

	wantFloat := map[string]float64{
		TagTTFT: 255.886568, TagRequestLatency: 297.525228, TagITL: 5.2048325,
		TagTPSPerUser: 192.1291415237666, TagTTST: 4.898437, TagTTFO: 255.886568,
		// AIPerf 0.13 adds these (the example has no usage and no max tokens).
		TagDecodeDuration: 41.63866, TagE2EOutputTPS: 30.24953567971049, TagPrefillTPSPerUser: 2149.3898812226826,
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
	for tag, unit := range map[string]string{TagTTFT: "ms", TagICL: "ms", TagTPSPerUser: "tokens/sec/user"} {
		if u := info.Metrics[tag].Unit; u != unit {
			t.Errorf("%s unit = %q, want %s", tag, u, unit)
		}
	}
	if len(info.Metrics) != 13 {
		t.Errorf("%d metrics, want the documented 10 and AIPerf 0.13's decode, E2E and prefill: %v", len(info.Metrics), info.Metrics)
	}
	if md := info.Metadata; md.RequestStartNs != 1759813207532900363 || md.RequestAckNs == nil ||
		*md.RequestAckNs != clock.WallNs(rec.AckPerfNs) || md.RequestEndNs != clock.WallNs(rec.EndPerfNs) {
		t.Errorf("metadata = %+v", md)
	}
	line, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"input_sequence_length":{"value":550,"unit":"tokens"}`) {
		t.Errorf("ISL not written as an int: %s", line)
	}
}

func BenchmarkProcessRecord(b *testing.B) {
	resp := make([]int64, 100)
	for j := range resp {
		resp[j] = int64(50_000_000 + j*5_000_000)
	}
	pr := makeRecord(0, resp, 1)
	pr.Responses = append(pr.Responses, sdk.ParsedResponse{PerfNs: 600_000_000, Usage: &sdk.Usage{}})
	pr.InputTokens = intp(550)
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Process(pr); err != nil {
			b.Fatal(err)
		}
	}
}

// A recycled RecordMetrics comes back empty: an error record processed
// after a streamed one carries none of the streamed one's values.
func TestRecycledValuesStartEmpty(t *testing.T) {
	p := New()
	first, err := p.Process(streamed("a", " b", " c"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := first.Values["time_to_first_token"]; !ok {
		t.Fatalf("streamed record has no TTFT: %v", first.Values)
	}
	p.Recycle(first)
	failed := &sdk.ParsedRecord{Record: &sdk.RequestRecord{StartPerfNs: 0, EndPerfNs: 5, TimestampNs: 1,
		Error: &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}}}
	// sync.Pool may or may not return the recycled one; either way no stale value.
	for range 3 {
		rm, err := p.Process(failed)
		if err != nil {
			t.Fatal(err)
		}
		for _, tag := range []string{"time_to_first_token", "output_sequence_length", "inter_token_latency"} {
			if v, ok := rm.Values[tag]; ok {
				t.Errorf("error record carries %s = %+v from a recycled record", tag, v)
			}
		}
		if rm.Record != failed.Record {
			t.Error("recycled RecordMetrics points at the old request record")
		}
		p.Recycle(rm)
	}
}
