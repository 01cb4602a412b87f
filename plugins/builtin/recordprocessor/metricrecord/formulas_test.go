package metricrecord

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Ported from AIPerf tests/metrics/test_ttft_metric.py.
func TestTTFT(t *testing.T) {
	cases := []struct {
		name      string
		start     int64
		responses []int64
		want      float64
		absent    bool
	}{
		{"single response", 100, []int64{110}, 10, false},
		{"first of two", 100, []int64{105, 115}, 5, false},
		{"response before start is dropped", 100, []int64{90}, 0, true},
		{"no responses", 100, nil, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := mustProcess(t, makeRecord(tc.start, tc.responses, 1))
			if tc.absent {
				assertAbsent(t, rm, TagTTFT)
				return
			}
			if got := scalar(t, rm, TagTTFT); got != tc.want {
				t.Fatalf("TTFT = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTTFTThreeRecords(t *testing.T) {
	var got []float64
	for _, r := range []*sdk.ParsedRecord{
		makeRecord(100, []int64{105}, 1),
		makeRecord(200, []int64{205}, 1),
		makeRecord(300, []int64{310}, 1),
	} {
		got = append(got, scalar(t, mustProcess(t, r), TagTTFT))
	}
	if want := []float64{5, 5, 10}; !slices.Equal(got, want) {
		t.Fatalf("TTFTs = %v, want %v", got, want)
	}
}

func TestLatencyFamily(t *testing.T) {
	cases := []struct {
		name      string
		start     int64
		responses []int64
		tokens    int
		want      map[string]float64
		absent    []string
	}{
		// test_inter_token_latency_metric.py: OSL 6, latency 100, TTFT 20.
		{"itl 16", 100, []int64{120, 200}, 3,
			map[string]float64{TagRequestLatency: 100, TagTTFT: 20, TagTTST: 80, TagOSL: 6, TagITL: 16, TagTPSPerUser: 1e9 / 16},
			nil},
		// OSL 9, latency 120, TTFT 40 -> (120-40)/8 = 10.
		{"itl 10", 1000, []int64{1040, 1080, 1120}, 3,
			map[string]float64{TagRequestLatency: 120, TagTTFT: 40, TagTTST: 40, TagOSL: 9, TagITL: 10, TagTPSPerUser: 1e8},
			nil},
		// osl < 2: ITL and TPS/user are absent, never 0.
		{"osl 1 has no itl", 0, []int64{50}, 1,
			map[string]float64{TagRequestLatency: 50, TagTTFT: 50, TagOSL: 1},
			[]string{TagITL, TagTPSPerUser, TagTTST, TagICL}},
		// All chunks at once: ITL 0 is a value, TPS/user (1/0) is absent.
		{"zero itl", 0, []int64{50, 50}, 2,
			map[string]float64{TagRequestLatency: 50, TagITL: 0, TagTTST: 0},
			[]string{TagTPSPerUser}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rm := mustProcess(t, makeRecord(tc.start, tc.responses, tc.tokens))
			for tag, want := range tc.want {
				if got := scalar(t, rm, tag); !near(got, want) {
					t.Errorf("%s = %v, want %v", tag, got, want)
				}
			}
			assertAbsent(t, rm, tc.absent...)
		})
	}
}

// The docs' JSONL example: ITL 5.2048325 ms -> TPS/user 1000/5.2048325.
func TestTPSPerUserFromDocsExample(t *testing.T) {
	rm := mustProcess(t, docsExampleRecord())
	if got := scalar(t, rm, TagITL); got != 5204832.5 {
		t.Fatalf("ITL = %v ns, want 5204832.5", got)
	}
	if got, want := scalar(t, rm, TagTPSPerUser), 192.1291415237666; !near(got, want) {
		t.Fatalf("TPS/user = %v, want %v", got, want)
	}
}

func TestInterChunkLatency(t *testing.T) {
	cases := []struct {
		name      string
		responses []sdk.ParsedResponse
		want      []float64
	}{
		{"three chunks", []sdk.ParsedResponse{{PerfNs: 100, Text: "a"}, {PerfNs: 150, Text: "b"}, {PerfNs: 210, Text: "c"}},
			[]float64{50, 60}},
		// Role-only and usage-only units carry no content and are skipped.
		{"non-content skipped", []sdk.ParsedResponse{{PerfNs: 90}, {PerfNs: 100, Text: "a"}, {PerfNs: 120},
			{PerfNs: 130, Reasoning: "r"}, {PerfNs: 400, Usage: &sdk.Usage{}}},
			[]float64{30}},
		// Zero gaps are allowed (newer AIPerf rejects only < 0).
		{"zero gap kept", []sdk.ParsedResponse{{PerfNs: 100, Text: "a"}, {PerfNs: 100, Text: "b"}},
			[]float64{0}},
		{"negative gap drops metric", []sdk.ParsedResponse{{PerfNs: 100, Text: "a"}, {PerfNs: 90, Text: "b"}}, nil},
		{"single chunk", []sdk.ParsedResponse{{PerfNs: 100, Text: "a"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr := makeRecord(0, nil, 0)
			pr.Responses = tc.responses
			rm := mustProcess(t, pr)
			v, ok := rm.Values[TagICL]
			if tc.want == nil {
				if ok {
					t.Fatalf("ICL = %v, want absent", v.List)
				}
				return
			}
			if !ok || !v.IsList || !slices.Equal(v.List, tc.want) {
				t.Fatalf("ICL = %+v, want list %v", v, tc.want)
			}
		})
	}
}

func TestRequestLatencyEndsAtLastContentResponse(t *testing.T) {
	pr := makeRecord(1000, []int64{1100, 1200}, 1)
	// A trailing usage-only chunk must not extend the latency.
	pr.Responses = append(pr.Responses, sdk.ParsedResponse{PerfNs: 5000, Usage: &sdk.Usage{CompletionTokens: intp(2)}})
	rm := mustProcess(t, pr)
	if got := scalar(t, rm, TagRequestLatency); got != 200 {
		t.Fatalf("request_latency = %v, want 200", got)
	}

	noContent := makeRecord(1000, nil, 0)
	noContent.Responses = []sdk.ParsedResponse{{PerfNs: 1500}}
	assertAbsent(t, mustProcess(t, noContent), TagRequestLatency, TagTTFT)
}

func TestTTFOSkipsReasoningOnlyChunks(t *testing.T) {
	pr := makeRecord(0, nil, 0)
	pr.Responses = []sdk.ParsedResponse{
		{PerfNs: 10, Reasoning: "think"},
		{PerfNs: 20, Reasoning: "more"},
		{PerfNs: 35, Reasoning: "done", Text: "Hi"}, // content alongside reasoning counts
		{PerfNs: 50, Text: "!"},
	}
	pr.OutputTokens, pr.ReasoningTokens = intp(2), intp(3)
	rm := mustProcess(t, pr)
	if ttft, ttfo := scalar(t, rm, TagTTFT), scalar(t, rm, TagTTFO); ttft != 10 || ttfo != 35 {
		t.Fatalf("TTFT = %v, TTFO = %v; want 10 and 35", ttft, ttfo)
	}
	if got := scalar(t, rm, TagOSL); got != 5 {
		t.Fatalf("OSL = %v, want 5 (output 2 + reasoning 3)", got)
	}
	if got := scalar(t, rm, TagReasoningCount); got != 3 {
		t.Fatalf("reasoning_token_count = %v, want 3", got)
	}

	reasoningOnly := makeRecord(0, nil, 0)
	reasoningOnly.Responses = []sdk.ParsedResponse{{PerfNs: 10, Reasoning: "think"}}
	assertAbsent(t, mustProcess(t, reasoningOnly), TagTTFO)
}

func TestTokenCounts(t *testing.T) {
	cases := []struct {
		name           string
		out, reas, isl *int
		want           map[string]float64
		absent         []string
	}{
		{"output only", intp(7), nil, intp(550),
			map[string]float64{TagOSL: 7, TagOutputTokenCount: 7, TagISL: 550},
			[]string{TagReasoningCount}},
		{"reasoning only", nil, intp(4), nil,
			map[string]float64{TagOSL: 4, TagReasoningCount: 4},
			[]string{TagOutputTokenCount, TagISL}},
		{"zero is a value", intp(0), nil, intp(0),
			map[string]float64{TagOSL: 0, TagOutputTokenCount: 0, TagISL: 0}, nil},
		{"both absent", nil, nil, nil, nil,
			[]string{TagOSL, TagOutputTokenCount, TagReasoningCount, TagISL}},
		{"negative dropped", intp(-3), nil, intp(-1), nil,
			[]string{TagOSL, TagOutputTokenCount, TagISL}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr := makeRecord(0, []int64{10}, 0)
			pr.OutputTokens, pr.ReasoningTokens, pr.InputTokens = tc.out, tc.reas, tc.isl
			rm := mustProcess(t, pr)
			for tag, want := range tc.want {
				if got := scalar(t, rm, tag); got != want {
					t.Errorf("%s = %v, want %v", tag, got, want)
				}
			}
			assertAbsent(t, rm, tc.absent...)
		})
	}
}

// The processor computes every metric it can and the core's catalog drops
// what does not apply: the outcome is AIPerf's gating (and this processor's
// before it computed only applicable metrics).
func TestApplicabilityGatesRecordMetrics(t *testing.T) {
	streamingOnly := []string{TagTTFT, TagTTST, TagTTFO, TagITL, TagICL, TagTPSPerUser}
	nonStreamingRun := streamingInfo()
	nonStreamingRun.Streaming = false
	embeddings := streamingInfo()
	embeddings.Endpoint.ProducesTokens = false
	noTokenizer := streamingInfo()
	noTokenizer.Endpoint.TokenizesInput = false

	cases := []struct {
		name     string
		info     sdk.RunInfo
		streamed bool
		present  []string
		absent   []string
	}{
		{"streaming run", streamingInfo(), true,
			append([]string{TagRequestLatency, TagOSL, TagISL, TagOutputTokenCount}, streamingOnly...), nil},
		{"non-streaming run", nonStreamingRun, false,
			[]string{TagRequestLatency, TagOSL, TagISL}, streamingOnly},
		// The server answered with one JSON body despite --streaming: the
		// record did not stream, so TTFT/TTST/ITL/ICL are skipped (TTFO, as
		// in AIPerf, has only the run-level gate).
		{"streaming run, record did not stream", streamingInfo(), false,
			[]string{TagRequestLatency, TagOSL, TagTTFO}, []string{TagTTFT, TagTTST, TagITL, TagICL, TagTPSPerUser}},
		{"produces_tokens=false", embeddings, true,
			[]string{TagRequestLatency, TagISL},
			append([]string{TagOSL, TagOutputTokenCount, TagReasoningCount}, streamingOnly...)},
		{"tokenizes_input=false", noTokenizer, true,
			[]string{TagRequestLatency, TagOSL, TagTTFT}, []string{TagISL}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr := makeRecord(0, []int64{10, 20, 30}, 2)
			pr.Record.Streaming = tc.streamed
			pr.InputTokens, pr.ReasoningTokens = intp(12), intp(1)
			rm := mustProcessFor(t, tc.info, pr)
			for _, tag := range tc.present {
				if _, ok := rm.Values[tag]; !ok {
					t.Errorf("%s absent, want present", tag)
				}
			}
			assertAbsent(t, rm, tc.absent...)
		})
	}
}

func TestErrorRecordsCarryOnlyErrorMetrics(t *testing.T) {
	pr := makeRecord(0, []int64{10, 20}, 3)
	pr.InputTokens = intp(550)
	pr.Record.Error = &sdk.ErrorDetails{Code: 499, Type: "RequestCancellationError", Message: "Request was cancelled after 0.000 seconds"}
	rm := mustProcess(t, pr)
	if len(rm.Values) != 1 || scalar(t, rm, TagErrorISL) != 550 {
		t.Fatalf("error record values = %v, want only error_isl=550", rm.Values)
	}
	if rm.InputTokens == nil || *rm.InputTokens != 550 {
		t.Fatalf("InputTokens not carried: %v", rm.InputTokens)
	}

	// A valid record never carries error_isl.
	ok := makeRecord(0, []int64{10}, 1)
	ok.InputTokens = intp(5)
	assertAbsent(t, mustProcess(t, ok), TagErrorISL)
}

func TestProcessRejectsMissingRecord(t *testing.T) {
	for _, pr := range []*sdk.ParsedRecord{nil, {}} {
		if rm, err := New().Process(pr); err == nil || rm != nil {
			t.Fatalf("Process(%v) = %v, %v; want an error", pr, rm, err)
		}
	}
}

func TestScheduleLag(t *testing.T) {
	info := sdk.RunInfo{Endpoint: sdk.EndpointMetadata{ProducesTokens: true, TokenizesInput: true}, Streaming: true}
	cases := []struct {
		name      string
		scheduled int64
		want      float64
		present   bool
	}{
		{"open-loop request sent 250 µs late", 1_000_000, 250_000, true},
		{"closed-loop request has no schedule", 0, 0, false},
	}
	for _, c := range cases {
		rec := &sdk.RequestRecord{StartPerfNs: 1_250_000, ScheduledNs: c.scheduled, Streaming: true}
		rm := mustProcessFor(t, info, &sdk.ParsedRecord{Record: rec, Responses: []sdk.ParsedResponse{{PerfNs: 2_000_000, Text: "x"}}})
		got, ok := rm.Values[TagScheduleLag]
		if ok != c.present || got.Scalar != c.want {
			t.Errorf("%s: schedule_lag = %v (present %v), want %v (present %v)", c.name, got.Scalar, ok, c.want, c.present)
		}
	}
	if d, _ := catalog(t, info).Lookup(TagScheduleLag); d.ToDisplay(250_000) != 0.25 || d.DisplayUnit != "ms" {
		t.Errorf("schedule_lag displays as %v %s", d.ToDisplay(250_000), d.DisplayUnit)
	}
}
