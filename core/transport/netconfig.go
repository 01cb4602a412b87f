package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// NetSettings bound how long a dead or half-open connection can hold a
// request: the connect, the TLS handshake, unacknowledged writes
// (TCP_USER_TIMEOUT) and a silent peer (TCP keepalive). Without them only
// the request timeout (6 hours by default) ends such a request.
//
// They are the http transport's plugin settings
// (--plugin-config transport.http.<key>=<value>); the TCP ones default to
// AIPerf 0.13's AIPERF_HTTP_* environment settings, which they also read.
// A zero value means the default.
type NetSettings struct {
	// ConnectTimeout is the TCP connect timeout in seconds (default 30,
	// Go's http.DefaultTransport; AIPerf has none beyond the request's).
	ConnectTimeout float64 `json:"connect_timeout"`
	// TLSHandshakeTimeout is the TLS handshake timeout in seconds
	// (default 10, Go's http.DefaultTransport; AIPerf has none).
	TLSHandshakeTimeout float64 `json:"tls_handshake_timeout"`
	// TCPUserTimeoutMs is TCP_USER_TIMEOUT in milliseconds (Linux only):
	// how long sent data may stay unacknowledged before the kernel drops
	// the connection. AIPERF_HTTP_TCP_USER_TIMEOUT, default 30000.
	TCPUserTimeoutMs int `json:"tcp_user_timeout_ms"`
	// TCPKeepIdle, TCPKeepIntvl (seconds) and TCPKeepCnt (probes) tune TCP
	// keepalive, which AIPerf always turns on: AIPERF_HTTP_TCP_KEEPIDLE
	// (60), AIPERF_HTTP_TCP_KEEPINTVL (30), AIPERF_HTTP_TCP_KEEPCNT (1).
	TCPKeepIdle  int `json:"tcp_keepidle"`
	TCPKeepIntvl int `json:"tcp_keepintvl"`
	TCPKeepCnt   int `json:"tcp_keepcnt"`
}

// AIPerf 0.13 defaults (common/environment.py _HTTPSettings) and Go's
// http.DefaultTransport for the two timeouts AIPerf lacks.
const (
	defaultConnectTimeout      = 30.0
	defaultTLSHandshakeTimeout = 10.0
	defaultTCPUserTimeoutMs    = 30000
	defaultTCPKeepIdle         = 60
	defaultTCPKeepIntvl        = 30
	defaultTCPKeepCnt          = 1
)

// netEnv lists the AIPerf environment settings the transport honours, with
// AIPerf's bounds.
var netEnv = []struct {
	name     string
	min, max int
	field    func(*NetSettings) *int
}{
	{"AIPERF_HTTP_TCP_USER_TIMEOUT", 1, 1000000, func(s *NetSettings) *int { return &s.TCPUserTimeoutMs }},
	{"AIPERF_HTTP_TCP_KEEPIDLE", 1, 100000, func(s *NetSettings) *int { return &s.TCPKeepIdle }},
	{"AIPERF_HTTP_TCP_KEEPINTVL", 1, 100000, func(s *NetSettings) *int { return &s.TCPKeepIntvl }},
	{"AIPERF_HTTP_TCP_KEEPCNT", 1, 100, func(s *NetSettings) *int { return &s.TCPKeepCnt }},
}

func (s NetSettings) withDefaults() NetSettings {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.ConnectTimeout, defaultConnectTimeout)
	def(&s.TLSHandshakeTimeout, defaultTLSHandshakeTimeout)
	defInt(&s.TCPUserTimeoutMs, defaultTCPUserTimeoutMs)
	defInt(&s.TCPKeepIdle, defaultTCPKeepIdle)
	defInt(&s.TCPKeepIntvl, defaultTCPKeepIntvl)
	defInt(&s.TCPKeepCnt, defaultTCPKeepCnt)
	return s
}

// fromEnv overrides s with the AIPERF_HTTP_* settings lookup finds.
func (s NetSettings) fromEnv(lookup func(string) (string, bool)) (NetSettings, error) {
	var errs []error
	for _, e := range netEnv {
		v, ok := lookup(e.name)
		if !ok || strings.TrimSpace(v) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < e.min || n > e.max {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer from %d to %d", e.name, v, e.min, e.max))
			continue
		}
		*e.field(&s) = n
	}
	return s, errors.Join(errs...)
}

// validate refuses values no socket could take; names the plugin setting.
func (s NetSettings) validate() error {
	var errs []error
	posF := func(key string, v float64) {
		if v < 0 || v > 1e6 {
			errs = append(errs, fmt.Errorf("transport.http.%s=%v: want seconds from 0 (default) to 1000000", key, v))
		}
	}
	posI := func(key string, v, hi int) {
		if v < 0 || v > hi {
			errs = append(errs, fmt.Errorf("transport.http.%s=%d: want 0 (default) to %d", key, v, hi))
		}
	}
	posF("connect_timeout", s.ConnectTimeout)
	posF("tls_handshake_timeout", s.TLSHandshakeTimeout)
	posI("tcp_user_timeout_ms", s.TCPUserTimeoutMs, 1000000)
	posI("tcp_keepidle", s.TCPKeepIdle, 100000)
	posI("tcp_keepintvl", s.TCPKeepIntvl, 100000)
	posI("tcp_keepcnt", s.TCPKeepCnt, 100)
	return errors.Join(errs...)
}

func secondsDur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// newDialer builds the dialer of every connection: connect timeout,
// AIPerf's keepalive timing, and TCP_USER_TIMEOUT set before connect (so it
// also bounds SYN retries on Linux).
func newDialer(s NetSettings) *net.Dialer {
	s = s.withDefaults()
	userTimeout := s.TCPUserTimeoutMs
	return &net.Dialer{
		Timeout: secondsDur(s.ConnectTimeout),
		KeepAliveConfig: net.KeepAliveConfig{
			Enable:   true,
			Idle:     time.Duration(s.TCPKeepIdle) * time.Second,
			Interval: time.Duration(s.TCPKeepIntvl) * time.Second,
			Count:    s.TCPKeepCnt,
		},
		ControlContext: func(_ context.Context, network, _ string, c syscall.RawConn) error {
			if !strings.HasPrefix(network, "tcp") {
				return nil
			}
			var serr error
			if err := c.Control(func(fd uintptr) { serr = setTCPUserTimeout(fd, userTimeout) }); err != nil {
				return err
			}
			if serr != nil {
				return fmt.Errorf("setting TCP_USER_TIMEOUT=%dms: %w", userTimeout, serr)
			}
			return nil
		},
	}
}

// PluginConfig exposes the network settings to --plugin-config
// transport.http.<key>; their defaults include the AIPERF_HTTP_* environment,
// read on the first call (here or from Init, as the host configures only a
// plugin that has settings).
func (t *HTTPTransport) PluginConfig() any {
	if !t.envRead {
		t.envRead = true
		t.opts.Net, t.envErr = t.opts.Net.withDefaults().fromEnv(os.LookupEnv)
	}
	return &t.opts.Net
}

// Validate reports a bad AIPERF_HTTP_* value or plugin setting.
func (t *HTTPTransport) Validate() error {
	if err := errors.Join(t.envErr, t.opts.Net.validate()); err != nil {
		return fmt.Errorf("transport http: %w", err)
	}
	return nil
}

var (
	_ sdk.Configurable = (*HTTPTransport)(nil)
	_ sdk.Validator    = (*HTTPTransport)(nil)
)
