package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNewValidatesConfig(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"negative TTFT", Config{TTFT: -time.Millisecond}, "TTFT must be >= 0"},
		{"negative ITL", Config{ITL: -1}, "ITL must be >= 0"},
		{"error rate above 100", Config{ErrorRate: 100.5}, "error rate"},
		{"negative error rate", Config{ErrorRate: -1}, "error rate"},
		{"port out of range", Config{Port: 70000}, "port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
	if _, err := New(Config{ErrorRate: 100, TTFT: time.Second}); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
}

func TestStartAndShutdown(t *testing.T) {
	s, err := New(Config{Host: "127.0.0.1", Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	if _, port, _ := net.SplitHostPort(addr); port == "0" || port == "" {
		t.Fatalf("Start returned %q, want the real port", addr)
	}
	if _, err := s.Start(); err == nil {
		t.Fatal("second Start succeeded")
	}
	// Another server on the same port must fail with a clear error.
	_, port, _ := net.SplitHostPort(addr)
	var p int
	fmt.Sscan(port, &p)
	s2, _ := New(Config{Host: "127.0.0.1", Port: p})
	if _, err := s2.Start(); err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("Start on a used port: err = %v", err)
	}
	resp, err := http.Get("http://" + addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := http.Get("http://" + addr + "/health"); err == nil {
		t.Fatal("server still answers after Shutdown")
	}
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("second Shutdown: %v", err)
	}
}

// Shutdown whose deadline passes cancels a stream that would run for minutes.
func TestShutdownCancelsLongStreams(t *testing.T) {
	s, err := New(Config{Host: "127.0.0.1", ITL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start()
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, "http://"+addr+"/v1/chat/completions",
		chatBody("m", "hi", `"stream":true,"max_tokens":600,"ignore_eos":true`))
	defer resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Shutdown reported success although a stream was still running at the deadline")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Shutdown hung on a long stream")
	}
}

func TestInfoRoutes(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	// Request one model so it shows up in the list.
	decodeBody(t, post(t, base+"/v1/chat/completions", chatBody("my-served-model", "hi", "")))
	cases := []struct {
		method, path string
		wantStatus   int
		wantInBody   string
	}{
		{"GET", "/health", 200, `"status":"healthy"`},
		{"GET", "/v1/models", 200, `"id":"my-served-model"`},
		{"GET", "/v1/models", 200, `"id":"mock-model"`},
		{"GET", "/metrics", 200, "vllm:request_success_total"},
		{"GET", "/v1/chat/completions", 405, ""},
		{"POST", "/health", 405, ""},
		{"GET", "/nope", 404, ""},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, base+tc.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(b), tc.wantInBody) {
				t.Fatalf("status %d body %q; want %d containing %q", resp.StatusCode, b, tc.wantStatus, tc.wantInBody)
			}
		})
	}
	resp, _ := http.Get(base + "/v1/models")
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID, Object string
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || list.Object != "list" || len(list.Data) != 3 {
		t.Fatalf("models list %+v err %v", list, err)
	}
	resp.Body.Close()
}

type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

func decodeAPIError(t *testing.T, resp *http.Response, wantStatus int) apiError {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != wantStatus {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d (%s), want %d", resp.StatusCode, b, wantStatus)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	var e apiError
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatalf("error body is not JSON: %v", err)
	}
	return e
}

func TestBadRequestsGet400(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct {
		path, body, wantMsg string
	}{
		{"/v1/chat/completions", `{"model":`, "invalid JSON body"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}]}`, `"model"`},
		{"/v1/chat/completions", `{"model":"m"}`, `"messages"`},
		{"/v1/completions", `{"model":"m"}`, `"prompt"`},
		{"/v1/completions", `{"model":"m","prompt":"x","max_tokens":-5}`, `"max_tokens" must be >= 1`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			e := decodeAPIError(t, post(t, base+tc.path, tc.body), http.StatusBadRequest)
			if e.Error.Type != "invalid_request_error" || e.Error.Code != 400 || !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want invalid_request_error mentioning %q", e.Error, tc.wantMsg)
			}
		})
	}
	fams := scrape(t, base)
	if got := metricValue(fams, "mock:bad_requests_total", nil); got != float64(len(cases)) {
		t.Fatalf("mock:bad_requests_total = %v, want %d", got, len(cases))
	}
}

func TestErrorRate(t *testing.T) {
	cases := []struct {
		rate         float64
		requests     int
		minFail, max int
	}{
		{100, 50, 50, 50},
		{0, 50, 0, 0},
		// 30% of 400: mean 120, sd ≈ 9.2; ±30 is over 3 sd.
		{30, 400, 90, 150},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("rate=%v", tc.rate), func(t *testing.T) {
			base := startServer(t, Config{Fast: true, ErrorRate: tc.rate, RandomSeed: 7})
			fails := 0
			for i := range tc.requests {
				resp := post(t, base+"/v1/chat/completions", chatBody("m", fmt.Sprint("p", i), `"max_tokens":2`))
				switch resp.StatusCode {
				case http.StatusInternalServerError:
					e := decodeAPIError(t, resp, 500)
					if e.Error.Type != "server_error" || e.Error.Message == "" {
						t.Fatalf("500 body %+v", e)
					}
					fails++
				case http.StatusOK:
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				default:
					t.Fatalf("status %d", resp.StatusCode)
				}
			}
			if fails < tc.minFail || fails > tc.max {
				t.Fatalf("%d of %d requests failed, want [%d, %d]", fails, tc.requests, tc.minFail, tc.max)
			}
			if got := metricValue(scrape(t, base), "mock:injected_errors_total", nil); got != float64(fails) {
				t.Fatalf("mock:injected_errors_total = %v, want %d", got, fails)
			}
		})
	}
}

func TestErrorSequenceIsSeededAndConcurrencySafe(t *testing.T) {
	pattern := func(seed int64) string {
		base := startServer(t, Config{Fast: true, ErrorRate: 50, RandomSeed: seed})
		var sb strings.Builder
		for range 64 {
			resp := post(t, base+"/v1/completions", completionBody("m", "x", `"max_tokens":1`))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			sb.WriteString(map[bool]string{true: "x", false: "."}[resp.StatusCode == 500])
		}
		return sb.String()
	}
	a, b, c := pattern(1), pattern(1), pattern(2)
	if a != b {
		t.Fatalf("same seed, different sequences:\n%s\n%s", a, b)
	}
	if a == c {
		t.Fatalf("seeds 1 and 2 gave the same sequence %s", a)
	}

	// Concurrent requests: every request is decided exactly once, so the
	// failure count equals the sequential one for the same seed.
	base := startServer(t, Config{Fast: true, ErrorRate: 50, RandomSeed: 1})
	var mu sync.Mutex
	fails := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 8 {
				resp, err := http.Post(base+"/v1/completions", "application/json",
					strings.NewReader(completionBody("m", "x", `"max_tokens":1`)))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 500 {
					mu.Lock()
					fails++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if want := strings.Count(a, "x"); fails != want {
		t.Fatalf("concurrent run failed %d requests, sequential run %d", fails, want)
	}
}

// Generous lower bounds only: a loaded machine can be slow, never early.
func TestLatenciesRespected(t *testing.T) {
	const ttft, itl, n = 60 * time.Millisecond, 15 * time.Millisecond, 6
	base := startServer(t, Config{TTFT: ttft, ITL: itl})

	start := time.Now()
	resp := post(t, base+"/v1/chat/completions", chatBody("m", "hi", fmt.Sprintf(`"stream":true,"max_tokens":%d,"ignore_eos":true`, n)))
	events := readSSE(t, resp)
	s := summarize(t, events)
	if s.contentEvents != n {
		t.Fatalf("%d content events", s.contentEvents)
	}
	firstToken := events[s.firstContentEventIndex].arrived.Sub(start)
	last := events[s.firstContentEventIndex+n-1].arrived.Sub(start)
	if firstToken < ttft {
		t.Fatalf("first token after %v, want >= TTFT %v", firstToken, ttft)
	}
	if want := ttft + (n-1)*itl; last < want {
		t.Fatalf("last token after %v, want >= %v", last, want)
	}
	if last > 10*time.Second {
		t.Fatalf("stream took %v", last)
	}

	start = time.Now()
	decodeBody(t, post(t, base+"/v1/chat/completions", chatBody("m", "hi", fmt.Sprintf(`"max_tokens":%d,"ignore_eos":true`, n))))
	if got, want := time.Since(start), ttft+n*itl; got < want {
		t.Fatalf("non-streaming answered after %v, want >= TTFT+ITL×n = %v", got, want)
	}
}

func TestMetricsCountersMove(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	prompt := testPrompt
	p := countTokens(prompt)
	for _, stream := range []bool{true, false} {
		for range 3 {
			resp := post(t, base+"/v1/chat/completions", chatBody("metrics-model", prompt, fmt.Sprintf(`"stream":%v,"max_tokens":10,"ignore_eos":true`, stream)))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	decodeBody(t, post(t, base+"/v1/completions", completionBody("metrics-model", "hello there friend", `"max_tokens":100`)))

	fams := scrape(t, base)
	model := map[string]string{"model_name": "metrics-model"}
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"vllm:request_success_total", map[string]string{"model_name": "metrics-model", "finished_reason": "length"}, 6},
		{"vllm:request_success_total", map[string]string{"model_name": "metrics-model", "finished_reason": "stop"}, 1},
		{"vllm:prompt_tokens_total", model, float64(6*p + countTokens("hello there friend"))},
		{"vllm:generation_tokens_total", model, 6*10 + 16},
		{"vllm:time_to_first_token_seconds", model, 7},
		{"vllm:e2e_request_latency_seconds", model, 7},
		{"vllm:request_generation_tokens", model, 7},
		{"vllm:num_requests_running", model, 0},
		{"vllm:num_requests_waiting", model, 0},
	}
	for _, c := range checks {
		if got := metricValue(fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
}

// A client that hangs up mid-stream stops generation: the running gauge
// drops back to zero long before the 20 s stream would have ended.
func TestClientDisconnectStopsGeneration(t *testing.T) {
	base := startServer(t, Config{ITL: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/chat/completions",
		strings.NewReader(chatBody("gone", "hi", `"stream":true,"max_tokens":1000,"ignore_eos":true`)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()

	labels := map[string]string{"model_name": "gone"}
	deadline := time.Now().Add(5 * time.Second)
	for {
		fams := scrape(t, base)
		if metricValue(fams, "vllm:num_requests_running", labels) == 0 {
			if got := metricValue(fams, "vllm:generation_tokens_total", labels); got >= 1000 || got < 0 {
				t.Fatalf("generation_tokens_total = %v, want fewer than 1000 after disconnect", got)
			}
			if got := metricValue(fams, "vllm:request_success_total", labels); got > 0 {
				t.Fatalf("abandoned request counted as success (%v)", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("request still running 5 s after the client disconnected")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
