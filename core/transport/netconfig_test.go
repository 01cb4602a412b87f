package transport

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// hangGuard is far above every bound below: it only turns a hang into a
// failure instead of a stuck test.
const hangGuard = 60 * time.Second

// configured builds the transport the way core/app's host does: plugin settings,
// Init with the run's request timeout, Validate.
func configured(t *testing.T, settings string, reqTimeout time.Duration) *HTTPTransport {
	t.Helper()
	tr := newTransport(t, Options{})
	// The host configures a plugin only when it has settings ("" = none).
	if settings != "" {
		if err := sdk.ApplyConfig(tr, "transport.http", []byte(settings)); err != nil {
			t.Fatalf("ApplyConfig(%s): %v", settings, err)
		}
	}
	if err := tr.Init(context.Background(), sdk.RunInfo{RequestTimeout: reqTimeout}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	return tr
}

// sendGuarded sends req and fails the test if Send has not returned
// within hangGuard.
func sendGuarded(t *testing.T, tr *HTTPTransport, req *sdk.TransportRequest) *sdk.RequestRecord {
	t.Helper()
	rec := &sdk.RequestRecord{}
	done := make(chan struct{})
	go func() {
		tr.Send(context.Background(), req, rec)
		close(done)
	}()
	select {
	case <-done:
		return rec
	case <-time.After(hangGuard):
		t.Fatalf("Send still waiting after %v", hangGuard)
		return nil
	}
}

// silentListener accepts TCP connections, reads nothing and answers
// nothing: a server that is up at the TCP level but never speaks (TLS or
// HTTP). Connections are held until the test ends.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}

func TestTLSHandshakeTimeout(t *testing.T) {
	addr := silentListener(t)
	// The request timeout is an hour: only the 0.2 s handshake bound can end it.
	tr := configured(t, `{"tls_handshake_timeout":0.2}`, time.Hour)
	rec := sendGuarded(t, tr, &sdk.TransportRequest{URL: "https://" + addr + "/v1/chat/completions", Body: []byte(`{}`)})
	if rec.Error == nil || !strings.Contains(rec.Error.Message, "TLS handshake timeout") {
		t.Fatalf("error = %+v, want a TLS handshake timeout", rec.Error)
	}
	if rec.Status != 0 || rec.AckPerfNs != 0 {
		t.Errorf("status %d ack %d, want no response", rec.Status, rec.AckPerfNs)
	}
}

// TestStalledServerEndsOnRequestTimeout: a server that accepts and then
// goes silent, before or after the headers, costs one error record at the
// run's --request-timeout-seconds, not a stuck run.
func TestStalledServerEndsOnRequestTimeout(t *testing.T) {
	tests := []struct {
		name string
		// reply is what the server writes before going silent ("" = it
		// never reads the request nor answers).
		reply         string
		wantStatus    int
		wantResponses int
	}{
		{"accepts, never reads or answers", "", 0, 0},
		{"stops mid-stream", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"n\":1}\n\n", 200, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			held := make(chan net.Conn, 1)
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				if tt.reply != "" {
					buf := make([]byte, 4096)
					_, _ = c.Read(buf) // the request head and its small body
					_, _ = c.Write([]byte(tt.reply))
				}
				held <- c // silent from here on, connection kept open
			}()
			defer func() {
				select {
				case c := <-held:
					_ = c.Close()
				default:
				}
			}()
			tr := configured(t, `{}`, 300*time.Millisecond)
			rec := sendGuarded(t, tr, &sdk.TransportRequest{URL: "http://" + ln.Addr().String() + "/v1/chat/completions", Body: []byte(`{"stream":true}`), Streaming: true})
			if rec.Error == nil || rec.Error.Type != ErrTypeTimeout {
				t.Fatalf("error = %+v, want %s", rec.Error, ErrTypeTimeout)
			}
			if rec.Status != tt.wantStatus || len(rec.Responses) != tt.wantResponses {
				t.Errorf("status %d responses %d, want %d %d", rec.Status, len(rec.Responses), tt.wantStatus, tt.wantResponses)
			}
			if rec.EndPerfNs < rec.StartPerfNs {
				t.Errorf("end %d before start %d", rec.EndPerfNs, rec.StartPerfNs)
			}
		})
	}
}

func TestNetSettingsRefused(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		settings string
		wantErr  string
	}{
		{"env not a number", map[string]string{"AIPERF_HTTP_TCP_USER_TIMEOUT": "30s"}, "", `AIPERF_HTTP_TCP_USER_TIMEOUT="30s": want an integer from 1 to 1000000`},
		{"env below AIPerf's bound", map[string]string{"AIPERF_HTTP_TCP_KEEPCNT": "0"}, "", `AIPERF_HTTP_TCP_KEEPCNT="0": want an integer from 1 to 100`},
		{"env above AIPerf's bound", map[string]string{"AIPERF_HTTP_TCP_KEEPIDLE": "100001"}, "", `AIPERF_HTTP_TCP_KEEPIDLE="100001": want an integer from 1 to 100000`},
		{"negative connect timeout", nil, `{"connect_timeout":-1}`, `transport.http.connect_timeout=-1: want seconds from 0 (default) to 1000000`},
		{"keepcnt too large", nil, `{"tcp_keepcnt":101}`, `transport.http.tcp_keepcnt=101: want 0 (default) to 100`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			tr := newTransport(t, Options{})
			if tt.settings != "" {
				if err := sdk.ApplyConfig(tr, "transport.http", []byte(tt.settings)); err != nil {
					t.Fatal(err)
				}
			}
			if err := tr.Init(context.Background(), sdk.RunInfo{}); err != nil {
				t.Fatal(err)
			}
			err := tr.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
	if err := sdk.ApplyConfig(newTransport(t, Options{}), "transport.http", []byte(`{"connect_timeout_s":5}`)); err == nil || !strings.Contains(err.Error(), "connect_timeout_s") {
		t.Errorf("unknown key: err = %v, want it named", err)
	}
}

func TestNetSettingsDefaults(t *testing.T) {
	// AIPerf 0.13 _HTTPSettings defaults; Go's DefaultTransport for the two
	// timeouts AIPerf does not have.
	want := NetSettings{ConnectTimeout: 30, TLSHandshakeTimeout: 10, TCPUserTimeoutMs: 30000, TCPKeepIdle: 60, TCPKeepIntvl: 30, TCPKeepCnt: 1}
	tr := newTransport(t, Options{})
	if got := *tr.PluginConfig().(*NetSettings); got != want {
		t.Fatalf("PluginConfig() = %+v, want %+v", got, want)
	}
	if tr.tr.TLSHandshakeTimeout != 10*time.Second {
		t.Errorf("TLSHandshakeTimeout %v, want 10s", tr.tr.TLSHandshakeTimeout)
	}
	d := newDialer(NetSettings{})
	if d.Timeout != 30*time.Second || d.KeepAliveConfig != (net.KeepAliveConfig{Enable: true, Idle: 60 * time.Second, Interval: 30 * time.Second, Count: 1}) {
		t.Errorf("dialer timeout %v keepalive %+v", d.Timeout, d.KeepAliveConfig)
	}
}
