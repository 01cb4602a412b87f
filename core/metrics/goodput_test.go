package metrics

import (
	"maps"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestParseGoodput(t *testing.T) {
	cases := []struct {
		in      string
		want    map[string]float64
		wantErr []string // substrings the error must contain
	}{
		{"time_to_first_token:100 inter_token_latency:3.4",
			map[string]float64{TagTTFT: 100, TagITL: 3.4}, nil},
		{"  request_latency:250\toutput_token_throughput_per_user:600 ",
			map[string]float64{TagRequestLatency: 250, TagTPSPerUser: 600}, nil},
		{"", map[string]float64{}, nil},
		{"request_latency:0", map[string]float64{TagRequestLatency: 0}, nil},
		{"request_latency", nil, []string{"pair 1", `"request_latency"`, "malformed", "metric_tag:value"}},
		{"request_latency:250 :5", nil, []string{"pair 2", `":5"`, "malformed"}},
		{"request_latency:", nil, []string{"malformed"}},
		{"request_latency:fast", nil, []string{`"fast"`, "not a finite number"}},
		{"request_latency:NaN", nil, []string{"not a finite number"}},
		{"request_latency:-1", nil, []string{"negative"}},
		{"request_latency:1 request_latency:2", nil, []string{"more than once"}},
		// Tags are checked against the run's catalog (ValidateGoodputTags).
		{"bogus_metric:1", map[string]float64{"bogus_metric": 1}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseGoodput(tc.in)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("ParseGoodput(%q) = %v, want error", tc.in, got)
				}
				for _, sub := range tc.wantErr {
					if !strings.Contains(err.Error(), sub) {
						t.Errorf("error %q does not mention %q", err, sub)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseGoodput(%q): %v", tc.in, err)
			}
			if !maps.Equal(got, tc.want) {
				t.Fatalf("ParseGoodput(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestValidateGoodputTags(t *testing.T) {
	sloTags := []string{TagISL, TagITL, TagOSL, TagOutputTokenCount, TagTPSPerUser, TagReasoningCount,
		TagRequestLatency, TagScheduleLag, TagTTFO, TagTTFT, TagTTST}
	nonStreaming := streamingInfo()
	nonStreaming.Streaming = false
	embeddings := streamingInfo()
	embeddings.Endpoint.ProducesTokens = false
	cases := []struct {
		name    string
		slos    map[string]float64
		info    sdk.RunInfo
		wantErr []string
	}{
		{"latency always applies", map[string]float64{TagRequestLatency: 250}, nonStreaming, nil},
		{"ttft on streaming run", map[string]float64{TagTTFT: 100, TagITL: 3}, streamingInfo(), nil},
		{"ttft on non-streaming run", map[string]float64{TagTTFT: 100}, nonStreaming,
			[]string{TagTTFT, "does not apply", "--streaming"}},
		{"osl without tokens", map[string]float64{TagOSL: 10}, embeddings,
			[]string{TagOSL, "does not produce tokens"}},
		{"aggregate", map[string]float64{TagRequestCount: 1}, streamingInfo(), []string{"request_count cannot be an SLO", "aggregate"}},
		{"derived", map[string]float64{TagRequestThroughput: 10}, streamingInfo(), []string{"request_throughput cannot be an SLO", "derived"}},
		{"list", map[string]float64{TagICL: 5}, streamingInfo(), []string{"inter_chunk_latency cannot be an SLO", "list"}},
		{"error only", map[string]float64{TagErrorISL: 5}, streamingInfo(), []string{"error_isl cannot be an SLO", "failed requests"}},
		{"unknown", map[string]float64{"nope": 1}, streamingInfo(),
			[]string{`unknown metric tag "nope"`, "valid tags: " + strings.Join(sloTags, ", ")}},
		{"negative", map[string]float64{TagRequestLatency: -5}, streamingInfo(), []string{">= 0"}},
		{"none", nil, nonStreaming, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateGoodputTags(tc.slos, newCatalog(t, tc.info))
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			for _, sub := range tc.wantErr {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not mention %q", err, sub)
				}
			}
		})
	}
}

// test_good_request_count_metric.py: SLO request_latency:250 (ms) with
// latencies 100, 300 and 250 ms -> 2 good (<= for smaller-is-better).
func TestIsGoodDirections(t *testing.T) {
	cat := newCatalog(t, streamingInfo())
	latencySLO := resolveSLOs(map[string]float64{TagRequestLatency: 250}, cat)
	good := 0
	for _, ms := range []float64{100, 300, 250} {
		if isGood(latencySLO, map[string]sdk.MetricValue{TagRequestLatency: {Scalar: ms * 1e6}}) {
			good++
		}
	}
	if good != 2 {
		t.Fatalf("good = %d, want 2", good)
	}

	// LARGER_IS_BETTER uses >=; a missing target metric is not good.
	tps := resolveSLOs(map[string]float64{TagTPSPerUser: 600, TagRequestLatency: 250}, cat)
	cases := []struct {
		name   string
		values map[string]sdk.MetricValue
		want   bool
	}{
		{"both met", map[string]sdk.MetricValue{TagTPSPerUser: {Scalar: 600}, TagRequestLatency: {Scalar: 2e8}}, true},
		{"tps too low", map[string]sdk.MetricValue{TagTPSPerUser: {Scalar: 599.9}, TagRequestLatency: {Scalar: 2e8}}, false},
		{"tps missing", map[string]sdk.MetricValue{TagRequestLatency: {Scalar: 2e8}}, false},
	}
	for _, tc := range cases {
		if got := isGood(tps, tc.values); got != tc.want {
			t.Errorf("%s: isGood = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The catalog decides: an SLO on an external processor's declared metric
// is valid, converted from its display unit and compared in its direction.
func TestGoodputOnDeclaredPluginMetric(t *testing.T) {
	info := streamingInfo()
	info.Goodput = map[string]float64{"kv_cache_wait": 2}
	decl := append(builtinDecl(), Declared{Plugin: "kv_probe", Specs: []sdk.MetricSpec{
		{Tag: "kv_cache_wait", Header: "KV Cache Wait", Unit: "ns", DisplayUnit: "ms"},
	}})
	cat, err := NewCatalog(decl, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateGoodputTags(info.Goodput, cat); err != nil {
		t.Fatal(err)
	}
	acc, err := NewAccumulator(cat, info)
	if err != nil {
		t.Fatal(err)
	}
	for i, ns := range []float64{1e6, 2e6, 3e6} { // 2 ms threshold: 2 good
		rm := timedRecord(int64(i)*1e9, 1e8, 2)
		rm.Values["kv_cache_wait"] = sdk.MetricValue{Scalar: ns}
		acc.Add(rm)
	}
	if got := avg(t, acc.Summarize(), TagGoodRequestCount); got != 2 {
		t.Errorf("good_request_count = %v, want 2", got)
	}
	if err := ValidateGoodputTags(info.Goodput, nil); err == nil {
		t.Error("ValidateGoodputTags accepted SLOs without a catalog")
	}
}
