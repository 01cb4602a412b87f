package mockserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// discardWriter is a minimal ResponseWriter+Flusher, so the benchmark times
// the handler rather than a recorder's growing buffer.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(code int)        { d.status = code }
func (d *discardWriter) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }
func (d *discardWriter) Flush()                      {}

// benchStream runs the in-process handler on a 100-token --fast chat stream
// with include_usage: role + 100 tokens + finish + usage + [DONE] = 104 events.
func benchStream(b *testing.B, parallel bool) {
	s, err := New(Config{Fast: true})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	body := []byte(chatBody("mock-model", testPrompt,
		`"stream":true,"stream_options":{"include_usage":true},"max_tokens":100,"ignore_eos":true`))
	u, _ := url.Parse("/v1/chat/completions")
	const eventsPerRequest = 104

	run := func(rd *bytes.Reader, w *discardWriter, req *http.Request) {
		rd.Reset(body)
		w.n = 0
		clear(w.h)
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.n == 0 {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
	newReq := func(rd *bytes.Reader) *http.Request {
		return &http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}, Body: io.NopCloser(rd), Host: "bench"}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if parallel {
		b.RunParallel(func(pb *testing.PB) {
			rd := bytes.NewReader(body)
			w := &discardWriter{h: http.Header{}}
			req := newReq(rd)
			for pb.Next() {
				run(rd, w, req)
			}
		})
	} else {
		rd := bytes.NewReader(body)
		w := &discardWriter{h: http.Header{}}
		req := newReq(rd)
		for b.Loop() {
			run(rd, w, req)
		}
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N*eventsPerRequest)/secs, "events/s")
	b.ReportMetric(float64(b.N)/secs, "req/s")
}

func BenchmarkStreamChat(b *testing.B)         { benchStream(b, false) }
func BenchmarkStreamChatParallel(b *testing.B) { benchStream(b, true) }

// BenchmarkStreamChatLoopback measures the same stream over real loopback
// HTTP (client cost included), as a benchmark client would see it.
func BenchmarkStreamChatLoopback(b *testing.B) {
	s, err := New(Config{Host: "127.0.0.1", Fast: true})
	if err != nil {
		b.Fatal(err)
	}
	addr, err := s.Start()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	body := chatBody("mock-model", testPrompt,
		`"stream":true,"stream_options":{"include_usage":true},"max_tokens":100,"ignore_eos":true`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	target := "http://" + addr + "/v1/chat/completions"
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 32<<10)
		for pb.Next() {
			resp, err := client.Post(target, "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			for {
				if _, err := resp.Body.Read(buf); err != nil {
					break
				}
			}
			resp.Body.Close()
		}
	})
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N*104)/secs, "events/s")
	b.ReportMetric(float64(b.N)/secs, "req/s")
}
