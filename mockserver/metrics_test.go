package mockserver

import (
	"bufio"
	"io"
	"testing"
	"time"
)

// The KV-cache usage gauge follows the running requests: one streaming
// request held open shows 1/256, none shows 0.
func TestKVCacheUsageMovesWithLoad(t *testing.T) {
	// A 50 ms gap between tokens keeps the request running while scraped.
	base := startServer(t, Config{ITL: 50 * time.Millisecond})
	if got := metricValue(scrape(t, base), "vllm:kv_cache_usage_perc", nil); got != 0 {
		t.Fatalf("idle kv cache usage = %v, want 0", got)
	}
	resp := post(t, base+"/v1/chat/completions", chatBody("kv-model", testPrompt, `"stream":true,"max_tokens":20,"ignore_eos":true`))
	// The first event means the request is being generated.
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, base)
	if got := metricValue(fams, "vllm:kv_cache_usage_perc", nil); got != 1.0/kvCapacityRequests {
		t.Errorf("kv cache usage with one running request = %v, want %v", got, 1.0/kvCapacityRequests)
	}
	if got := metricValue(fams, "vllm:num_requests_running", map[string]string{"model_name": "kv-model"}); got != 1 {
		t.Errorf("running = %v, want 1", got)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if got := metricValue(scrape(t, base), "vllm:kv_cache_usage_perc", nil); got != 0 {
		t.Errorf("kv cache usage after the request = %v, want 0", got)
	}
}
