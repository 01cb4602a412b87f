package metricrecord

import (
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// usageRecord is a streamed record with client counts (output, reasoning,
// input) and the usage the server reported, as AIPerf's
// create_record_with_usage builds it.
func usageRecord(input, output int, reasoning *int, usage *sdk.Usage) *sdk.ParsedRecord {
	pr := makeRecord(100, []int64{150}, 0)
	pr.InputTokens, pr.OutputTokens, pr.ReasoningTokens = intp(input), intp(output), reasoning
	pr.Usage = usage
	return pr
}

func usage(prompt, completion int, reasoning *int) *sdk.Usage {
	return &sdk.Usage{PromptTokens: intp(prompt), CompletionTokens: intp(completion),
		TotalTokens: intp(prompt + completion), ReasoningTokens: reasoning}
}

// The usage family: the server's counts as reported (absent when it did
// not report them, 0 when it reported 0) and AIPerf's |usage − client| /
// client × 100, with the numbers of AIPerf's usage_diff_metrics.py
// docstrings and tests/unit/metrics/test_usage_diff_metrics.py.
func TestUsageFamily(t *testing.T) {
	cases := []struct {
		name   string
		pr     *sdk.ParsedRecord
		want   map[string]float64
		absent []string
	}{
		{"exact match", usageRecord(100, 50, nil, usage(100, 50, nil)),
			map[string]float64{TagUsagePromptTokens: 100, TagUsageCompletionTokens: 50, TagUsageTotalTokens: 150,
				TagUsagePromptDiff: 0, TagUsageCompletionDiff: 0},
			[]string{TagUsageReasoningTokens, TagUsageReasoningDiff}},
		{"API reports 5% more prompt, 10% more completion", usageRecord(100, 50, nil, usage(105, 55, nil)),
			map[string]float64{TagUsagePromptDiff: 5, TagUsageCompletionDiff: 10}, nil},
		{"API reports fewer: the difference is absolute", usageRecord(100, 50, nil, usage(95, 48, nil)),
			map[string]float64{TagUsagePromptDiff: 5, TagUsageCompletionDiff: 4}, nil},
		{"large prompt discrepancy", usageRecord(100, 100, nil, usage(150, 90, nil)),
			map[string]float64{TagUsagePromptDiff: 50, TagUsageCompletionDiff: 10}, nil},
		// usage completion_tokens includes reasoning, so it is compared with
		// the OSL (output + reasoning).
		{"completion against OSL with reasoning", usageRecord(100, 40, intp(60), usage(100, 100, intp(60))),
			map[string]float64{TagUsageCompletionDiff: 0, TagUsageReasoningTokens: 60, TagUsageReasoningDiff: 0, TagReasoningCount: 60}, nil},
		{"reasoning 52 vs 50", usageRecord(100, 50, intp(50), usage(100, 100, intp(52))),
			map[string]float64{TagUsageReasoningDiff: 4}, nil},
		{"reasoning 80 vs 100", usageRecord(100, 50, intp(100), usage(100, 150, intp(80))),
			map[string]float64{TagUsageReasoningDiff: 20}, nil},
		// A reported 0 is a value; the diff needs a client count.
		{"server reports 0 reasoning tokens, client counts none", usageRecord(64, 16, nil, usage(64, 16, intp(0))),
			map[string]float64{TagUsageReasoningTokens: 0, TagUsagePromptDiff: 0, TagUsageCompletionDiff: 0},
			[]string{TagUsageReasoningDiff}},
		// Zero client counts: no percentage (AIPerf raises NoMetricValue).
		{"zero client input", usageRecord(0, 50, nil, usage(10, 50, nil)),
			map[string]float64{TagUsagePromptTokens: 10}, []string{TagUsagePromptDiff}},
		{"zero client reasoning", usageRecord(100, 50, intp(0), usage(100, 60, intp(10))),
			map[string]float64{TagUsageReasoningTokens: 10}, []string{TagUsageReasoningDiff}},
		{"no usage reported", usageRecord(100, 50, nil, nil), nil,
			[]string{TagUsagePromptTokens, TagUsageCompletionTokens, TagUsageTotalTokens, TagUsageReasoningTokens,
				TagUsagePromptDiff, TagUsageCompletionDiff, TagUsageReasoningDiff}},
		{"usage without prompt tokens", usageRecord(100, 50, nil, &sdk.Usage{CompletionTokens: intp(50)}),
			map[string]float64{TagUsageCompletionTokens: 50, TagUsageCompletionDiff: 0},
			[]string{TagUsagePromptTokens, TagUsageTotalTokens, TagUsagePromptDiff}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := mustProcess(t, tc.pr)
			for tag, want := range tc.want {
				if got := scalar(t, rm, tag); !near(got, want) {
					t.Errorf("%s = %v, want %v", tag, got, want)
				}
			}
			assertAbsent(t, rm, tc.absent...)
		})
	}
}

// osl_mismatch_diff_pct = (OSL − requested) / requested × 100, signed
// (AIPerf osl_mismatch_metrics.py and its tests).
func TestOSLMismatchDiff(t *testing.T) {
	cases := []struct {
		name              string
		requested         *int
		output, reasoning int
		want              float64
		absent            bool
	}{
		{"exact", intp(100), 100, 0, 0, false},
		{"stopped early", intp(100), 50, 0, -50, false},
		{"generated more", intp(100), 120, 0, 20, false},
		{"reasoning counts toward the OSL", intp(100), 40, 60, 0, false},
		{"no max tokens requested", nil, 100, 0, 0, true},
		{"zero requested", intp(0), 100, 0, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr := makeRecord(100, []int64{150}, 0)
			pr.OutputTokens, pr.ReasoningTokens = intp(tc.output), intp(tc.reasoning)
			pr.Record.RequestedOutputTokens = tc.requested
			rm := mustProcess(t, pr)
			if tc.absent {
				assertAbsent(t, rm, TagOSLMismatchDiff)
				return
			}
			if got := scalar(t, rm, TagOSLMismatchDiff); !near(got, tc.want) {
				t.Errorf("osl_mismatch_diff_pct = %v, want %v", got, tc.want)
			}
		})
	}
}

// decode_duration, e2e_output_token_throughput and
// prefill_throughput_per_user, with the first record of AIPerf 0.13's
// reference run (testdata/aiperf013/a_chat_stream/profile_export.jsonl):
// TTFT 30.967878 ms, request latency 60.333604 ms, OSL 16, ISL 64. AIPerf
// wrote decode 29.365726 ms, E2E 265.19218046380917 and prefill
// 2066.6575862898967 tokens/sec/user: the same floats, bit for bit.
func TestDecodeAndPerRequestThroughputs(t *testing.T) {
	const start = 2_756_981_183_825
	ref := func(streamed bool) *sdk.ParsedRecord {
		resp := []int64{start + 30_967_878}
		for i := 1; i < 15; i++ {
			resp = append(resp, start+30_967_878+int64(i)*2_000_000)
		}
		resp = append(resp, start+60_333_604)
		pr := makeRecord(start, resp, 1)
		pr.InputTokens = intp(64)
		pr.Record.Streaming = streamed
		return pr
	}
	rm := mustProcess(t, ref(true))
	for tag, want := range map[string]float64{
		TagDecodeDuration: 29_365_726, TagE2EOutputTPS: 265.19218046380917, TagPrefillTPSPerUser: 2066.6575862898967,
	} {
		if got := scalar(t, rm, tag); got != want {
			t.Errorf("%s = %v, want AIPerf's %v", tag, got, want)
		}
	}

	// A record that did not stream has no TTFT: only E2E remains.
	rm = mustProcess(t, ref(false))
	if got := scalar(t, rm, TagE2EOutputTPS); got != 265.19218046380917 {
		t.Errorf("E2E = %v", got)
	}
	assertAbsent(t, rm, TagDecodeDuration, TagPrefillTPSPerUser)

	// Division by a zero latency or TTFT leaves the rate absent; decode 0 is a value.
	zero := makeRecord(100, []int64{100}, 4)
	zero.InputTokens = intp(10)
	rm = mustProcess(t, zero)
	assertAbsent(t, rm, TagE2EOutputTPS, TagPrefillTPSPerUser)
	if got := scalar(t, rm, TagDecodeDuration); got != 0 {
		t.Errorf("decode_duration = %v, want 0", got)
	}

	// No ISL: no prefill throughput; no OSL: no E2E.
	noCounts := ref(true)
	noCounts.InputTokens, noCounts.OutputTokens = nil, nil
	assertAbsent(t, mustProcess(t, noCounts), TagPrefillTPSPerUser, TagE2EOutputTPS)
}

// The families follow the run's applicability like every record metric, and
// failed records carry none of them.
func TestFamilyApplicability(t *testing.T) {
	pr := usageRecord(100, 50, nil, usage(100, 50, nil))
	pr.Record.RequestedOutputTokens = intp(50)
	nonStreaming := streamingInfo()
	nonStreaming.Streaming = false
	embeddings := streamingInfo()
	embeddings.Endpoint.ProducesTokens = false

	everything := []string{TagUsagePromptTokens, TagUsageCompletionTokens, TagUsageTotalTokens, TagUsagePromptDiff,
		TagUsageCompletionDiff, TagOSLMismatchDiff, TagE2EOutputTPS, TagPrefillTPSPerUser, TagDecodeDuration}
	cases := []struct {
		name            string
		info            sdk.RunInfo
		present, absent []string
	}{
		// USAGE_DIFF_ONLY metrics run by default, as in AIPerf.
		{"streaming run", streamingInfo(), everything, nil},
		{"non-streaming run", nonStreaming,
			[]string{TagUsagePromptTokens, TagUsagePromptDiff, TagOSLMismatchDiff, TagE2EOutputTPS},
			[]string{TagPrefillTPSPerUser, TagDecodeDuration}},
		{"produces_tokens=false", embeddings, []string{TagUsagePromptTokens, TagUsagePromptDiff},
			[]string{TagUsageCompletionTokens, TagUsageTotalTokens, TagUsageCompletionDiff, TagOSLMismatchDiff,
				TagE2EOutputTPS, TagPrefillTPSPerUser, TagDecodeDuration}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := mustProcessFor(t, tc.info, pr)
			for _, tag := range tc.present {
				if _, ok := rm.Values[tag]; !ok {
					t.Errorf("%s absent", tag)
				}
			}
			assertAbsent(t, rm, tc.absent...)
		})
	}

	failed := usageRecord(100, 50, nil, usage(100, 50, nil))
	failed.Record.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error", Message: "boom"}
	assertAbsent(t, mustProcess(t, failed), everything...)
}

// BenchmarkProcessRecordFamilies is BenchmarkProcessRecord's record with
// what the families read on a real run: the server's usage and the
// requested max tokens (so every family metric is computed).
func BenchmarkProcessRecordFamilies(b *testing.B) {
	resp := make([]int64, 100)
	for j := range resp {
		resp[j] = int64(50_000_000 + j*5_000_000)
	}
	pr := makeRecord(0, resp, 1)
	pr.Responses = append(pr.Responses, sdk.ParsedResponse{PerfNs: 600_000_000, Usage: usage(550, 100, intp(0))})
	pr.Usage = pr.Responses[len(pr.Responses)-1].Usage
	pr.InputTokens = intp(550)
	pr.Record.RequestedOutputTokens = intp(100)
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Process(pr); err != nil {
			b.Fatal(err)
		}
	}
}
