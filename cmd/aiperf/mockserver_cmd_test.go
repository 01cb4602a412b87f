package main

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMockServerOptionsConfig(t *testing.T) {
	valid := mockServerOptions{host: "127.0.0.1", port: 8000, ttftMs: 2.5, itlMs: 0.5, tokenizer: "builtin", logLevel: "info"}
	cases := []struct {
		name    string
		edit    func(*mockServerOptions)
		wantErr string
	}{
		{"empty tokenizer", func(o *mockServerOptions) { o.tokenizer = " " }, "--tokenizer must name a tokenizer"},
		{"negative ttft", func(o *mockServerOptions) { o.ttftMs = -1 }, "--ttft must be a non-negative"},
		{"infinite itl", func(o *mockServerOptions) { o.itlMs = math.Inf(1) }, "--itl"},
		{"port too large", func(o *mockServerOptions) { o.port = 65536 }, "--port"},
		{"error rate above 100", func(o *mockServerOptions) { o.errorRate = 101 }, "--error-rate"},
		{"unknown log level", func(o *mockServerOptions) { o.logLevel = "LOUD" }, "--log-level"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid
			tc.edit(&o)
			if _, _, err := o.config(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}

	cfg, _, err := valid.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TTFT != 2500*time.Microsecond || cfg.ITL != 500*time.Microsecond || cfg.Port != 8000 || cfg.Fast {
		t.Fatalf("config %+v", cfg)
	}
	fast := valid
	fast.fast = true
	if cfg, _, _ := fast.config(); cfg.TTFT != 0 || cfg.ITL != 0 || !cfg.Fast {
		t.Fatalf("--fast config %+v keeps delays", cfg)
	}
}

func TestMockServerFlagsAndEnv(t *testing.T) {
	cmd := newMockServerCmd()
	if err := cmd.Flags().Parse([]string{"-p", "9100", "--itl", "7"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MOCK_SERVER_PORT": "1", "MOCK_SERVER_TTFT": "33", "MOCK_SERVER_ERROR_RATE": "12.5"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if err := applyMockServerEnv(cmd.Flags(), lookup); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"port": "9100", "itl": "7", "ttft": "33", "error-rate": "12.5", "host": "127.0.0.1", "tokenizer": "builtin"}
	for name, want := range cases {
		if got := cmd.Flags().Lookup(name).Value.String(); got != want {
			t.Errorf("--%s = %q, want %q (command line beats env, env beats default)", name, got, want)
		}
	}
	bad := newMockServerCmd()
	err := applyMockServerEnv(bad.Flags(), func(k string) (string, bool) { return "fast?", k == "MOCK_SERVER_FAST" })
	if err == nil || !strings.Contains(err.Error(), "MOCK_SERVER_FAST") {
		t.Fatalf("bad env value: err = %v", err)
	}
}

// A tokenizer that cannot be loaded stops the mock before it listens, with
// or without Hugging Face support compiled in.
func TestMockServerCommandRejectsMissingTokenizer(t *testing.T) {
	cmd := newMockServerCmd()
	cmd.SetArgs([]string{"--tokenizer", "./no/such/tokenizer.json", "--port", "0"})
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "--tokenizer: ") || !strings.Contains(err.Error(), "./no/such/tokenizer.json") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(out.String(), "listening") {
		t.Errorf("the mock started despite the bad tokenizer: %s", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestRunMockServerServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	o := mockServerOptions{host: "127.0.0.1", port: 0, fast: true, tokenizer: "builtin", logLevel: "ERROR"}
	done := make(chan error, 1)
	go func() { done <- runMockServer(ctx, o, &stdout, &stderr) }()

	const prefix = "Mock server listening on "
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == ""; {
		if out := stdout.String(); strings.Contains(out, prefix) {
			url = strings.TrimSpace(strings.TrimPrefix(out, prefix))
			break
		}
		select {
		case err := <-done:
			t.Fatalf("server exited early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("server never printed its URL")
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Post(url+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"m","prompt":"hi","max_tokens":3,"ignore_eos":true}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"completion_tokens":3`) {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runMockServer: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after cancellation")
	}
	if stderr.String() != "" {
		t.Fatalf("ERROR level logged %q", stderr.String())
	}
}
