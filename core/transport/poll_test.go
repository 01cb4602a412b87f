package transport

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// seenRequest is one request the job server received.
type seenRequest struct {
	method, path, query string
	header              http.Header
	body                []byte
	atNs                int64 // arrival, on the process clock
}

// jobServer implements the video job API AIPerf drives (SGLang/OpenAI
// /v1/videos): a submit answer with an id, polls that answer in_progress
// until poll number done, then completed; <id>/content serves an mp4.
// Each hook replaces one answer.
type jobServer struct {
	srv     *httptest.Server
	done    int // the poll that answers completed; 0 = never
	submit  http.HandlerFunc
	poll    func(n int, w http.ResponseWriter, r *http.Request)
	content http.HandlerFunc
	polled  chan int // receives each poll's number while there is room

	mu   sync.Mutex
	seen []seenRequest
	n    int
}

const jobID = "video_7ecc8602"

func newJobServer(t *testing.T, done int) *jobServer {
	t.Helper()
	s := &jobServer{done: done, polled: make(chan int, 1024)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func (s *jobServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.seen = append(s.seen, seenRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body, clock.Now()})
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/v1/videos"):
		if s.submit != nil {
			s.submit(w, r)
			return
		}
		writeJSON(w, 200, `{"id":"`+jobID+`","object":"video","status":"queued","progress":0,"model":"mock-model","created_at":1700000000}`)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/content"):
		if s.content != nil {
			s.content(w, r)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		_, _ = w.Write([]byte("\x00\x00\x00\x18ftypmp42" + strings.Repeat("\x00", 64)))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/videos/"):
		s.mu.Lock()
		s.n++
		n := s.n
		s.mu.Unlock()
		select {
		case s.polled <- n:
		default: // nobody waits for that many polls
		}
		if s.poll != nil {
			s.poll(n, w, r)
			return
		}
		if s.done == 0 || n < s.done {
			writeJSON(w, 200, `{"id":"`+jobID+`","object":"video","status":"in_progress","progress":50}`)
			return
		}
		writeJSON(w, 200, `{"id":"`+jobID+`","object":"video","status":"completed","progress":100,"inference_time_s":1.25,"peak_memory_mb":2048.5}`)
	default:
		http.NotFound(w, r)
	}
}

func (s *jobServer) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.seen...)
}

// jobRequest is the request the engine builds for video generation.
func (s *jobServer) jobRequest(path string, spec sdk.PollSpec) *sdk.TransportRequest {
	return &sdk.TransportRequest{
		URL: s.srv.URL + path, Body: readFixtureOnce(), FormData: true, Timeout: 30 * time.Second, Poll: &spec,
		Headers: map[string]string{"User-Agent": "aiperf/0.13.0", "X-Request-ID": "req-1", "Accept": "application/json", "Content-Type": "application/json"},
	}
}

var videoPayload = []byte(`{"prompt":" I think thou art enamoured Upon his","model":"mock-model","seconds":4,"size":"64x64"}`)

func readFixtureOnce() []byte { return videoPayload }

const fastPoll = 2 * time.Millisecond

func TestJobCompletesAfterPolls(t *testing.T) {
	s := newJobServer(t, 3)
	tr := newTransport(t, Options{})
	rec := send(t, tr, context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll}))
	mustNotFail(t, rec.Error)
	if rec.Status != 200 || rec.WasCancelled {
		t.Errorf("status %d cancelled %v, want 200 false", rec.Status, rec.WasCancelled)
	}
	seen := s.requests()
	if len(seen) != 4 {
		t.Fatalf("server saw %d requests, want submit + 3 polls: %+v", len(seen), seen)
	}
	// The submit: multipart form with AIPerf's fields.
	sub := seen[0]
	_, params, err := mime.ParseMediaType(sub.header.Get("Content-Type"))
	if sub.method != "POST" || sub.path != "/v1/videos" || err != nil {
		t.Fatalf("submit %s %s Content-Type %q", sub.method, sub.path, sub.header.Get("Content-Type"))
	}
	sameForms(t, readForm(t, sub.body, params["boundary"]), readForm(t, readFixture(t, "video_generation.multipart"), "ccf9e2686a8f491286ab5f9924daa38a"))
	// The polls: GET <url>/<id> with the submit's headers but no Content-Type.
	for i, p := range seen[1:] {
		if p.method != "GET" || p.path != "/v1/videos/"+jobID || len(p.body) != 0 {
			t.Errorf("poll %d = %s %s body %q", i+1, p.method, p.path, p.body)
		}
		if p.header.Get("Content-Type") != "" || p.header.Get("X-Request-ID") != "req-1" || p.header.Get("Accept") != "application/json" || p.header.Get("User-Agent") != "aiperf/0.13.0" {
			t.Errorf("poll %d headers %v", i+1, p.header)
		}
	}
	// Responses: the submit answer and the final poll answer, in order.
	if len(rec.Responses) != 2 {
		t.Fatalf("%d responses, want 2: %+v", len(rec.Responses), rec.Responses)
	}
	if !strings.Contains(string(rec.Responses[0].Data), `"status":"queued"`) || !strings.Contains(string(rec.Responses[1].Data), `"status":"completed"`) {
		t.Errorf("responses %q / %q", rec.Responses[0].Data, rec.Responses[1].Data)
	}
	inOrder(t, "job", rec.StartPerfNs, rec.Responses[0].PerfNs, seen[1].atNs, seen[3].atNs, rec.Responses[1].PerfNs, rec.EndPerfNs)
	// A job spans several exchanges: like AIPerf's video records, it has no
	// ack time and no HTTP trace.
	if rec.AckPerfNs != 0 || rec.HTTPTrace != nil {
		t.Errorf("job record has ack %d and trace %+v, want neither", rec.AckPerfNs, rec.HTTPTrace)
	}
}

func TestJobStatusIsCaseInsensitive(t *testing.T) {
	s := newJobServer(t, 0)
	s.poll = func(n int, w http.ResponseWriter, _ *http.Request) {
		status := map[int]string{1: "QUEUED", 2: "In-Progress", 3: "Completed"}[n]
		writeJSON(w, 200, `{"id":"`+jobID+`","status":"`+status+`"}`)
	}
	rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll}))
	mustNotFail(t, rec.Error)
	if got := len(s.requests()); got != 4 {
		t.Errorf("%d requests, want submit + 3 polls", got)
	}
}

func TestJobFailed(t *testing.T) {
	cases := []struct{ answer, want string }{
		{`"error":{"message":"out of memory","code":"oom"}`, "Video generation failed: out of memory"},
		{`"error":{"code":"oom"}`, "Video generation failed: Unknown error"},
		{``, "Video generation failed: Unknown error"},
		{`"error":"plain text"`, "Video generation failed: plain text"},
		{`"error":null`, "Video generation failed: None"},
		{`"error":{"message":{"detail":"x"}}`, "Video generation failed: {'detail': 'x'}"},
	}
	for _, c := range cases {
		t.Run(c.answer, func(t *testing.T) {
			s := newJobServer(t, 0)
			s.poll = func(n int, w http.ResponseWriter, _ *http.Request) {
				if n < 2 {
					writeJSON(w, 200, `{"id":"`+jobID+`","status":"in_progress"}`)
					return
				}
				sep := ""
				if c.answer != "" {
					sep = ","
				}
				writeJSON(w, 200, `{"id":"`+jobID+`","status":"failed"`+sep+c.answer+`}`)
			}
			rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll}))
			want := sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: c.want}
			if rec.Error == nil || *rec.Error != want {
				t.Fatalf("error %+v, want %+v", rec.Error, want)
			}
			if len(rec.Responses) != 1 || !strings.Contains(string(rec.Responses[0].Data), "queued") {
				t.Errorf("responses %+v, want the submit answer only", rec.Responses)
			}
			if rec.EndPerfNs < rec.Responses[0].PerfNs {
				t.Errorf("end %d before the submit answer %d", rec.EndPerfNs, rec.Responses[0].PerfNs)
			}
		})
	}
}

func TestJobSubmitErrors(t *testing.T) {
	cases := []struct {
		name   string
		submit http.HandlerFunc
		want   sdk.ErrorDetails
	}{
		{"no id", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `{"status":"queued","n":1.0}`) },
			sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "No job ID returned: {'status': 'queued', 'n': 1.0}"}},
		{"empty id", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `{"id":""}`) },
			sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "No job ID returned: {'id': ''}"}},
		{"null id", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `{"id":null,"ok":true}`) },
			sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "No job ID returned: {'id': None, 'ok': True}"}},
		{"not JSON", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 202, `<html>busy</html>`) },
			sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "Invalid JSON in video submit response (status 202): <html>busy</html>"}},
		{"empty body", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, ``) },
			sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "Invalid JSON in video submit response (status 200): <empty>"}},
		{"binary", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write([]byte{1, 2})
		}, sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "Unexpected response type from video submit"}},
		{"list", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `[{"id":"x"}]`) },
			sdk.ErrorDetails{Type: "AttributeError", Message: `AttributeError("'list' object has no attribute 'get'")`}},
		{"HTTP error", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 400, `{"error":"bad size"}`) },
			sdk.ErrorDetails{Code: 400, Type: "Bad Request", Message: `{"error":"bad size"}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newJobServer(t, 1)
			s.submit = c.submit
			rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll}))
			if rec.Error == nil || *rec.Error != c.want {
				t.Fatalf("error %+v, want %+v", rec.Error, c.want)
			}
			if len(rec.Responses) != 0 {
				t.Errorf("responses %+v: AIPerf keeps none of a failed submit", rec.Responses)
			}
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests: nothing is polled after a failed submit", n)
			}
		})
	}
}

func TestJobPollErrors(t *testing.T) {
	cases := []struct {
		name string
		poll func(n int, w http.ResponseWriter, r *http.Request)
		want sdk.ErrorDetails
	}{
		{"HTTP error", func(_ int, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 503, `overloaded`) },
			sdk.ErrorDetails{Code: 503, Type: "Service Unavailable", Message: "overloaded"}},
		{"not JSON", func(_ int, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, strings.Repeat("é", 300)) },
			sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "Invalid JSON in video poll response (status 200): " + strings.Repeat("é", 200)}},
		{"binary", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "video/mp4")
			_, _ = w.Write([]byte{0})
		}, sdk.ErrorDetails{Code: 500, Type: "VideoGenerationError", Message: "Unexpected response type from video poll"}},
		{"string", func(_ int, w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, `"done"`) },
			sdk.ErrorDetails{Type: "AttributeError", Message: `AttributeError("'str' object has no attribute 'get'")`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newJobServer(t, 0)
			s.poll = c.poll
			rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll}))
			if rec.Error == nil || *rec.Error != c.want {
				t.Fatalf("error %+v, want %+v", rec.Error, c.want)
			}
			if len(rec.Responses) != 1 {
				t.Errorf("responses %+v, want the submit answer", rec.Responses)
			}
		})
	}
}

// The request timeout bounds the whole job: a job that never completes,
// and a poll that hangs, both end with AIPerf's 504.
func TestJobTimeout(t *testing.T) {
	want := sdk.ErrorDetails{Code: 504, Type: "TimeoutError", Message: "Video generation timed out after 0.3s"}
	t.Run("never completes", func(t *testing.T) {
		s := newJobServer(t, 0)
		req := s.jobRequest("/v1/videos", sdk.PollSpec{Interval: 20 * time.Millisecond})
		req.Timeout = 300 * time.Millisecond
		rec := send(t, newTransport(t, Options{}), context.Background(), req)
		if rec.Error == nil || *rec.Error != want {
			t.Fatalf("error %+v, want %+v", rec.Error, want)
		}
		if rec.WasCancelled || len(rec.Responses) != 1 || len(s.requests()) < 2 {
			t.Errorf("cancelled %v, %d responses, %d requests: want polls until the deadline", rec.WasCancelled, len(rec.Responses), len(s.requests()))
		}
	})
	t.Run("poll hangs", func(t *testing.T) {
		s := newJobServer(t, 0)
		s.poll = func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
		tr := newTransport(t, Options{Timeout: 300 * time.Millisecond}) // the transport's default timeout applies
		req := s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll})
		req.Timeout = 0
		rec := send(t, tr, context.Background(), req)
		if rec.Error == nil || *rec.Error != want {
			t.Fatalf("error %+v, want %+v", rec.Error, want)
		}
	})
}

func TestJobURLs(t *testing.T) {
	s := newJobServer(t, 1)
	rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos//?api-version=2", sdk.PollSpec{Interval: fastPoll, DownloadContent: true}))
	mustNotFail(t, rec.Error)
	seen := s.requests()
	if len(seen) != 3 {
		t.Fatalf("%d requests, want submit, poll, download", len(seen))
	}
	for i, want := range []string{"/v1/videos/" + jobID, "/v1/videos/" + jobID + "/content"} {
		if got := seen[i+1]; got.path != want || got.query != "api-version=2" {
			t.Errorf("request %d = %s?%s, want %s?api-version=2", i+1, got.path, got.query, want)
		}
	}
	poll, content := jobURLs("http://h/v1/videos/", "v1")
	if poll != "http://h/v1/videos/v1" || content != "http://h/v1/videos/v1/content" {
		t.Errorf("jobURLs = %s, %s", poll, content)
	}
}

func TestJobDownload(t *testing.T) {
	t.Run("binary content is fetched after the final poll", func(t *testing.T) {
		s := newJobServer(t, 2)
		rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{Interval: fastPoll, DownloadContent: true}))
		mustNotFail(t, rec.Error)
		seen := s.requests()
		if len(seen) != 4 || seen[3].path != "/v1/videos/"+jobID+"/content" || seen[3].header.Get("Content-Type") != "" {
			t.Fatalf("requests %+v, want submit, 2 polls, then GET .../content", seen)
		}
		// Request latency ends at the final poll: the download is not in it.
		if len(rec.Responses) != 2 {
			t.Fatalf("%d responses, want 2 (the video is not a response)", len(rec.Responses))
		}
		inOrder(t, "download", rec.Responses[1].PerfNs, seen[3].atNs, rec.EndPerfNs)
	})
	t.Run("the answer's url, resolved against the poll URL", func(t *testing.T) {
		s := newJobServer(t, 0)
		s.poll = func(_ int, w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, 200, `{"id":"`+jobID+`","status":"completed","url":"/files/`+jobID+`.mp4/content"}`)
		}
		rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{DownloadContent: true}))
		mustNotFail(t, rec.Error)
		if seen := s.requests(); seen[len(seen)-1].path != "/files/"+jobID+".mp4/content" {
			t.Errorf("downloaded %s, want the answer's url", seen[len(seen)-1].path)
		}
	})
	for _, ct := range []string{"video/mp4", "image/gif", "audio/wav", "application/octet-stream", "Video/WebM; codecs=vp9"} {
		t.Run("binary "+ct, func(t *testing.T) {
			s := newJobServer(t, 1)
			s.content = func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", ct)
				_, _ = w.Write([]byte{1, 2, 3})
			}
			rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{DownloadContent: true}))
			mustNotFail(t, rec.Error)
		})
	}
	for _, ct := range []string{"application/json", "text/plain", ""} {
		t.Run("not binary "+ct, func(t *testing.T) {
			s := newJobServer(t, 1)
			s.content = func(w http.ResponseWriter, _ *http.Request) {
				w.Header()["Content-Type"] = []string{ct}
				_, _ = w.Write([]byte(`{"detail":"not ready"}`))
			}
			rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{DownloadContent: true}))
			want := sdk.ErrorDetails{Code: 500, Type: "VideoDownloadError", Message: "No content returned for video " + jobID}
			if rec.Error == nil || *rec.Error != want {
				t.Fatalf("error %+v, want %+v", rec.Error, want)
			}
			if len(rec.Responses) != 2 {
				t.Errorf("%d responses, want the submit and final poll answers", len(rec.Responses))
			}
		})
	}
	t.Run("HTTP error", func(t *testing.T) {
		s := newJobServer(t, 1)
		s.content = func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 404, `gone`) }
		rec := send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{DownloadContent: true}))
		want := sdk.ErrorDetails{Code: 404, Type: "VideoDownloadError",
			Message: "Failed to download video " + jobID + ": code=404 type='Not Found' message='gone' cause=None cause_chain=None details=None"}
		if rec.Error == nil || *rec.Error != want {
			t.Fatalf("error %+v, want %+v", rec.Error, want)
		}
	})
	t.Run("not requested", func(t *testing.T) {
		s := newJobServer(t, 1)
		mustNotFail(t, send(t, newTransport(t, Options{}), context.Background(), s.jobRequest("/v1/videos", sdk.PollSpec{})).Error)
		if n := len(s.requests()); n != 2 {
			t.Errorf("%d requests, want submit and one poll, no download", n)
		}
	})
}

// Cancelling the run stops a job at once, whether it waits between polls
// or inside a poll, and records a cancellation.
func TestJobCancelledMidPoll(t *testing.T) {
	for _, hang := range []bool{false, true} {
		t.Run(fmt.Sprintf("in poll=%v", hang), func(t *testing.T) {
			s := newJobServer(t, 0)
			if hang {
				s.poll = func(_ int, _ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// An interval and timeout far beyond the test: only the cancel can end it.
			req := s.jobRequest("/v1/videos", sdk.PollSpec{Interval: time.Hour})
			req.Timeout = time.Hour
			done := make(chan *sdk.RequestRecord, 1)
			go func() {
				rec := &sdk.RequestRecord{}
				newTransport(t, Options{}).Send(ctx, req, rec)
				done <- rec
			}()
			<-s.polled
			cancel()
			var rec *sdk.RequestRecord
			select {
			case rec = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Send did not return after the run was cancelled")
			}
			if !rec.WasCancelled || rec.Error == nil || rec.Error.Code != CodeCancelled || rec.Error.Type != ErrTypeCancelled {
				t.Fatalf("cancelled %v error %+v, want a %d %s", rec.WasCancelled, rec.Error, CodeCancelled, ErrTypeCancelled)
			}
			if rec.CancellationTimeNs < rec.StartPerfNs || rec.EndPerfNs < rec.CancellationTimeNs {
				t.Errorf("start %d cancel %d end %d out of order", rec.StartPerfNs, rec.CancellationTimeNs, rec.EndPerfNs)
			}
			if len(rec.Responses) != 1 {
				t.Errorf("%d responses, want the submit answer", len(rec.Responses))
			}
		})
	}
}
