package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/core/version"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// metaEndpoint is an endpoint with chosen metadata: what the run derives
// from an endpoint (URLs, streaming) depends on nothing else.
type metaEndpoint struct{ md sdk.EndpointMetadata }

var _ sdk.Endpoint = metaEndpoint{}

func (m metaEndpoint) Metadata() sdk.EndpointMetadata { return m.md }
func (metaEndpoint) FormatPayload(sdk.RequestInfo) ([]byte, error) {
	return []byte(`{}`), nil
}
func (metaEndpoint) ParseResponse([]byte) (sdk.ParsedResponse, error) {
	return sdk.ParsedResponse{}, nil
}

// The metadata of OpenAI chat and completions endpoints (the built-ins'
// paths), written out so the core's tests need no plugin.
var (
	chatMeta = sdk.EndpointMetadata{EndpointPath: "/v1/chat/completions", StreamingPath: "/v1/chat/completions",
		ServiceKind: "openai", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}
	completionsMeta = sdk.EndpointMetadata{EndpointPath: "/v1/completions", StreamingPath: "/v1/completions",
		ServiceKind: "openai", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}
)

// endpointWith is an endpoint with md adjusted by edit.
func endpointWith(md sdk.EndpointMetadata, edit func(*sdk.EndpointMetadata)) metaEndpoint {
	edit(&md)
	return metaEndpoint{md: md}
}

func TestHeaders(t *testing.T) {
	ua := "aiperf/" + version.Version
	cases := []struct {
		name      string
		user      map[string]string
		streaming bool
		want      map[string]string
	}{
		{name: "defaults, non-streaming", want: map[string]string{
			"User-Agent": ua, "Content-Type": "application/json", "Accept": "application/json"}},
		{name: "defaults, streaming", streaming: true, want: map[string]string{
			"User-Agent": ua, "Content-Type": "application/json", "Accept": "text/event-stream"}},
		{name: "api key and custom headers pass through", user: map[string]string{"Authorization": "Bearer sk-1", "X-Team": "blue"},
			want: map[string]string{"User-Agent": ua, "Content-Type": "application/json", "Accept": "application/json",
				"Authorization": "Bearer sk-1", "X-Team": "blue"}},
		{name: "Content-Type and Accept are forced over user values", streaming: true,
			user: map[string]string{"Content-Type": "text/plain", "Accept": "text/html"},
			want: map[string]string{"User-Agent": ua, "Content-Type": "application/json", "Accept": "text/event-stream"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Settings: &Settings{UserHeaders: c.user}, RunInfo: sdk.RunInfo{Streaming: c.streaming}}
			got := r.headers()
			if len(got) != len(c.want) {
				t.Errorf("headers %v, want %v", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
	if ua != version.UserAgent() || !strings.HasPrefix(ua, "aiperf/") {
		t.Errorf("User-Agent %q", version.UserAgent())
	}
}

// TestHeadersForcedWhateverTheUserSpelling: header names are case-insensitive
// and config keeps the user's spelling, so "-H content-type:text/plain" must
// not survive next to the forced "Content-Type". The transport canonicalizes
// names, so two spellings collapse into one header and which value wins
// depends on map iteration order.
func TestHeadersForcedWhateverTheUserSpelling(t *testing.T) {
	user := map[string]string{"content-type": "text/plain", "ACCEPT": "text/html", "x-team": "blue"}
	r := &Runner{Settings: &Settings{UserHeaders: user}, RunInfo: sdk.RunInfo{Streaming: false}}
	h := r.headers()
	for name, want := range map[string]string{"Content-Type": "application/json", "Accept": "application/json"} {
		var spellings []string
		for k, v := range h {
			if strings.EqualFold(k, name) {
				spellings = append(spellings, fmt.Sprintf("%s=%q", k, v))
			}
		}
		if len(spellings) != 1 || h[name] != want {
			t.Errorf("%s: headers hold %v, want exactly one %s=%q", name, spellings, name, want)
		}
	}

	// What the server receives, through the real transport.
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		seen[req.Header.Get("Content-Type")+" | "+req.Header.Get("Accept")]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	tr := transport.New(transport.Options{})
	defer tr.Close()
	for range 64 {
		var rec sdk.RequestRecord
		tr.Send(context.Background(), &sdk.TransportRequest{URL: srv.URL, Headers: r.headers(), Body: []byte(`{}`)}, &rec)
		if rec.Error != nil {
			t.Fatalf("send: %+v", rec.Error)
		}
	}
	if want := "application/json | application/json"; len(seen) != 1 || seen[want] != 64 {
		t.Errorf("server saw Content-Type | Accept = %v over 64 requests, want always %q", seen, want)
	}
}

func TestEndpointURLs(t *testing.T) {
	chat, completions := metaEndpoint{md: chatMeta}, metaEndpoint{md: completionsMeta}
	splitPaths := endpointWith(chatMeta, func(m *sdk.EndpointMetadata) {
		m.EndpointPath, m.StreamingPath = "/v1/generate", "/v1/generate_stream"
	})
	noStreamPath := endpointWith(chatMeta, func(m *sdk.EndpointMetadata) { m.StreamingPath = "" })
	cases := []struct {
		name      string
		ep        sdk.Endpoint
		urls      []string
		custom    string
		streaming bool
		want      []string
	}{
		{name: "chat path", ep: chat, urls: []string{"http://h:8000"}, want: []string{"http://h:8000/v1/chat/completions"}},
		{name: "completions path", ep: completions, urls: []string{"http://h:8000"}, want: []string{"http://h:8000/v1/completions"}},
		{name: "trailing slashes on the base", ep: chat, urls: []string{"http://h:8000/", "https://g//"},
			want: []string{"http://h:8000/v1/chat/completions", "https://g/v1/chat/completions"}},
		{name: "base with a path prefix", ep: chat, urls: []string{"http://h/proxy/"}, want: []string{"http://h/proxy/v1/chat/completions"}},
		{name: "custom endpoint", ep: chat, urls: []string{"http://a/", "http://b"}, custom: "/v1/custom",
			want: []string{"http://a/v1/custom", "http://b/v1/custom"}},
		{name: "custom endpoint without a leading slash", ep: chat, urls: []string{"http://a/"}, custom: "v2/x",
			want: []string{"http://a/v2/x"}},
		{name: "custom endpoint wins over the streaming path", ep: splitPaths, urls: []string{"http://a"}, custom: "//mine/", streaming: true,
			want: []string{"http://a/mine/"}},
		{name: "streaming path when streaming", ep: splitPaths, urls: []string{"http://a"}, streaming: true,
			want: []string{"http://a/v1/generate_stream"}},
		{name: "endpoint path when not streaming", ep: splitPaths, urls: []string{"http://a"},
			want: []string{"http://a/v1/generate"}},
		{name: "no streaming path falls back", ep: noStreamPath, urls: []string{"http://a"}, streaming: true,
			want: []string{"http://a/v1/chat/completions"}},
		{name: "path goes before the base URL's query", ep: chat, urls: []string{"http://a:1/?api-key=K&x=1"},
			want: []string{"http://a:1/v1/chat/completions?api-key=K&x=1"}},
		{name: "custom endpoint query joined with the base query", ep: chat, urls: []string{"http://a?x=1"}, custom: "/v1/c?api-key=K",
			want: []string{"http://a/v1/c?api-key=K&x=1"}},
		// The URLs people paste (AIPerf 0.13's _dedup_path_overlap).
		{name: "an OpenAI base URL ending in /v1", ep: chat, urls: []string{"http://h:8000/v1", "http://h:8000/v1/"},
			want: []string{"http://h:8000/v1/chat/completions", "http://h:8000/v1/chat/completions"}},
		{name: "the full endpoint URL", ep: chat, urls: []string{"http://h:8000/v1/chat/completions", "https://g/v1/chat/completions/"},
			want: []string{"http://h:8000/v1/chat/completions", "https://g/v1/chat/completions"}},
		{name: "a gateway prefix before /v1", ep: chat, urls: []string{"https://gw.example/openai/v1?api-version=2024-10-21"},
			want: []string{"https://gw.example/openai/v1/chat/completions?api-version=2024-10-21"}},
		{name: "/v1 base with a custom endpoint under v1", ep: chat, urls: []string{"http://h/v1"}, custom: "/v1/embeddings",
			want: []string{"http://h/v1/embeddings"}},
		{name: "/v1 base with a custom endpoint elsewhere", ep: chat, urls: []string{"http://h/v1"}, custom: "/generate",
			want: []string{"http://h/v1/generate"}},
		{name: "a base merely ending in v1 letters is not /v1", ep: chat, urls: []string{"http://h/apiv1"},
			want: []string{"http://h/apiv1/v1/chat/completions"}},
		{name: "the full URL of the streaming path", ep: splitPaths, urls: []string{"http://a/v1/generate_stream"}, streaming: true,
			want: []string{"http://a/v1/generate_stream"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Endpoint: c.ep, Settings: &Settings{URLs: c.urls, CustomEndpoint: c.custom},
				RunInfo: sdk.RunInfo{Streaming: c.streaming}}
			got := r.endpointURLs()
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("endpointURLs = %q, want %q", got, c.want)
			}
		})
	}
}

func TestAllFailed(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	ok := func(avg *float64) sdk.MetricResult { return sdk.MetricResult{Tag: "request_count", Avg: avg} }
	errs := sdk.MetricResult{Tag: "error_request_count", Avg: f(3)}
	cases := []struct {
		name    string
		metrics []sdk.MetricResult
		want    bool
	}{
		{name: "only successes", metrics: []sdk.MetricResult{ok(f(5))}, want: false},
		{name: "some errors", metrics: []sdk.MetricResult{ok(f(5)), errs}, want: false},
		{name: "only errors", metrics: []sdk.MetricResult{errs}, want: true},
		{name: "zero successes", metrics: []sdk.MetricResult{ok(f(0)), errs}, want: true},
		{name: "success count without a value", metrics: []sdk.MetricResult{ok(nil), errs}, want: true},
		{name: "nothing measured (cancelled before the first request)", want: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := allFailed(&sdk.Results{Metrics: c.metrics}); got != c.want {
				t.Errorf("allFailed = %v, want %v", got, c.want)
			}
		})
	}
}
