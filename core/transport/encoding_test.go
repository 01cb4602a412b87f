package transport

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/andybalholm/brotli"
)

// compressor is a streaming encoder for one Content-Encoding.
type compressor interface {
	io.WriteCloser
	Flush() error
}

var encoders = map[string]func(io.Writer) compressor{
	"gzip":        func(w io.Writer) compressor { return gzip.NewWriter(w) },
	"x-gzip":      func(w io.Writer) compressor { return gzip.NewWriter(w) },
	"deflate":     func(w io.Writer) compressor { return zlib.NewWriter(w) },
	"raw-deflate": func(w io.Writer) compressor { c, _ := flate.NewWriter(w, flate.DefaultCompression); return c },
	"br":          func(w io.Writer) compressor { return brotli.NewWriter(w) },
}

// wireName is the Content-Encoding header for an encoder key.
func wireName(enc string) string {
	if enc == "raw-deflate" {
		return "deflate"
	}
	return enc
}

// compressed serves body compressed with enc, flushing the compressor after
// each part so every part reaches the wire on its own.
func compressed(enc, contentType string, parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Encoding", wireName(enc))
		w.WriteHeader(http.StatusOK)
		c := encoders[enc](w)
		for _, p := range parts {
			_, _ = c.Write([]byte(p))
			_ = c.Flush()
			w.(http.Flusher).Flush()
		}
		_ = c.Close()
	}
}

func TestSendDecodesContentEncoding(t *testing.T) {
	stream := chatStream(3)
	events := bytes.SplitAfter(stream, []byte("\n\n"))
	parts := make([]string, 0, len(events))
	for _, e := range events {
		if len(e) > 0 {
			parts = append(parts, string(e))
		}
	}
	const answer = `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello world"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`
	for enc := range encoders {
		t.Run(enc+"/sse", func(t *testing.T) {
			srv := httptest.NewServer(compressed(enc, "text/event-stream", parts...))
			defer srv.Close()
			rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Body: []byte(`{}`), Streaming: true})
			mustNotFail(t, rec.Error)
			// 3 content chunks, the usage chunk and [DONE].
			if !rec.Streaming || len(rec.Responses) != 5 {
				t.Fatalf("streaming %v, %d responses, want true 5: %+v", rec.Streaming, len(rec.Responses), rec.Responses)
			}
			if got := string(rec.Responses[1].Data); !strings.Contains(got, `"content":" token1"`) {
				t.Errorf("event 1 = %q, want the second content chunk", got)
			}
			if got := string(rec.Responses[4].Data); got != "[DONE]" {
				t.Errorf("last event = %q, want [DONE]", got)
			}
		})
		t.Run(enc+"/json", func(t *testing.T) {
			srv := httptest.NewServer(compressed(enc, "application/json", answer[:40], answer[40:]))
			defer srv.Close()
			rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Body: []byte(`{}`)})
			mustNotFail(t, rec.Error)
			if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != answer {
				t.Fatalf("responses %+v, want the decoded body", rec.Responses)
			}
		})
	}
}

// A gzip stream flushed per event is read event by event: the server sends
// the second event only after the client has seen the first, which a
// decoder that waits for more input before returning would never allow.
func TestSendGzipStreamDeliversEventsAsTheyArrive(t *testing.T) {
	seen := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		_, _ = gz.Write([]byte("data: first\n\n"))
		_ = gz.Flush()
		w.(http.Flusher).Flush()
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			return // the test fails on the missing second event
		case <-r.Context().Done():
			return
		}
		_, _ = gz.Write([]byte("data: second\n\n"))
		_ = gz.Close()
	}))
	defer srv.Close()
	n := 0
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Streaming: true,
		OnEvent: func([]byte) bool {
			if n++; n == 1 {
				close(seen)
			}
			return false
		}})
	mustNotFail(t, rec.Error)
	if len(rec.Responses) != 2 || string(rec.Responses[1].Data) != "second" {
		t.Fatalf("responses %+v, want first and second", rec.Responses)
	}
	if rec.Responses[0].PerfNs > rec.Responses[1].PerfNs || rec.Responses[1].PerfNs > rec.EndPerfNs {
		t.Errorf("stamps out of order: %d, %d, end %d", rec.Responses[0].PerfNs, rec.Responses[1].PerfNs, rec.EndPerfNs)
	}
}

func TestSendUndecodableBodyIsErrorNamingEncoding(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"a long enough answer to compress"}}]}`))
	_ = w.Close()
	valid := gz.Bytes()
	corrupt := append(append([]byte{}, valid[:12]...), bytes.Repeat([]byte{0xff}, 20)...)
	cases := []struct {
		name, enc, contentType string
		body                   []byte
		want                   string
	}{
		{name: "not gzip at all", enc: "gzip", contentType: "application/json", body: []byte(`{"plain":"json"}`), want: "Can not decode content-encoding: gzip: gzip: invalid header"},
		{name: "corrupt gzip data", enc: "gzip", contentType: "application/json", body: corrupt, want: "Can not decode content-encoding: gzip: flate: corrupt input"},
		{name: "truncated gzip", enc: "gzip", contentType: "application/json", body: valid[:len(valid)-6], want: "Can not decode content-encoding: gzip: unexpected EOF"},
		{name: "corrupt gzip stream", enc: "gzip", contentType: "text/event-stream", body: corrupt, want: "Can not decode content-encoding: gzip: flate: corrupt input"},
		{name: "not deflate", enc: "deflate", contentType: "application/json", body: []byte{0x78, 0x9c, 0xff, 0xff, 0xff}, want: "Can not decode content-encoding: deflate"},
		{name: "zstd", enc: "zstd", contentType: "application/json", body: []byte("x"), want: "Can not decode content-encoding: zstd: zstd is not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", c.contentType)
				w.Header().Set("Content-Encoding", c.enc)
				_, _ = w.Write(c.body)
			}))
			defer srv.Close()
			rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL, Streaming: true})
			if rec.Error == nil {
				t.Fatalf("no error; responses %+v", rec.Responses)
			}
			if rec.Error.Type != ErrTypePayload || !strings.HasPrefix(rec.Error.Message, c.want) {
				t.Errorf("error %s: %q, want %s: %q…", rec.Error.Type, rec.Error.Message, ErrTypePayload, c.want)
			}
			if rec.Status != 200 || rec.EndPerfNs == 0 {
				t.Errorf("status %d end %d, want 200 and an end time", rec.Status, rec.EndPerfNs)
			}
		})
	}
}

// identity and codings aiohttp does not decode pass through as sent.
func TestSendPassesThroughIdentity(t *testing.T) {
	for _, enc := range []string{"identity", "Identity ", "compress-unknown"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", enc)
			_, _ = w.Write([]byte(`{"ok":1}`))
		}))
		rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
		srv.Close()
		mustNotFail(t, rec.Error)
		if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != `{"ok":1}` {
			t.Errorf("%q: responses %+v, want the body as sent", enc, rec.Responses)
		}
	}
}

// A compressed error body is decoded into the error message.
func TestSendDecodesErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusServiceUnavailable)
		gz := gzip.NewWriter(w)
		_, _ = gz.Write([]byte(`{"error":"overloaded"}`))
		_ = gz.Close()
	}))
	defer srv.Close()
	rec := send(t, newTransport(t, Options{}), context.Background(), &sdk.TransportRequest{URL: srv.URL})
	if rec.Error == nil || rec.Error.Code != 503 || rec.Error.Message != `{"error":"overloaded"}` {
		t.Fatalf("error %+v, want 503 with the decoded body", rec.Error)
	}
}
