package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// keyHeaderEndpoint authenticates with headers of its own, the way
// Anthropic's Messages API does.
type keyHeaderEndpoint struct{ metaEndpoint }

var _ sdk.HeaderProvider = keyHeaderEndpoint{}

func (keyHeaderEndpoint) Headers(apiKey string) map[string]string {
	h := map[string]string{"anthropic-version": "2023-06-01"}
	if apiKey != "" {
		h["x-api-key"] = apiKey
	}
	return h
}

func TestHeadersFromHeaderProvider(t *testing.T) {
	const key = "sk-test"
	bearer := "Bearer " + key
	cases := []struct {
		name   string
		ep     sdk.Endpoint
		apiKey string
		user   map[string]string
		want   map[string]string // expected values; "" = must be absent
	}{
		{name: "provider replaces the bearer header", ep: keyHeaderEndpoint{}, apiKey: key,
			user: map[string]string{"Authorization": bearer, "X-Team": "blue"},
			want: map[string]string{"X-Api-Key": key, "Anthropic-Version": "2023-06-01", "Authorization": "", "X-Team": "blue"}},
		{name: "no api key, no key header", ep: keyHeaderEndpoint{},
			want: map[string]string{"X-Api-Key": "", "Anthropic-Version": "2023-06-01", "Authorization": ""}},
		{name: "user headers win whatever their spelling", ep: keyHeaderEndpoint{}, apiKey: key,
			user: map[string]string{"Authorization": bearer, "ANTHROPIC-VERSION": "2024-10-22", "x-api-key": "sk-other"},
			want: map[string]string{"X-Api-Key": "sk-other", "Anthropic-Version": "2024-10-22", "Authorization": ""}},
		{name: "a user Authorization of another value stays", ep: keyHeaderEndpoint{}, apiKey: key,
			user: map[string]string{"authorization": "Basic dXNlcg=="},
			want: map[string]string{"X-Api-Key": key, "Authorization": "Basic dXNlcg=="}},
		{name: "endpoint without provider keeps the bearer", ep: metaEndpoint{md: chatMeta}, apiKey: key,
			user: map[string]string{"Authorization": bearer},
			want: map[string]string{"Authorization": bearer, "X-Api-Key": "", "Anthropic-Version": ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Runner{Endpoint: c.ep, Settings: &Settings{APIKey: c.apiKey, UserHeaders: c.user}}
			got := r.headers()
			for name, want := range c.want {
				var spellings []string
				for k, v := range got {
					if strings.EqualFold(k, name) {
						spellings = append(spellings, k+"="+v)
					}
				}
				switch {
				case want == "" && len(spellings) > 0:
					t.Errorf("%s present (%v), want absent", name, spellings)
				case want != "" && (len(spellings) != 1 || got[name] != want):
					t.Errorf("%s: headers hold %v, want exactly %s=%q", name, spellings, name, want)
				}
			}
			if got["Content-Type"] != "application/json" || got["User-Agent"] == "" {
				t.Errorf("forced headers missing: %v", got)
			}
		})
	}
}

// What an Anthropic-style server receives through the real transport.
func TestHeaderProviderOnTheWire(t *testing.T) {
	seen := make(chan http.Header, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		seen <- req.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	r := &Runner{Endpoint: keyHeaderEndpoint{}, RunInfo: sdk.RunInfo{Streaming: true},
		Settings: &Settings{APIKey: "sk-wire", UserHeaders: map[string]string{"Authorization": "Bearer sk-wire"}}}
	tr := transport.New(transport.Options{})
	defer tr.Close()
	var rec sdk.RequestRecord
	tr.Send(context.Background(), &sdk.TransportRequest{URL: srv.URL, Headers: r.headers(), Body: []byte(`{}`)}, &rec)
	if rec.Error != nil {
		t.Fatalf("send: %+v", rec.Error)
	}
	h := <-seen
	for name, want := range map[string]string{"X-Api-Key": "sk-wire", "Anthropic-Version": "2023-06-01",
		"Authorization": "", "Accept": "text/event-stream", "Content-Type": "application/json"} {
		if got := h.Values(name); (want == "" && len(got) != 0) || (want != "" && (len(got) != 1 || got[0] != want)) {
			t.Errorf("server saw %s = %q, want %q", name, got, want)
		}
	}
}
