//go:build hf

package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/hf"
)

// qwen3Tokenizer returns the path of the real Qwen3 tokenizer.json fetched by
// `make testdata` (make test sets AIPERF_QWEN3_TOKENIZER and requires it).
func qwen3Tokenizer(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AIPERF_QWEN3_TOKENIZER")
	if path == "" {
		path = filepath.Join("..", "..", ".cache", "testdata", "qwen3", "tokenizer.json")
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("AIPERF_REQUIRE_TESTDATA") == "1" {
			t.Fatalf("Qwen3 tokenizer missing at %s: run make testdata", path)
		}
		t.Skipf("Qwen3 tokenizer missing at %s: run make testdata", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// The whole issue in one run: exact ISL under a real HF tokenizer, OSL equal
// to what a mock server using the same tokenizer emitted, and server-reported
// counts agreeing with client counts.
func TestProfileWithQwen3Tokenizer(t *testing.T) {
	path := qwen3Tokenizer(t)
	tok, err := hf.New().Load(context.Background(), sdk.TokenizerSource{Name: path})
	if err != nil {
		t.Fatal(err)
	}
	url := startMock(t, mockserver.Config{Fast: true, Tokenizer: tok})
	base := []string{"-m", "Qwen/Qwen3-0.6B", "-u", url, "--streaming", "--concurrency", "4", "--request-count", "24",
		"--isl", "512", "--osl", "48", "--extra-inputs", "ignore_eos:true", "--tokenizer", path}

	client := profile(t, base...)
	if client.code != 0 {
		t.Fatalf("exit %d\n%s", client.code, client.stderr)
	}
	isl := client.mustMetric(t, "input_sequence_length")
	if *isl.Avg != 512 || *isl.Min != 512 || *isl.Max != 512 {
		t.Errorf("ISL avg/min/max %v/%v/%v, want exactly 512 under the Qwen3 tokenizer", *isl.Avg, *isl.Min, *isl.Max)
	}
	osl := client.mustMetric(t, "output_sequence_length")
	if *osl.Min != 48 || *osl.Max != 48 {
		t.Errorf("OSL min/max %v/%v, want the mock's exact 48 tokens", *osl.Min, *osl.Max)
	}
	// Reasoning (Qwen streams reasoning_content first) is counted too.
	if r := client.mustMetric(t, "reasoning_token_count"); *r.Min < 1 {
		t.Errorf("reasoning tokens %v", *r.Min)
	}

	server := profile(t, append(base, "--use-server-token-count")...)
	if server.code != 0 {
		t.Fatalf("exit %d\n%s", server.code, server.stderr)
	}
	for _, tag := range []string{"input_sequence_length", "output_sequence_length", "reasoning_token_count", "output_token_count"} {
		c, s := client.mustMetric(t, tag), server.mustMetric(t, tag)
		if math.Abs(*c.Avg-*s.Avg) > 1e-9 || *c.Min != *s.Min || *c.Max != *s.Max {
			t.Errorf("%s: client avg/min/max %v/%v/%v, server usage %v/%v/%v", tag, *c.Avg, *c.Min, *c.Max, *s.Avg, *s.Min, *s.Max)
		}
	}
	// With server counts the request asked for usage explicitly.
	payloads := server.inputsJS["data"].([]any)[0].(map[string]any)["payloads"].([]any)
	opts, _ := payloads[0].(map[string]any)["stream_options"].(map[string]any)
	if opts["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage true", opts)
	}
}

func TestProfileRejectsMalformedTokenizerBeforeSending(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(bad, []byte(`{"not":"a tokenizer"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--request-count", "3", "--tokenizer", bad)
	if r.code != 1 || r.summary != nil {
		t.Fatalf("exit %d with results %v; want a config error", r.code, r.summary != nil)
	}
	if body := httpGet(t, url+"/metrics"); grepLines(body, "vllm:prompt_tokens_total{") != "" {
		t.Error("requests were sent despite the malformed tokenizer")
	}
}
