package mockserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// replay sends a captured AIPerf request and returns the answer.
func replay(t *testing.T, base string, r capturedRequest) (*http.Response, []byte) {
	t.Helper()
	return send(t, r.Method, base+r.Path, r.Body, r.Headers)
}

// aiperfReads checks an answer carries what AIPerf 0.13's parser for the
// capture's endpoint type reads (ENDPOINTS.md), so AIPerf would count the
// request as valid rather than "no content".
func aiperfReads(t *testing.T, capture string, events []map[string]any) {
	t.Helper()
	first := events[0]
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	list := func(m map[string]any, k string) []any { l, _ := m[k].([]any); return l }
	content := false
	switch capture {
	case "nim_rankings":
		content = len(list(first, "rankings")) > 0
	case "hf_tei_rankings":
		content = len(list(first, "")) > 0
	case "cohere_rankings":
		// --extra-inputs top_n:2
		content = len(list(first, "results")) == 2
	case "embeddings_b3", "nim_embeddings", "chat_embeddings":
		data := list(first, "data")
		content = len(data) > 0
		for _, d := range data {
			content = content && str(d.(map[string]any), "object") == "embedding"
		}
	case "huggingface_generate":
		content = str(first, "generated_text") != ""
	case "huggingface_generate_stream":
		content = true
		for _, e := range events {
			tok, _ := e["token"].(map[string]any)
			content = content && str(tok, "text") != ""
		}
	case "image_generation":
		data := list(first, "data")
		content = len(data) == 1 && str(data[0].(map[string]any), "b64_json") != "" && str(first, "size") == "512x512"
	case "image_generation_stream":
		// partial_images 1: one partial and the completed image.
		content = len(events) == 2 && str(events[0], "b64_json") != "" && events[1]["usage"] != nil
	case "video_generation":
		content = str(first, "id") != "" && str(first, "status") == "queued"
	case "solido_rag", "solido_rag_stream":
		content = str(first, "content") != ""
	case "responses":
		out := list(first, "output")
		content = str(first, "object") == "response" && first["type"] == nil && len(out) == 1 && first["usage"] != nil
	case "responses_stream":
		deltas, usage := 0, false
		for _, e := range events {
			if str(e, "type") == "response.output_text.delta" && str(e, "delta") != "" {
				deltas++
			}
			if r, ok := e["response"].(map[string]any); ok && str(e, "type") == "response.completed" {
				usage = r["usage"] != nil
			}
		}
		// --osl 8
		content = deltas == 8 && usage
	case "messages":
		blocks := list(first, "content")
		content = str(first, "type") == "message" && len(blocks) == 1 && str(blocks[0].(map[string]any), "text") != ""
	case "messages_stream":
		n := 0
		for _, e := range events {
			if d, ok := e["delta"].(map[string]any); ok && str(d, "type") == "text_delta" && str(d, "text") != "" {
				n++
			}
		}
		content = n == 8 // --osl 8
	default:
		t.Fatalf("no AIPerf expectation for capture %q", capture)
	}
	if !content {
		t.Fatalf("AIPerf would find no content in the %s answer: %v", capture, events)
	}
}

// Every captured AIPerf 0.13 request is answered, streaming exactly when
// AIPerf asked for a stream, in a shape AIPerf's parser reads.
func TestAIPerfCapturedRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	reqs := loadCapturedRequests(t)
	if len(reqs) < 17 {
		t.Fatalf("%d captured requests, want every new route covered", len(reqs))
	}
	for _, r := range reqs {
		t.Run(r.Capture, func(t *testing.T) {
			wantSSE := r.Headers["Accept"] == "text/event-stream"
			req, _ := http.NewRequest(r.Method, base+r.Path, strings.NewReader(r.Body))
			for k, v := range r.Headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var events []map[string]any
			if wantSSE {
				for _, ev := range readSSE(t, resp) {
					var m map[string]any
					if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
						t.Fatalf("event data %q is not a JSON object: %v", ev.data, err)
					}
					events = append(events, m)
				}
			} else {
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("status %d type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
				}
				var v any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatalf("body is not JSON: %v", err)
				}
				m, ok := v.(map[string]any)
				if !ok {
					m = map[string]any{"": v} // TEI answers a top-level list
				}
				events = []map[string]any{m}
			}
			if len(events) == 0 {
				t.Fatal("no events")
			}
			aiperfReads(t, r.Capture, events)
		})
	}
}

// --error-rate applies to every inference route: at 100% each captured
// request gets a 500 with a JSON error body.
func TestEveryRouteInjectsErrors(t *testing.T) {
	base := startServer(t, Config{Fast: true, ErrorRate: 100})
	for _, r := range loadCapturedRequests(t) {
		resp, b := replay(t, base, r)
		var v map[string]any
		if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &v) != nil ||
			!strings.Contains(string(b), "simulated server error") {
			t.Errorf("%s: status %d body %s, want an injected 500 JSON error", r.Capture, resp.StatusCode, b)
		}
	}
	if got := metricValue(scrape(t, base), "mock:injected_errors_total", nil); got != float64(len(loadCapturedRequests(t))) {
		t.Errorf("mock:injected_errors_total = %v", got)
	}
}

// The failures follow the seed across routes: two servers with the same
// seed fail the same requests of a mixed sequence, another seed differs.
func TestErrorSequenceIsSeededAcrossRoutes(t *testing.T) {
	reqs := loadCapturedRequests(t)
	pattern := func(seed int64) string {
		base := startServer(t, Config{Fast: true, ErrorRate: 50, RandomSeed: seed})
		var sb strings.Builder
		for range 3 {
			for _, r := range reqs {
				resp, _ := replay(t, base, r)
				sb.WriteString(map[bool]string{true: "x", false: "."}[resp.StatusCode == 500])
			}
		}
		return sb.String()
	}
	a, b, c := pattern(11), pattern(11), pattern(12)
	if a != b || a == c || !strings.Contains(a, "x") || !strings.Contains(a, ".") {
		t.Fatalf("seed 11: %s and %s; seed 12: %s", a, b, c)
	}
}

// Malformed JSON gets a 400 with a JSON error body on every POST route.
func TestEveryRouteRejectsMalformedJSON(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	for _, rt := range Routes() {
		if rt.Method != "POST" {
			continue
		}
		resp, b := send(t, "POST", base+rt.Path, `{"model":"m",`, nil)
		var v map[string]any
		if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &v) != nil ||
			!strings.Contains(string(b), "invalid JSON body") {
			t.Errorf("%s: status %d body %s, want a 400 JSON error", rt.Path, resp.StatusCode, b)
		}
	}
}

// Same request, same seed, two servers: the same answer, streams included,
// up to ids and wall-clock timestamps.
func TestCapturedRequestsDeterministic(t *testing.T) {
	s1 := startServer(t, Config{Fast: true, RandomSeed: 5})
	s2 := startServer(t, Config{Fast: true, RandomSeed: 5})
	for _, r := range loadCapturedRequests(t) {
		_, a := replay(t, s1, r)
		_, b := replay(t, s2, r)
		if sameRunIndependent(a) != sameRunIndependent(b) {
			t.Errorf("%s answered differently:\n%s\n%s", r.Capture, a, b)
		}
	}
}

// Routes lists exactly what the server serves: every listed route answers
// (a video job stands in for {id}), an unlisted method is refused.
func TestRoutesAreServed(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var job wireVideoJob
	postOK(t, base+"/v1/videos", `{"prompt":"p"}`, &job)
	seen := map[string]bool{}
	for _, rt := range Routes() {
		path := strings.ReplaceAll(rt.Path, "{id}", job.ID)
		body := ""
		if rt.Method == "POST" {
			body = "{}"
		}
		resp, b := send(t, rt.Method, base+path, body, nil)
		// A POST of {} is a bad request everywhere; GETs succeed.
		want := map[string]int{"POST": 400, "GET": 200}[rt.Method]
		if resp.StatusCode != want {
			t.Errorf("%s %s: status %d (%s), want %d", rt.Method, path, resp.StatusCode, b, want)
		}
		if seen[rt.Method+rt.Path] || rt.API == "" {
			t.Errorf("route %+v listed twice or undocumented", rt)
		}
		seen[rt.Method+rt.Path] = true
	}
	for _, path := range []string{"/v1/embeddings", "/v1/messages", "/generate"} {
		if resp, _ := send(t, "GET", base+path, "", nil); resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: status %d, want 405", path, resp.StatusCode)
		}
	}
}

// The new routes feed the vLLM-style metrics under their model.
func TestNewRoutesRecordMetrics(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var e wireEmbeddings
	postOK(t, base+"/v1/embeddings", `{"model":"emb","input":["a b c","d e"]}`, &e)
	var m wireAnthropicMessage
	postOK(t, base+"/v1/messages", `{"model":"emb","max_tokens":4,"ignore_eos":true,"messages":[{"role":"user","content":"hi"}]}`, &m)
	fams := scrape(t, base)
	labels := map[string]string{"model_name": "emb"}
	checks := map[string]float64{
		"vllm:prompt_tokens_total":     float64(e.Usage.PromptTokens + m.Usage.InputTokens),
		"vllm:generation_tokens_total": 4,
		"vllm:request_success_total":   2,
		"vllm:num_requests_running":    0,
	}
	for name, want := range checks {
		if got := metricValue(fams, name, labels); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

func ExampleRoutes() {
	for _, r := range Routes()[:3] {
		fmt.Println(r.Method, r.Path)
	}
	// Output:
	// POST /v1/chat/completions
	// POST /v1/completions
	// POST /v1/embeddings
}
