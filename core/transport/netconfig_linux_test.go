//go:build linux

package transport

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// sockOpts are the options read back from a live client socket.
type sockOpts struct {
	userTimeoutMs, keepAlive, keepIdle, keepIntvl, keepCnt int
}

func readSockOpts(c net.Conn) (sockOpts, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return sockOpts{}, errors.New("not a TCP connection")
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return sockOpts{}, err
	}
	var o sockOpts
	var errs []error
	get := func(fd int, level, opt int, dst *int) {
		v, err := unix.GetsockoptInt(fd, level, opt)
		errs = append(errs, err)
		*dst = v
	}
	err = raw.Control(func(fd uintptr) {
		get(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, &o.userTimeoutMs)
		get(int(fd), unix.SOL_SOCKET, unix.SO_KEEPALIVE, &o.keepAlive)
		get(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, &o.keepIdle)
		get(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, &o.keepIntvl)
		get(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPCNT, &o.keepCnt)
	})
	return o, errors.Join(append(errs, err)...)
}

// TestSocketOptionsOnTheWire reads the options back from the socket a real
// request used, for AIPerf's defaults, its AIPERF_HTTP_* variables, and
// --plugin-config over them.
func TestSocketOptionsOnTheWire(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	tests := []struct {
		name     string
		env      map[string]string
		settings string
		want     sockOpts
	}{
		{"AIPerf defaults", nil, `{}`, sockOpts{30000, 1, 60, 30, 1}},
		{"AIPERF_HTTP_* environment", map[string]string{
			"AIPERF_HTTP_TCP_USER_TIMEOUT": "12345", "AIPERF_HTTP_TCP_KEEPIDLE": "7",
			"AIPERF_HTTP_TCP_KEEPINTVL": "3", "AIPERF_HTTP_TCP_KEEPCNT": "4",
		}, "", sockOpts{12345, 1, 7, 3, 4}},
		{"plugin config over environment", map[string]string{"AIPERF_HTTP_TCP_USER_TIMEOUT": "12345"},
			`{"tcp_user_timeout_ms":5000,"tcp_keepidle":120,"tcp_keepintvl":15,"tcp_keepcnt":9}`, sockOpts{5000, 1, 120, 15, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			tr := configured(t, tt.settings, 30*time.Second)
			var got sockOpts
			var gotErr error
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(ci httptrace.GotConnInfo) { got, gotErr = readSockOpts(ci.Conn) },
			})
			rec := &sdk.RequestRecord{}
			tr.Send(ctx, &sdk.TransportRequest{URL: srv.URL, Body: []byte(`{}`)}, rec)
			mustNotFail(t, rec.Error)
			if gotErr != nil {
				t.Fatal(gotErr)
			}
			if got != tt.want {
				t.Fatalf("socket options %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fullBacklogListener is a loopback listener with backlog 0 whose accept
// queue is filled and never drained: Linux drops further SYNs, so a new
// connect hangs as it would towards a blackholed host.
func fullBacklogListener(t *testing.T) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "backlog0")
	t.Cleanup(func() { _ = f.Close() })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*unix.SockaddrInet4).Port))
	// Fill the queue until a connect stops completing.
	for i := 0; ; i++ {
		if i == 16 {
			t.Fatal("accept queue of a backlog-0 listener never filled")
		}
		c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	return addr
}

// TestConnectTimeout: only connect_timeout can end this request early (the
// request timeout is an hour and TCP_USER_TIMEOUT, which also bounds SYN
// retries, ten minutes). Go reports a dial timeout as both a dial error and
// a deadline: it is a connection error, not the (hour-long) request timeout.
func TestConnectTimeout(t *testing.T) {
	addr := fullBacklogListener(t)
	tr := configured(t, `{"connect_timeout":0.3,"tcp_user_timeout_ms":600000}`, time.Hour)
	rec := sendGuarded(t, tr, &sdk.TransportRequest{URL: "http://" + addr + "/v1/chat/completions", Body: []byte(`{}`)})
	if rec.Error == nil {
		t.Fatal("no error record for a connect that never completes")
	}
	if rec.Status != 0 || rec.AckPerfNs != 0 {
		t.Errorf("status %d ack %d, want no response", rec.Status, rec.AckPerfNs)
	}
	if rec.Error.Type != ErrTypeConnect || strings.Contains(rec.Error.Message, "timed out after 3600") {
		t.Errorf("error %+v: want %s naming the dial, not the request timeout", rec.Error, ErrTypeConnect)
	}
	if took := time.Duration(rec.EndPerfNs - rec.StartPerfNs); took >= 30*time.Second {
		t.Errorf("request took %v: the 0.3 s connect timeout did not end it", took)
	}
}
