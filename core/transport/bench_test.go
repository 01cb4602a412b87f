package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// BenchmarkSSEParse parses a 102-event chat stream (100 content chunks,
// usage, [DONE]) delivered in 4 KiB reads, reusing one parser as the
// transport does through its pool.
func BenchmarkSSEParse(b *testing.B) {
	stream := chatStream(100)
	const readSize = 4096
	var p SSEParser
	dst := make([]sdk.Response, 0, 128)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		p.Reset()
		dst = dst[:0]
		for off := 0; off < len(stream); off += readSize {
			dst = p.Feed(dst, stream[off:min(off+readSize, len(stream))], int64(off))
		}
		dst = p.Finish(dst)
		events += len(dst)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSendStreaming sends requests to a loopback server that streams 20
// events per response, each flushed on its own.
func BenchmarkSendStreaming(b *testing.B) {
	const perResponse = 20
	stream := chatStream(perResponse - 2)
	var chunks [][]byte
	for start, i := 0, 0; i < len(stream); i++ {
		if stream[i] == '\n' && i > 0 && stream[i-1] == '\n' {
			chunks = append(chunks, stream[start:i+1])
			start = i + 1
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for _, c := range chunks {
			_, _ = w.Write(c)
			f.Flush()
		}
	}))
	defer srv.Close()
	tr := New(Options{MaxConnsPerHost: 1})
	defer tr.Close()
	req := &sdk.TransportRequest{
		URL:     srv.URL + "/v1/chat/completions",
		Headers: map[string]string{"Content-Type": "application/json", "Accept": "text/event-stream"},
		Body:    []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`),
	}
	ctx := context.Background()
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		var rec sdk.RequestRecord
		tr.Send(ctx, req, &rec)
		if rec.Error != nil || len(rec.Responses) != perResponse {
			b.Fatalf("error %+v, %d responses", rec.Error, len(rec.Responses))
		}
		events += len(rec.Responses)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}
