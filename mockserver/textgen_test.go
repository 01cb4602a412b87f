package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

type textgenUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// textgenEvent covers both stream event shapes; unknown fields are refused.
type textgenEvent struct {
	Delta *string       `json:"delta"`
	Done  bool          `json:"done"`
	Usage *textgenUsage `json:"usage"`
}

func textgenBody(input, extra string) string {
	b, _ := json.Marshal(input)
	body := `{"model":"mock-model","input":` + string(b)
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

func decodeStrict(t *testing.T, data string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
}

func TestTextgenNonStreaming(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct {
		name      string
		extra     string
		wantExact int // 0: natural length, checked against usage only
	}{
		{"capped with ignore_eos", `"max_new_tokens":20,"ignore_eos":true`, 20},
		{"min_new_tokens raises the length", `"min_new_tokens":300`, 300},
		{"one token", `"max_new_tokens":1`, 1},
		{"natural length", ``, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, base+TextgenPath, textgenBody(testPrompt, tc.extra))
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, content type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
			}
			var body struct {
				Output string       `json:"output"`
				Usage  textgenUsage `json:"usage"`
			}
			decodeStrict(t, string(b), &body)
			got := countTokens(body.Output)
			if tc.wantExact > 0 && got != tc.wantExact {
				t.Errorf("output re-tokenizes to %d tokens, want %d", got, tc.wantExact)
			}
			if tc.wantExact == 0 && got < minNaturalTokens {
				t.Errorf("natural output has %d tokens, want >= %d", got, minNaturalTokens)
			}
			want := textgenUsage{InputTokens: countTokens(testPrompt), OutputTokens: got}
			if body.Usage != want {
				t.Errorf("usage = %+v, want %+v", body.Usage, want)
			}
		})
	}
}

func TestTextgenStreaming(t *testing.T) {
	for _, fast := range []bool{true, false} {
		t.Run(map[bool]string{true: "fast", false: "paced"}[fast], func(t *testing.T) {
			base := startServer(t, Config{Fast: fast})
			events := readSSE(t, post(t, base+TextgenPath, textgenBody(testPrompt, `"stream":true,"max_new_tokens":37,"ignore_eos":true`)))
			if len(events) != 38 {
				t.Fatalf("got %d events, want 37 deltas + done", len(events))
			}
			var text strings.Builder
			for i, ev := range events[:37] {
				var e textgenEvent
				decodeStrict(t, ev.data, &e)
				if e.Delta == nil || e.Done || e.Usage != nil {
					t.Fatalf("event %d is not a delta: %s", i, ev.data)
				}
				text.WriteString(*e.Delta)
			}
			var done textgenEvent
			decodeStrict(t, events[37].data, &done)
			if !done.Done || done.Delta != nil || done.Usage == nil {
				t.Fatalf("last event is not done+usage: %s", events[37].data)
			}
			if got := countTokens(text.String()); got != 37 {
				t.Errorf("deltas re-tokenize to %d tokens, want 37", got)
			}
			want := textgenUsage{InputTokens: countTokens(testPrompt), OutputTokens: 37}
			if *done.Usage != want {
				t.Errorf("usage = %+v, want %+v", *done.Usage, want)
			}
		})
	}
}

// Identical prompts give identical outputs, across both response modes.
func TestTextgenDeterministic(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	read := func(extra string) string {
		resp := post(t, base+TextgenPath, textgenBody("same prompt", extra))
		defer resp.Body.Close()
		var body struct {
			Output string `json:"output"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return body.Output
	}
	a, b := read(`"max_new_tokens":12`), read(`"max_new_tokens":12`)
	if a != b || a == "" {
		t.Fatalf("outputs differ or are empty: %q vs %q", a, b)
	}
	var streamed strings.Builder
	for _, ev := range readSSE(t, post(t, base+TextgenPath, textgenBody("same prompt", `"stream":true,"max_new_tokens":12`)))[:12] {
		var e textgenEvent
		decodeStrict(t, ev.data, &e)
		streamed.WriteString(*e.Delta)
	}
	if streamed.String() != a {
		t.Errorf("streamed %q, non-streaming %q", streamed.String(), a)
	}
}

func TestTextgenTTFTIsApplied(t *testing.T) {
	base := startServer(t, Config{TTFT: 60 * time.Millisecond, ITL: time.Millisecond})
	start := time.Now()
	events := readSSE(t, post(t, base+TextgenPath, textgenBody(testPrompt, `"stream":true,"max_new_tokens":3,"ignore_eos":true`)))
	// A lower bound only: the server sleeps at least TTFT before token 1.
	if got := events[0].arrived.Sub(start); got < 60*time.Millisecond {
		t.Errorf("first delta after %v, want >= 60ms TTFT", got)
	}
	if got := events[len(events)-1].arrived.Sub(start); got < 62*time.Millisecond {
		t.Errorf("last event after %v, want >= TTFT + 2 ITL", got)
	}
}

func TestTextgenBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	cases := []struct {
		name, body, want string
	}{
		{"invalid JSON", `{"model":`, "invalid JSON body"},
		{"missing model", `{"input":"hi"}`, `missing required field \"model\"`},
		{"missing input", `{"model":"m"}`, `missing required field \"input\"`},
		{"zero max_new_tokens", `{"model":"m","input":"hi","max_new_tokens":0}`, `\"max_new_tokens\" must be >= 1, got 0`},
		{"min above max", `{"model":"m","input":"hi","max_new_tokens":2,"min_new_tokens":5}`, `\"min_new_tokens\" (5) must not exceed \"max_new_tokens\" (2)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, base+TextgenPath, tc.body)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
				t.Errorf("status %d body %s, want 400 containing %s", resp.StatusCode, b, tc.want)
			}
		})
	}
}

func TestTextgenInjectedErrors(t *testing.T) {
	base := startServer(t, Config{Fast: true, ErrorRate: 100})
	resp := post(t, base+TextgenPath, textgenBody("hi", ""))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500 at error rate 100%%", resp.StatusCode)
	}
}
