package engine

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func jobEndpoint(polling, form bool) *recordingEndpoint {
	return &recordingEndpoint{meta: func(m *sdk.EndpointMetadata) {
		m.RequiresPolling, m.RequiresFormData, m.ProducesVideos = polling, form, polling
	}}
}

func TestRequestShapeFromMetadata(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want sdk.TransportRequest
	}{
		{"no endpoint", Options{}, sdk.TransportRequest{}},
		{"ordinary API", Options{Endpoint: chatFixture{}, DownloadVideoContent: true}, sdk.TransportRequest{}},
		{"form data only", Options{Endpoint: jobEndpoint(false, true)}, sdk.TransportRequest{FormData: true}},
		{"job with AIPerf's default interval", Options{Endpoint: jobEndpoint(true, true)},
			sdk.TransportRequest{FormData: true, Poll: &sdk.PollSpec{Interval: 100 * time.Millisecond}}},
		{"job with interval and download", Options{Endpoint: jobEndpoint(true, false), VideoPollInterval: 5 * time.Millisecond, DownloadVideoContent: true},
			sdk.TransportRequest{Poll: &sdk.PollSpec{Interval: 5 * time.Millisecond, DownloadContent: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got sdk.TransportRequest
			newRequestShape(c.opts).apply(&got)
			if got.FormData != c.want.FormData || (got.Poll == nil) != (c.want.Poll == nil) || (got.Poll != nil && *got.Poll != *c.want.Poll) {
				t.Errorf("FormData %v Poll %+v, want %v %+v", got.FormData, got.Poll, c.want.FormData, c.want.Poll)
			}
		})
	}
}

// A job endpoint's requests go out as a form and are followed to the
// job's end by the real transport.
func TestRunPhaseSendsJobs(t *testing.T) {
	var mu sync.Mutex
	var forms, polls int
	var formErr error
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err == nil {
				_, err = multipart.NewReader(r.Body, params["boundary"]).ReadForm(1 << 20)
			}
			mu.Lock()
			forms++
			if err != nil {
				formErr = err
			}
			mu.Unlock()
			_, _ = io.WriteString(w, `{"id":"job1","status":"queued"}`)
			return
		}
		mu.Lock()
		polls++
		n := polls
		mu.Unlock()
		status := "in_progress"
		if n%2 == 0 {
			status = "completed"
		}
		_, _ = io.WriteString(w, `{"id":"job1","status":"`+status+`","inference_time_s":2.5}`)
	}))
	defer srv.Close()

	ep := jobEndpoint(true, true)
	reqs := prepared(t, 2, []string{"m"}, false)
	tr := realTransport(t)
	e := newEngine(t, tr, reqs, Options{URLs: []string{srv.URL + "/v1/videos"}, Endpoint: ep,
		Headers: map[string]string{"Content-Type": "application/json"}, VideoPollInterval: time.Millisecond})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 2, Concurrency: 1}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(col.got) != 2 {
		t.Fatalf("%d completions, want 2", len(col.got))
	}
	for _, c := range col.got {
		if c.Record.Error != nil || len(c.Record.Responses) != 2 || !strings.Contains(string(c.Record.Responses[1].Data), "completed") {
			t.Errorf("record error %+v responses %d, want a finished job", c.Record.Error, len(c.Record.Responses))
		}
	}
	if forms != 2 || polls != 4 || formErr != nil {
		t.Errorf("server saw %d forms (error %v) and %d polls, want 2 and 4", forms, formErr, polls)
	}
	for _, sent := range tr.sent {
		if !sent.FormData || sent.Poll == nil || sent.Poll.Interval != time.Millisecond || sent.Poll.DownloadContent {
			t.Errorf("sent FormData %v Poll %+v", sent.FormData, sent.Poll)
		}
	}
}
