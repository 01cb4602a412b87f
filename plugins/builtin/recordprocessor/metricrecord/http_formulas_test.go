package metricrecord

import (
	"maps"
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// AIPerf 0.13's first record of testdata/aiperf013/a_chat_stream (a new
// connection to 127.0.0.1), as trace stamps: connecting 9.039714 ms, sending
// 9.667696 ms (it includes the connect, as aiohttp's on_request_start comes
// before the connector), waiting 2.407022 ms, receiving 48.036487 ms, 17
// chunks / 3664 bytes received, one 470-byte body written.
func aiperfNewConnection() *sdk.HTTPTrace {
	const t0 = 1_000_000
	sendEnd := int64(t0 + 9_667_696)
	recvStart := sendEnd + 2_407_022
	return &sdk.HTTPTrace{
		RequestSendStartNs: t0, PoolWaitStartNs: t0, PoolWaitEndNs: t0,
		TCPConnectStartNs: t0, TCPConnectEndNs: t0 + 9_039_714,
		RequestSendEndNs: sendEnd, RequestChunks: 1, RequestBytes: 470,
		ResponseReceiveStartNs: recvStart, ResponseReceiveEndNs: recvStart + 48_036_487,
		ResponseChunks: 17, ResponseBytes: 3664,
	}
}

// The same request on a reused connection after a 5 µs pool wait.
func reusedConnection() *sdk.HTTPTrace {
	return &sdk.HTTPTrace{
		RequestSendStartNs: 100, PoolWaitStartNs: 100, PoolWaitEndNs: 5_100, ConnectionReused: true,
		RequestSendEndNs: 200_100, RequestChunks: 1, RequestBytes: 2048,
		ResponseReceiveStartNs: 1_200_100, ResponseReceiveEndNs: 3_200_100,
		ResponseChunks: 4, ResponseBytes: 512,
	}
}

func httpValues(t *testing.T, tr *sdk.HTTPTrace, valid bool) map[string]float64 {
	t.Helper()
	rec := &sdk.RequestRecord{Status: 200, Streaming: true, HTTPTrace: tr}
	if !valid {
		rec.Status, rec.Error = 500, &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error"}
	}
	rm, err := New().Process(&sdk.ParsedRecord{Record: rec})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, s := range httpSpecs {
		if v, ok := rm.Values[s.Tag]; ok {
			out[s.Tag] = v.Scalar
		}
	}
	return out
}

func TestHTTPFormulas(t *testing.T) {
	edit := func(base func() *sdk.HTTPTrace, f func(*sdk.HTTPTrace)) *sdk.HTTPTrace {
		tr := base()
		f(tr)
		return tr
	}
	cases := []struct {
		name  string
		trace *sdk.HTTPTrace
		want  map[string]float64 // every HTTP tag present, with these values
	}{
		{"AIPerf's a_chat_stream record 0: new connection", aiperfNewConnection(), map[string]float64{
			TagHTTPBlocked: 0, TagHTTPDNSLookup: 0, TagHTTPConnecting: 9_039_714,
			TagHTTPSending: 9_667_696, TagHTTPWaiting: 2_407_022, TagHTTPReceiving: 48_036_487,
			TagHTTPConnectionReused: 0, TagHTTPDataSent: 0.458984375, TagHTTPChunksSent: 1,
			TagHTTPDataReceived: 3.578125, TagHTTPChunksReceived: 17,
			TagHTTPConnectionOverhead: 9_039_714, TagHTTPDuration: 60_111_205, TagHTTPTotal: 69_150_919,
		}},
		{"reused connection: no DNS or connect, the pool wait is blocked", reusedConnection(), map[string]float64{
			TagHTTPBlocked: 5_000, TagHTTPDNSLookup: 0, TagHTTPConnecting: 0,
			TagHTTPSending: 200_000, TagHTTPWaiting: 1_000_000, TagHTTPReceiving: 2_000_000,
			TagHTTPConnectionReused: 1, TagHTTPDataSent: 2, TagHTTPChunksSent: 1,
			TagHTTPDataReceived: 0.5, TagHTTPChunksReceived: 4,
			TagHTTPConnectionOverhead: 5_000, TagHTTPDuration: 3_200_000, TagHTTPTotal: 3_205_000,
		}},
		{"reused connection ignores stale connect stamps", edit(reusedConnection, func(tr *sdk.HTTPTrace) {
			tr.DNSLookupStartNs, tr.TCPConnectStartNs = 50, 60
		}), map[string]float64{
			TagHTTPBlocked: 5_000, TagHTTPDNSLookup: 0, TagHTTPConnecting: 0,
			TagHTTPSending: 200_000, TagHTTPWaiting: 1_000_000, TagHTTPReceiving: 2_000_000,
			TagHTTPConnectionReused: 1, TagHTTPDataSent: 2, TagHTTPChunksSent: 1,
			TagHTTPDataReceived: 0.5, TagHTTPChunksReceived: 4,
			TagHTTPConnectionOverhead: 5_000, TagHTTPDuration: 3_200_000, TagHTTPTotal: 3_205_000,
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := httpValues(t, c.trace, true)
			if !maps.Equal(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

// Phases that did not happen are 0 where AIPerf returns 0; missing stamps
// and negative spans make a metric absent, and with it the sums that need it.
func TestHTTPFormulasAbsentAndZero(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(*sdk.HTTPTrace)
		absent []string
		zero   []string
	}{
		{"host name resolved", func(tr *sdk.HTTPTrace) {
			tr.DNSLookupStartNs, tr.DNSLookupEndNs = tr.TCPConnectStartNs, tr.TCPConnectStartNs+1_000
		}, nil, []string{TagHTTPBlocked}},
		{"lookup never finished", func(tr *sdk.HTTPTrace) { tr.DNSLookupStartNs = tr.TCPConnectStartNs },
			[]string{TagHTTPDNSLookup, TagHTTPConnectionOverhead, TagHTTPTotal}, nil},
		{"no pool wait recorded", func(tr *sdk.HTTPTrace) { tr.PoolWaitStartNs, tr.PoolWaitEndNs = 0, 0 },
			nil, []string{TagHTTPBlocked, TagHTTPDNSLookup}},
		{"pool wait never ended", func(tr *sdk.HTTPTrace) { tr.PoolWaitEndNs = 0 },
			[]string{TagHTTPBlocked, TagHTTPConnectionOverhead, TagHTTPTotal}, nil},
		{"new connection without a connect phase", func(tr *sdk.HTTPTrace) { tr.TCPConnectStartNs, tr.TCPConnectEndNs = 0, 0 },
			[]string{TagHTTPConnecting, TagHTTPConnectionOverhead, TagHTTPTotal}, nil},
		{"request never fully written", func(tr *sdk.HTTPTrace) { tr.RequestSendEndNs = 0 },
			[]string{TagHTTPSending, TagHTTPWaiting, TagHTTPTotal}, nil},
		{"first chunk before the request was written", func(tr *sdk.HTTPTrace) { tr.ResponseReceiveStartNs = tr.RequestSendEndNs - 1 },
			[]string{TagHTTPWaiting, TagHTTPTotal}, nil},
		{"one chunk", func(tr *sdk.HTTPTrace) {
			tr.ResponseChunks, tr.ResponseReceiveStartNs = 1, tr.ResponseReceiveEndNs
		}, nil, []string{TagHTTPReceiving}},
		{"no chunk at all", func(tr *sdk.HTTPTrace) {
			tr.ResponseChunks, tr.ResponseBytes, tr.ResponseReceiveStartNs, tr.ResponseReceiveEndNs = 0, 0, 0, 0
		}, []string{TagHTTPWaiting, TagHTTPReceiving, TagHTTPDuration, TagHTTPTotal},
			[]string{TagHTTPDataReceived, TagHTTPChunksReceived}},
		{"empty request body", func(tr *sdk.HTTPTrace) { tr.RequestChunks, tr.RequestBytes = 0, 0 },
			nil, []string{TagHTTPDataSent, TagHTTPChunksSent}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := aiperfNewConnection()
			c.edit(tr)
			got := httpValues(t, tr, true)
			for _, s := range httpSpecs {
				_, has := got[s.Tag]
				if want := !slices.Contains(c.absent, s.Tag); has != want {
					t.Errorf("%s present %v, want %v (values %v)", s.Tag, has, want, got)
				}
			}
			for _, tag := range c.zero {
				if v, ok := got[tag]; !ok || v != 0 {
					t.Errorf("%s = %v (present %v), want 0", tag, v, ok)
				}
			}
		})
	}
	if got := httpValues(t, aiperfNewConnection(), true); got[TagHTTPDNSLookup] != 0 {
		t.Errorf("IP address: DNS lookup %v, want 0", got[TagHTTPDNSLookup])
	}
	tr := aiperfNewConnection()
	tr.DNSLookupStartNs, tr.DNSLookupEndNs = tr.TCPConnectStartNs, tr.TCPConnectStartNs+1_000
	if got := httpValues(t, tr, true); got[TagHTTPDNSLookup] != 1_000 || got[TagHTTPConnectionOverhead] != 9_039_714+1_000 {
		t.Errorf("resolved host: dns %v, overhead %v; want 1000 ns and connecting + dns (AIPerf adds both)",
			got[TagHTTPDNSLookup], got[TagHTTPConnectionOverhead])
	}
}

// No trace, no HTTP metric; failed records get none either (AIPerf computes
// them for valid records only).
func TestHTTPMetricsNeedATraceAndASuccess(t *testing.T) {
	if got := httpValues(t, nil, true); len(got) != 0 {
		t.Errorf("record without a trace: %v", got)
	}
	if got := httpValues(t, aiperfNewConnection(), false); len(got) != 0 {
		t.Errorf("failed record: %v", got)
	}
}

// BenchmarkProcessRecordWithHTTPTrace is BenchmarkProcessRecord's record
// with an HTTP trace: the cost of the 14 HTTP trace metrics is the
// difference.
func BenchmarkProcessRecordWithHTTPTrace(b *testing.B) {
	resp := make([]int64, 100)
	for j := range resp {
		resp[j] = int64(50_000_000 + j*5_000_000)
	}
	pr := makeRecord(0, resp, 1)
	pr.Responses = append(pr.Responses, sdk.ParsedResponse{PerfNs: 600_000_000, Usage: &sdk.Usage{}})
	pr.InputTokens = intp(550)
	pr.Record.HTTPTrace = aiperfNewConnection()
	p := New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Process(pr); err != nil {
			b.Fatal(err)
		}
	}
}
