package metricrecord

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

const nsPerSec = 1e9

// errorMetrics computes the ERROR_ONLY metrics of a failed request.
func errorMetrics(pr *sdk.ParsedRecord, v map[string]sdk.MetricValue) {
	setCount(v, TagErrorISL, pr.InputTokens)
}

// contentScan is what the latency metrics need from the response list,
// gathered in one pass without allocating.
type contentScan struct {
	count                 int
	first, second, last   int64
	firstOutput           int64
	hasOutput             bool
	firstIndex, lastIndex int
}

func scanContent(rs []sdk.ParsedResponse) contentScan {
	var s contentScan
	for i := range rs {
		r := &rs[i]
		if !r.HasContent() {
			continue
		}
		switch s.count {
		case 0:
			s.first, s.firstIndex = r.PerfNs, i
		case 1:
			s.second = r.PerfNs
		}
		s.count++
		s.last, s.lastIndex = r.PerfNs, i
		// TTFO skips reasoning-only chunks: the first chunk with output text.
		if !s.hasOutput && r.Text != "" {
			s.firstOutput, s.hasOutput = r.PerfNs, true
		}
	}
	return s
}

// validMetrics computes the normal metrics of a successful request. Which
// of them apply to the run (streaming, token-producing endpoint, ...) is the
// core's call; the per-record conditions are AIPerf's.
func validMetrics(pr *sdk.ParsedRecord, v map[string]sdk.MetricValue) {
	rec := pr.Record
	start := rec.StartPerfNs
	c := scanContent(pr.Responses)
	// The newer AIPerf streaming metrics need the record to have actually
	// streamed (STREAMED_REQUEST_TAG), not just a streaming run.
	streamed := rec.Streaming

	latency, hasLatency := int64(0), false
	if c.count >= 1 {
		latency, hasLatency = c.last-start, c.last-start >= 0
		if hasLatency {
			setScalar(v, TagRequestLatency, float64(latency))
		}
	}

	ttft, hasTTFT := int64(0), false
	if streamed && c.count >= 1 {
		ttft, hasTTFT = c.first-start, c.first-start >= 0
		if hasTTFT {
			setScalar(v, TagTTFT, float64(ttft))
		}
	}
	if streamed && c.count >= 2 && c.second >= c.first {
		setScalar(v, TagTTST, float64(c.second-c.first))
	}
	// AIPerf's TTFO has no per-record streamed check; the run-level
	// STREAMING_ONLY flag is its only gate.
	if c.hasOutput && c.firstOutput >= start {
		setScalar(v, TagTTFO, float64(c.firstOutput-start))
	}
	if streamed && c.count >= 2 {
		if gaps, ok := chunkGaps(pr.Responses[c.firstIndex:c.lastIndex+1], c.count); ok {
			v[TagICL] = sdk.MetricValue{List: gaps, IsList: true}
		}
	}

	// Only open-loop strategies schedule requests; closed-loop ones have no lag.
	if rec.ScheduledNs > 0 {
		setScalar(v, TagScheduleLag, float64(start-rec.ScheduledNs))
	}

	setCount(v, TagOutputTokenCount, pr.OutputTokens)
	setCount(v, TagReasoningCount, pr.ReasoningTokens)
	setCount(v, TagISL, pr.InputTokens)
	osl, hasOSL := outputSequenceLength(pr.OutputTokens, pr.ReasoningTokens)
	if hasOSL {
		setScalar(v, TagOSL, float64(osl))
	}
	m := measured{
		latency: latency, ttft: ttft, osl: osl,
		hasLatency: hasLatency, hasTTFT: hasTTFT, hasOSL: hasOSL,
	}
	familyMetrics(pr, v, m)
	mediaMetrics(pr, v, m)

	// ITL = (latency - ttft) / (osl - 1): the per-request mean decode gap.
	if !hasOSL || osl < 2 || !hasLatency || !hasTTFT || latency < ttft {
		return
	}
	itl := float64(latency-ttft) / float64(osl-1)
	setScalar(v, TagITL, itl)
	if itl != 0 {
		// 1 / ITL in seconds, as AIPerf converts ITL to seconds first.
		setScalar(v, TagTPSPerUser, 1/(itl/nsPerSec))
	}
}

// outputSequenceLength is output + reasoning tokens, absent only when both
// counts are absent; a negative total is invalid and dropped.
func outputSequenceLength(out, reasoning *int) (int, bool) {
	if out == nil && reasoning == nil {
		return 0, false
	}
	n := 0
	if out != nil {
		n += *out
	}
	if reasoning != nil {
		n += *reasoning
	}
	return n, n >= 0
}

// chunkGaps lists the gaps between consecutive content responses of rs
// (which starts and ends with one). A negative gap is invalid and drops the
// metric; a zero gap is allowed, as newer AIPerf only rejects < 0 (two
// chunks read from one TCP segment share a timestamp).
func chunkGaps(rs []sdk.ParsedResponse, contentCount int) ([]float64, bool) {
	gaps := make([]float64, 0, contentCount-1)
	prev := rs[0].PerfNs
	for i := 1; i < len(rs); i++ {
		if !rs[i].HasContent() {
			continue
		}
		gap := rs[i].PerfNs - prev
		if gap < 0 {
			return nil, false
		}
		gaps = append(gaps, float64(gap))
		prev = rs[i].PerfNs
	}
	return gaps, true
}

func setScalar(v map[string]sdk.MetricValue, tag string, x float64) {
	v[tag] = sdk.MetricValue{Scalar: x}
}

// setCount records a token count: absent when nil, dropped when negative.
func setCount(v map[string]sdk.MetricValue, tag string, n *int) {
	if n != nil && *n >= 0 {
		v[tag] = sdk.MetricValue{Scalar: float64(*n)}
	}
}

// measured are the values of a record the family metrics build on, as
// validMetrics computed them (absent ones flagged false).
type measured struct {
	latency, ttft               int64
	osl                         int
	hasLatency, hasTTFT, hasOSL bool
}

// secPerNs converts ns to seconds the way AIPerf does (value ×
// (1 / 1e9), MetricTimeUnit.convert_to), so rates divide by the same float.
const secPerNs = 1 / nsPerSec

// familyMetrics computes AIPerf 0.13's usage, mismatch and per-request
// throughput metrics of a successful request. Each is absent when an input
// is (a usage field the server did not report, a token count, max tokens
// that were not requested) or when it would divide by zero.
func familyMetrics(pr *sdk.ParsedRecord, v map[string]sdk.MetricValue, m measured) {
	// decode_duration = request_latency − TTFT (first to last content
	// response); negative is invalid and dropped.
	if m.hasLatency && m.hasTTFT && m.latency >= m.ttft {
		setScalar(v, TagDecodeDuration, float64(m.latency-m.ttft))
	}
	// e2e_output_token_throughput = OSL / request_latency in seconds.
	if m.hasOSL && m.hasLatency && m.latency != 0 {
		setScalar(v, TagE2EOutputTPS, float64(m.osl)/(float64(m.latency)*secPerNs))
	}
	// prefill_throughput_per_user = ISL / TTFT in seconds.
	if isl, ok := count(pr.InputTokens); ok && m.hasTTFT && m.ttft != 0 {
		setScalar(v, TagPrefillTPSPerUser, float64(isl)/(float64(m.ttft)*secPerNs))
	}
	// osl_mismatch_diff_pct = (OSL − requested) / requested × 100, signed:
	// negative when the server stopped early.
	if req := pr.Record.RequestedOutputTokens; req != nil && *req != 0 && m.hasOSL {
		setScalar(v, TagOSLMismatchDiff, float64(m.osl-*req)/float64(*req)*100)
	}

	// The usage the server reported (the last non-empty one) and how far it
	// is from the client's counts: |usage − client| / client × 100.
	u := pr.Usage
	if u == nil {
		return
	}
	setCount(v, TagUsagePromptTokens, u.PromptTokens)
	setCount(v, TagUsageCompletionTokens, u.CompletionTokens)
	setCount(v, TagUsageTotalTokens, u.TotalTokens)
	setCount(v, TagUsageReasoningTokens, u.ReasoningTokens)
	isl, hasISL := count(pr.InputTokens)
	usageDiff(v, TagUsagePromptDiff, u.PromptTokens, isl, hasISL)
	usageDiff(v, TagUsageCompletionDiff, u.CompletionTokens, m.osl, m.hasOSL)
	reasoning, hasReasoning := count(pr.ReasoningTokens)
	usageDiff(v, TagUsageReasoningDiff, u.ReasoningTokens, reasoning, hasReasoning)
}

// count reads a token count: absent when nil, invalid when negative.
func count(n *int) (int, bool) {
	if n == nil || *n < 0 {
		return 0, false
	}
	return *n, true
}

// usageDiff records |usage − client| / client × 100, absent when either
// count is (or is invalid) or the client count is 0.
func usageDiff(v map[string]sdk.MetricValue, tag string, usage *int, client int, hasClient bool) {
	if usage == nil || *usage < 0 || !hasClient || client == 0 {
		return
	}
	d := *usage - client
	if d < 0 {
		d = -d
	}
	setScalar(v, tag, float64(d)/float64(client)*100)
}
