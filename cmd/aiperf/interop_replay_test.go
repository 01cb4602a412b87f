package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/replayserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// transcriptRoot holds the recorded wire transcripts, one file per server
// and case (internal/replayserver/testdata/transcripts/README.md).
var transcriptRoot = filepath.Join("..", "..", "internal", "replayserver", "testdata", "transcripts")

// TestInteropReplay runs `aiperf profile` against each recorded server
// response, replayed byte for byte with its original write boundaries, and
// checks what the run made of it against the transcript's expect-* fields:
// the content events (TTFT/ITL), the answer and reasoning text as the
// endpoint parsed them, the usage, and for an error the type, code and
// message. Adding a server is adding a transcript file.
func TestInteropReplay(t *testing.T) {
	trs, err := replayserver.LoadAll(transcriptRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) == 0 {
		t.Fatalf("no transcripts under %s", transcriptRoot)
	}
	for _, tr := range trs {
		t.Run(tr.Name, func(t *testing.T) {
			t.Parallel()
			runTranscript(t, tr)
		})
	}
}

func runTranscript(t *testing.T, tr *replayserver.Transcript) {
	endpoint := field(t, tr, "endpoint", "chat")
	streaming := field(t, tr, "streaming", "false") == "true"
	srv := replayserver.Start(t, tr)
	args := []string{"-m", "replay-model", "-u", srv.URL, "--endpoint-type", endpoint,
		"--request-count", "1", "--concurrency", "1", "--isl", "8", "--osl", "4", "--export-level", "raw"}
	if streaming {
		args = append(args, "--streaming")
	}
	r := profile(t, args...)
	if reqs := srv.Requests(); len(reqs) != 1 {
		t.Fatalf("server read %d requests, want 1\nstderr:\n%s", len(reqs), r.stderr)
	}
	if len(r.records) != 1 {
		t.Fatalf("%d JSONL records, want 1 (exit %d)\nstderr:\n%s", len(r.records), r.code, r.stderr)
	}
	rec := r.records[0]
	raw := readRawFile(t, filepath.Join(r.dir, "profile_export_raw.jsonl"))
	if len(raw) != 1 {
		t.Fatalf("%d raw records, want 1", len(raw))
	}
	rl := parseRawLine(t, raw[0])
	if rl.Status == nil || *rl.Status != tr.Status {
		t.Errorf("raw status %v, want %d", rl.Status, tr.Status)
	}

	if wantType, ok := tr.Field("expect-error-type"); ok {
		if rec.Error == nil {
			t.Fatalf("no error recorded, want %s", wantType)
		}
		if rec.Error.Type != wantType {
			t.Errorf("error type %q, want %q (message %q)", rec.Error.Type, wantType, rec.Error.Message)
		}
		if want, ok := tr.Field("expect-error-code"); ok && strconv.Itoa(rec.Error.Code) != want {
			t.Errorf("error code %d, want %s (message %q)", rec.Error.Code, want, rec.Error.Message)
		}
		if want, ok := tr.Field("expect-error-message"); ok && !strings.Contains(rec.Error.Message, unquote(t, tr, want)) {
			t.Errorf("error message %q, want it to contain %s", rec.Error.Message, want)
		}
		if r.code == 0 {
			t.Errorf("exit 0 with the only request failed")
		}
		return
	}
	if rec.Error != nil {
		t.Fatalf("unexpected error %s %d: %q\nstderr:\n%s", rec.Error.Type, rec.Error.Code, rec.Error.Message, r.stderr)
	}
	if r.code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}

	// Parse the units the transport split the body into with the same
	// endpoint the run used: the text a client made of the bytes.
	reg, err := embeddedRegistry()
	if err != nil {
		t.Fatal(err)
	}
	ep, err := registry.Get(reg, sdk.Endpoints, endpoint)
	if err != nil {
		t.Fatalf("%s: endpoint %q: %v", tr.Name, endpoint, err)
	}
	var text, reasoning strings.Builder
	content := 0
	for i, resp := range rl.Responses {
		var unit sdk.Response
		for _, p := range resp.Packets {
			switch p.Name {
			case "data":
				unit.Data = append(unit.Data, p.Value...)
			case "event":
				unit.Event = p.Value
			}
		}
		if resp.Text != nil {
			unit.Data = []byte(*resp.Text)
		}
		pr, err := ep.ParseResponse(unit.Data)
		if err != nil {
			t.Fatalf("response %d %q: %v", i, unit.Data, err)
		}
		if pr.HasContent() {
			content++
		}
		text.WriteString(pr.Text)
		reasoning.WriteString(pr.Reasoning)
	}
	if want := unquote(t, tr, field(t, tr, "expect-output", `""`)); text.String() != want {
		t.Errorf("output text %q, want %q", text.String(), want)
	}
	if want := unquote(t, tr, field(t, tr, "expect-reasoning", `""`)); reasoning.String() != want {
		t.Errorf("reasoning text %q, want %q", reasoning.String(), want)
	}
	if want, ok := tr.Field("expect-content-responses"); ok && strconv.Itoa(content) != want {
		t.Errorf("%d responses with content, want %s", content, want)
	}
	if n := len(rl.Responses); n == 0 {
		t.Errorf("no responses recorded")
	}

	// TTFT always; one inter-chunk latency per content event after the
	// first when streaming.
	if _, ok := rec.Metrics["time_to_first_token"]; !ok && streaming {
		t.Errorf("no time_to_first_token")
	}
	if streaming {
		var icl []float64
		if m, ok := rec.Metrics["inter_chunk_latency"]; ok {
			if err := json.Unmarshal(m.Value, &icl); err != nil {
				t.Fatalf("inter_chunk_latency: %v", err)
			}
		}
		if len(icl) != content-1 {
			t.Errorf("%d inter-chunk latencies, want %d (content events - 1)", len(icl), content-1)
		}
	}
	if osl := r.value(t, rec, "output_sequence_length"); (osl > 0) != (text.Len() > 0) {
		t.Errorf("output_sequence_length %v for output %q", osl, text.String())
	}
	if reasoning.Len() > 0 {
		if v := r.value(t, rec, "reasoning_token_count"); v <= 0 {
			t.Errorf("reasoning_token_count %v for reasoning %q", v, reasoning.String())
		}
	}
	if want, ok := tr.Field("expect-usage"); ok {
		for _, kv := range strings.Fields(want) {
			k, v, _ := strings.Cut(kv, "=")
			tag := map[string]string{"prompt": "usage_prompt_tokens", "completion": "usage_completion_tokens",
				"total": "usage_total_tokens", "reasoning": "usage_reasoning_tokens"}[k]
			if tag == "" {
				t.Fatalf("%s: expect-usage key %q: want prompt, completion, total or reasoning", tr.Name, k)
			}
			if got := r.value(t, rec, tag); fmt.Sprint(got) != v {
				t.Errorf("%s %v, want %s", tag, got, v)
			}
		}
	}
}

func field(t *testing.T, tr *replayserver.Transcript, key, def string) string {
	t.Helper()
	if v, ok := tr.Field(key); ok {
		return v
	}
	return def
}

func unquote(t *testing.T, tr *replayserver.Transcript, s string) string {
	t.Helper()
	u, err := strconv.Unquote(s)
	if err != nil {
		t.Fatalf("%s: %q must be a Go-quoted string: %v", tr.Name, s, err)
	}
	return u
}
