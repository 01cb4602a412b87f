package hfgenerate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// captureDir holds AIPerf 0.13's recorded requests (testdata/aiperf013/endpoints/README.md).
var captureDir = filepath.Join("..", "..", "..", "..", "testdata", "aiperf013", "endpoints")

type captured struct{ Method, Path, Body string }

// capturedRequests returns the requests AIPerf sent in one capture.
func capturedRequests(t *testing.T, name string) []captured {
	t.Helper()
	f, err := os.Open(filepath.Join(captureDir, name, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var reqs []captured
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var r captured
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Method == "POST" {
			reqs = append(reqs, r)
		}
	}
	if err := sc.Err(); err != nil || len(reqs) == 0 {
		t.Fatalf("capture %s: %d requests, err %v", name, len(reqs), err)
	}
	return reqs
}

func TestMetadata(t *testing.T) {
	want := sdk.EndpointMetadata{EndpointPath: "/generate", StreamingPath: "/generate_stream", ServiceKind: "openai",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"}
	if got := New().Metadata(); got != want {
		t.Errorf("metadata = %+v, want %+v", got, want)
	}
}

func intp(n int) *int { return &n }

// huggingface_generate: --osl 8 --extra-inputs temperature:0.5;
// huggingface_generate_stream: --osl 8 --streaming (same body, other path).
func TestFormatPayloadCaptures(t *testing.T) {
	cases := []struct {
		capture   string
		streaming bool
		extra     map[string]any
	}{
		{capture: "huggingface_generate", extra: map[string]any{"temperature": 0.5}},
		{capture: "huggingface_generate_stream", streaming: true},
	}
	for _, c := range cases {
		t.Run(c.capture, func(t *testing.T) {
			ep := New()
			for i, r := range capturedRequests(t, c.capture) {
				var b struct{ Inputs string }
				if err := json.Unmarshal([]byte(r.Body), &b); err != nil {
					t.Fatal(err)
				}
				got, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: c.streaming, ExtraInputs: c.extra,
					Turn: sdk.Turn{Texts: []string{b.Inputs}, MaxTokens: intp(8)}})
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != r.Body {
					t.Errorf("body %d:\ngot  %s\nwant %s", i, got, r.Body)
				}
				path := ep.Metadata().EndpointPath
				if c.streaming {
					path = ep.Metadata().StreamingPath
				}
				if path != r.Path {
					t.Errorf("path %s, AIPerf posted to %s", path, r.Path)
				}
			}
		})
	}
}

func TestFormatPayload(t *testing.T) {
	cases := []struct {
		name string
		req  sdk.RequestInfo
		want string
	}{
		{name: "no max tokens: empty parameters", req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"}}},
			want: `{"inputs":"a","parameters":{}}`},
		{name: "texts joined by spaces, empty ones dropped, groups after texts",
			req: sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a", "", "b"},
				TextGroups: []sdk.TextGroup{{Name: "context", Contents: []string{"c"}}}, MaxTokens: intp(0)}},
			want: `{"inputs":"a b c","parameters":{"max_new_tokens":0}}`},
		{name: "extras into parameters, turn extra at the top",
			req: sdk.RequestInfo{Model: "m", ExtraInputs: map[string]any{"top_k": 5, "max_new_tokens": 3, "details": true},
				Turn: sdk.Turn{Texts: []string{"<p>&"}, MaxTokens: intp(9), Extra: map[string]any{"stream": false, "inputs": "x"}}},
			want: `{"inputs":"x","parameters":{"max_new_tokens":3,"details":true,"top_k":5},"stream":false}`},
		{name: "no text", req: sdk.RequestInfo{}, want: `{"inputs":"","parameters":{}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := New().FormatPayload(c.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a"}},
		History: []sdk.HistoryEntry{{Role: "user", Text: "x"}}})
	if !errors.Is(err, ErrMultiTurn) || !strings.HasPrefix(err.Error(), "huggingface_generate: format payload: ") {
		t.Errorf("second turn: err = %v", err)
	}
}

func TestParseResponse(t *testing.T) {
	cases := []struct {
		name, data, text, err string
	}{
		{name: "body", data: `{"generated_text":" the quick fox","details":{"finish_reason":"length","generated_tokens":3}}`, text: " the quick fox"},
		{name: "list body", data: `[{"generated_text":"a"},{"generated_text":"b"}]`, text: "a"},
		{name: "event", data: `{"index":0,"token":{"id":1,"text":" the","logprob":-0.1,"special":false},"generated_text":null}`, text: " the"},
		{name: "last event reads the token, not generated_text", data: `{"index":5,"token":{"id":6,"text":" fox"},"generated_text":" the quick fox"}`, text: " fox"},
		{name: "event with null token", data: `{"token":null,"generated_text":"all"}`},
		{name: "event with a token of the wrong shape", data: `{"token":"x"}`},
		{name: "event with empty text", data: `{"token":{"text":""}}`},
		{name: "error event", data: `{"error":"Request failed during generation","error_type":"generation"}`},
		{name: "no generated text", data: `{"details":{}}`},
		{name: "generated text not a string", data: `{"generated_text":5}`},
		{name: "empty body", data: `{}`},
		{name: "done", data: `[DONE]`},
		{name: "list of scalars", data: `[1]`, err: "huggingface_generate: response list item 0 is not an object"},
		{name: "scalar", data: `"text"`, err: "huggingface_generate: response is not a JSON object"},
		{name: "malformed", data: `{"generated_text":`, err: "huggingface_generate: malformed response JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New().ParseResponse([]byte(c.data))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != c.text || p.Usage != nil || p.Result != nil || p.Reasoning != "" {
				t.Errorf("parsed %+v, want text %q only", p, c.text)
			}
		})
	}
}

// TestStreamOverLoopback posts a formatted body to the streaming path of a
// TGI-like server and parses its events as they come.
func TestStreamOverLoopback(t *testing.T) {
	words := []string{" From", " fairest", " creatures"}
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != StreamingPath {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &got); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i, word := range words {
			ev := map[string]any{"index": i, "token": map[string]any{"id": i, "text": word, "special": false}, "generated_text": nil}
			if i == len(words)-1 {
				ev["generated_text"] = strings.Join(words, "")
			}
			b, _ := json.Marshal(ev)
			io.WriteString(w, "data:"+string(b)+"\n\n")
		}
	}))
	defer srv.Close()

	ep := New()
	body, err := ep.FormatPayload(sdk.RequestInfo{Model: "m", Streaming: true, Turn: sdk.Turn{Texts: []string{"Sonnet"}, MaxTokens: intp(3)}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+ep.Metadata().StreamingPath, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var text strings.Builder
	content := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		p, err := ep.ParseResponse([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if p.HasContent() {
			content++
		}
		text.WriteString(p.Text)
	}
	if content != 3 || text.String() != " From fairest creatures" {
		t.Errorf("content units %d, text %q; want 3 and the words once", content, text.String())
	}
	params, _ := got["parameters"].(map[string]any)
	if got["inputs"] != "Sonnet" || params["max_new_tokens"] != 3.0 {
		t.Errorf("server saw %v", got)
	}
}
