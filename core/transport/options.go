package transport

import (
	"crypto/tls"
	"errors"
	"net/http"
	"time"
)

// Options tune the shared HTTP client.
type Options struct {
	// MaxConnsPerHost caps open connections per host; size it to the run's
	// concurrency so no request waits for a connection. 0 means no cap.
	// The idle pool is sized to the same number so keep-alive connections
	// survive between requests.
	MaxConnsPerHost int
	// Timeout is the per-request timeout (connect, send and the whole
	// response) used when a TransportRequest has none. 0 means no timeout.
	Timeout time.Duration
	// IdleConnTimeout closes keep-alive connections idle this long
	// (default 90s).
	IdleConnTimeout time.Duration
	// InsecureSkipVerify turns TLS certificate verification off (it is on by
	// default, as in AIPerf with AIPERF_HTTP_SSL_VERIFY unset).
	InsecureSkipVerify bool
	// UseEnvProxy honours HTTP_PROXY/HTTPS_PROXY/NO_PROXY. Off by default,
	// like aiohttp's trust_env=False in AIPerf, so a benchmark never goes
	// through a proxy by accident.
	UseEnvProxy bool
	// ReadBufferSize is the per-connection read buffer (default 16 KiB) and
	// the size of each body Read. Both are held for as long as a request
	// is in flight: at 64 KiB, 1400 concurrent streams held 180 MB of
	// buffers (docs/PERFORMANCE.md).
	ReadBufferSize int
	// Net bounds dead and half-open connections (netconfig.go); zero
	// fields take AIPerf's defaults.
	Net NetSettings
}

const (
	defaultIdleConnTimeout = 90 * time.Second
	defaultReadBuffer      = 16 << 10
	// defaultWriteBuffer is net/http's own: a request is one header block
	// and a body written once; a larger body simply takes several writes.
	defaultWriteBuffer = 4 << 10
	// defaultIdlePool keeps connections reusable when MaxConnsPerHost is 0;
	// Go's default of 2 idle connections per host would churn sockets.
	defaultIdlePool = 1024
	// maxRedirects matches aiohttp's max_redirects default.
	maxRedirects = 10
)

// errTooManyRedirects marks a redirect chain longer than maxRedirects.
var errTooManyRedirects = errors.New("too many redirects")

func (o Options) withDefaults() Options {
	if o.IdleConnTimeout <= 0 {
		o.IdleConnTimeout = defaultIdleConnTimeout
	}
	if o.ReadBufferSize <= 0 {
		o.ReadBufferSize = defaultReadBuffer
	}
	o.Net = o.Net.withDefaults()
	if o.MaxConnsPerHost < 0 {
		o.MaxConnsPerHost = 0
	}
	return o
}

// newHTTPClient builds the one client every request shares.
//
// Decisions, each matching AIPerf's aiohttp client:
//   - HTTP/1.1 only, for http:// and https:// alike (aiohttp has no HTTP/2;
//     this also rules out h2c upgrades);
//   - no transparent compression: Go would add Accept-Encoding: gzip and
//     decompress, and we time the raw bytes the server sent;
//   - redirects are followed, at most 10 (aiohttp's allow_redirects=True,
//     max_redirects=10); 301/302/303 turn POST into a body-less GET and
//     307/308 resend the body, in both libraries;
//   - TLS verification on unless InsecureSkipVerify;
//   - connect and TLS-handshake timeouts, TCP keepalive and TCP_USER_TIMEOUT
//     from o.Net (netconfig.go), so a half-open connection fails the
//     request long before the request timeout.
func newHTTPClient(o Options) (*http.Client, *http.Transport) {
	var protocols http.Protocols
	protocols.SetHTTP1(true)

	idle := o.MaxConnsPerHost
	if idle == 0 {
		idle = defaultIdlePool
	}
	tr := &http.Transport{
		DialContext:         newDialer(o.Net).DialContext,
		TLSHandshakeTimeout: secondsDur(o.Net.TLSHandshakeTimeout),
		Protocols:           &protocols,
		MaxConnsPerHost:     o.MaxConnsPerHost,
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		IdleConnTimeout:     o.IdleConnTimeout,
		DisableCompression:  true,
		ReadBufferSize:      o.ReadBufferSize,
		WriteBufferSize:     defaultWriteBuffer,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: o.InsecureSkipVerify}, //nolint:gosec // opt-in only
	}
	if o.UseEnvProxy {
		tr.Proxy = http.ProxyFromEnvironment
	}
	client := &http.Client{
		Transport: tr,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return errTooManyRedirects
			}
			return nil
		},
	}
	return client, tr
}
