package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// startServer runs a real server on a free loopback port for one test.
func startServer(t *testing.T, cfg Config) string {
	t.Helper()
	cfg.Host = "127.0.0.1"
	cfg.Port = 0
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	addr, err := s.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return "http://" + addr
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// sseEvent is one parsed server-sent event with its arrival time.
type sseEvent struct {
	event   string // the event: field, "" when absent
	data    string
	arrived time.Time
}

// readSSE parses an event stream per the WHATWG rules the client uses:
// data: lines are joined by "\n", a blank line ends an event.
func readSSE(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q, want text/event-stream", ct)
	}
	var events []sseEvent
	var data []string
	var name string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data != nil {
				events = append(events, sseEvent{event: name, data: strings.Join(data, "\n"), arrived: time.Now()})
				data, name = nil, ""
			} else if name != "" {
				t.Fatalf("event %q without data", name)
			}
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimPrefix(strings.TrimPrefix(line, "event:"), " ")
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case strings.HasPrefix(line, ":"):
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading stream: %v", err)
	}
	if data != nil {
		t.Fatalf("stream ended inside an event: %q", data)
	}
	return events
}

type wireUsage struct {
	PromptTokens            int `json:"prompt_tokens"`
	CompletionTokens        int `json:"completion_tokens"`
	TotalTokens             int `json:"total_tokens"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// wireChunk covers chat chunks, completion chunks and non-streaming bodies.
type wireChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta *struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"delta"`
		Message *struct {
			Role             string  `json:"role"`
			Content          string  `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"message"`
		Text         *string `json:"text"`
		Logprobs     any     `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

func decodeChunk(t *testing.T, data string) wireChunk {
	t.Helper()
	var c wireChunk
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	return c
}

// streamSummary is what a client extracts from a stream.
type streamSummary struct {
	content, reasoning     strings.Builder
	contentEvents          int
	reasoningEvents        int
	roleEvents             int
	finish                 string
	usage                  *wireUsage
	usageChunkHadChoices   bool
	done                   bool
	firstContentEventIndex int
	ids                    map[string]bool
	objects                map[string]bool
}

func summarize(t *testing.T, events []sseEvent) *streamSummary {
	t.Helper()
	s := &streamSummary{firstContentEventIndex: -1, ids: map[string]bool{}, objects: map[string]bool{}}
	for i, ev := range events {
		if s.done {
			t.Fatalf("event after [DONE]: %q", ev.data)
		}
		if ev.data == "[DONE]" {
			s.done = true
			continue
		}
		c := decodeChunk(t, ev.data)
		s.ids[c.ID] = true
		s.objects[c.Object] = true
		if c.Usage != nil {
			s.usage = c.Usage
			s.usageChunkHadChoices = len(c.Choices) > 0
			continue
		}
		if len(c.Choices) != 1 {
			t.Fatalf("chunk %d has %d choices", i, len(c.Choices))
		}
		ch := c.Choices[0]
		if ch.FinishReason != nil {
			s.finish = *ch.FinishReason
		}
		switch {
		case ch.Text != nil && *ch.Text != "":
			s.content.WriteString(*ch.Text)
			s.contentEvents++
		case ch.Delta != nil && ch.Delta.Role != nil:
			s.roleEvents++
		case ch.Delta != nil && ch.Delta.ReasoningContent != nil:
			s.reasoning.WriteString(*ch.Delta.ReasoningContent)
			s.reasoningEvents++
		case ch.Delta != nil && ch.Delta.Content != nil:
			s.content.WriteString(*ch.Delta.Content)
			s.contentEvents++
		default:
			continue
		}
		if s.firstContentEventIndex < 0 && s.contentEvents+s.reasoningEvents == 1 {
			s.firstContentEventIndex = i
		}
	}
	return s
}

func chatBody(model, prompt, extra string) string {
	b, _ := json.Marshal(prompt)
	body := `{"model":"` + model + `","messages":[{"role":"user","content":` + string(b) + `}]`
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

func completionBody(model, prompt, extra string) string {
	b, _ := json.Marshal(prompt)
	body := `{"model":"` + model + `","prompt":` + string(b)
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

func decodeBody(t *testing.T, resp *http.Response) wireChunk {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q", ct)
	}
	return decodeChunk(t, string(bytes.TrimSpace(b)))
}

func countTokens(s string) int { return tiktoken.New().Count(s) }

// scrape fetches and parses /metrics with the Prometheus text parser.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics status %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// metricValue sums a family's samples whose labels include want.
func metricValue(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	fam, ok := fams[name]
	if !ok {
		return -1
	}
	var sum float64
	for _, m := range fam.GetMetric() {
		match := true
		for k, v := range want {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			match = match && found
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}
