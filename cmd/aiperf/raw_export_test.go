package main

// End-to-end tests of --export-level raw (profile_export_raw.jsonl) against
// the mock server: the layout of AIPerf 0.13's raw records (checked against
// the fixtures of its configs f and h), the payload as in inputs.json, and
// no secret anywhere in the artifact directory.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

const rawSecret = "sk-raw-e2e-SECRET-7f3a9c"

// rawLine is one parsed line of profile_export_raw.jsonl with its key order.
type rawLine struct {
	keys       []string
	headerKeys []string
	Metadata   json.RawMessage   `json:"metadata"`
	Start      int64             `json:"start_perf_ns"`
	Headers    map[string]string `json:"request_headers"`
	Status     *int              `json:"status"`
	Responses  []struct {
		PerfNs  int64       `json:"perf_ns"`
		Packets []rawPacket `json:"packets"`
		Text    *string     `json:"text"`
	} `json:"responses"`
	Error *struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Payload json.RawMessage `json:"payload"`
}

type rawPacket struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func parseRawLine(t *testing.T, b []byte) rawLine {
	t.Helper()
	var l rawLine
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("raw line does not parse: %v\n%.300s", err, b)
	}
	l.keys = jsontest.ObjectKeys(t, b)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	l.headerKeys = jsontest.ObjectKeys(t, top["request_headers"])
	return l
}

func readRawFile(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// fixtureRaw is the first raw record AIPerf 0.13 wrote in a reference config.
func fixtureRaw(t *testing.T, config string) rawLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "aiperf013", config, "profile_export_raw.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return parseRawLine(t, bytes.SplitN(bytes.TrimSpace(b), []byte{'\n'}, 2)[0])
}

// withoutAffinity drops X-Session-Affinity, which AIPerf 0.13 sends by
// default and we do not send.
func withoutAffinity(keys []string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "X-Session-Affinity" })
}

// checkNoSecret fails if the secret appears in any file of dir or in the
// console output.
func checkNoSecret(t *testing.T, r *profileRun, secret string) {
	t.Helper()
	err := filepath.WalkDir(r.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the api key appears in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
		t.Error("the api key appears on the console")
	}
}

// inputsPayloads maps each session_id of inputs.json to its payloads.
func inputsPayloads(t *testing.T, r *profileRun) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	data, _ := r.inputsJS["data"].([]any)
	for _, d := range data {
		e := d.(map[string]any)
		out[e["session_id"].(string)] = e["payloads"].([]any)
	}
	if len(out) == 0 {
		t.Fatalf("inputs.json has no data: %v", r.inputsJS)
	}
	return out
}

// checkRawExport checks every line of the raw file against the run's other
// artifacts and AIPerf's layout; it returns the parsed lines.
func checkRawExport(t *testing.T, r *profileRun, streaming bool, osl int) []rawLine {
	t.Helper()
	path := filepath.Join(r.dir, "profile_export_raw.jsonl")
	if !strings.Contains(r.stdout, "Raw Records: "+path) {
		t.Errorf("the console footer does not list %s:\n%s", path, grepLines(r.stdout, "Export"))
	}
	if strings.Contains(r.stderr, "not implemented") {
		t.Errorf("stale warning on stderr:\n%s", r.stderr)
	}
	okFixture, errFixture := fixtureRaw(t, "f_chat_raw"), fixtureRaw(t, "h_chat_errors_raw")
	metaKeys := jsontest.ObjectKeys(t, okFixture.Metadata)

	// The metadata of each request, as profile_export.jsonl writes it.
	jsonlMeta := map[string]json.RawMessage{}
	jf := readRawFile(t, filepath.Join(r.dir, "profile_export.jsonl"))
	for _, b := range jf {
		var l struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID string `json:"x_request_id"`
		}
		_ = json.Unmarshal(l.Metadata, &m)
		jsonlMeta[m.ID] = l.Metadata
	}
	inputs := inputsPayloads(t, r)

	raw := readRawFile(t, path)
	if len(raw) == 0 || len(raw) != len(jf) || len(raw) != len(r.records) {
		t.Fatalf("%d raw lines, %d JSONL lines: want one per record", len(raw), len(jf))
	}
	var lines []rawLine
	seen := map[string]bool{}
	for _, b := range raw {
		l := parseRawLine(t, b)
		lines = append(lines, l)
		var md struct {
			ID             string `json:"x_request_id"`
			CorrelationID  string `json:"x_correlation_id"`
			ConversationID string `json:"conversation_id"`
			TurnIndex      int    `json:"turn_index"`
		}
		if err := json.Unmarshal(l.Metadata, &md); err != nil {
			t.Fatal(err)
		}
		if seen[md.ID] {
			t.Errorf("request %s written twice", md.ID)
		}
		seen[md.ID] = true
		// The same metadata block as the JSONL line of the request.
		if want, ok := jsonlMeta[md.ID]; !ok || !bytes.Equal(l.Metadata, want) {
			t.Errorf("request %s metadata differs from profile_export.jsonl:\n raw   %s\n jsonl %s", md.ID, l.Metadata, want)
		}

		// Keys in AIPerf's order: the fixture of a success or of a failure.
		want := okFixture.keys
		if l.Error != nil {
			want = errFixture.keys
		}
		if !slices.Equal(l.keys, want) {
			t.Errorf("keys %v, want AIPerf's %v", l.keys, want)
		}
		if got := jsontest.ObjectKeys(t, l.Metadata); l.Error == nil && !slices.Equal(got, metaKeys) {
			t.Errorf("metadata keys %v, want AIPerf's %v", got, metaKeys)
		}

		// Headers: AIPerf's names and order, ids of the record, key redacted.
		wantHeaders := withoutAffinity(errFixture.headerKeys) // h ran with --api-key
		if !slices.Equal(l.headerKeys, wantHeaders) {
			t.Errorf("request_headers keys %v, want %v", l.headerKeys, wantHeaders)
		}
		h := l.Headers
		if h["Authorization"] != "<redacted>" || h["X-Request-ID"] != md.ID || h["X-Correlation-ID"] != md.CorrelationID ||
			!strings.HasPrefix(h["User-Agent"], "aiperf/") || h["Content-Type"] != "application/json" {
			t.Errorf("request_headers %v", h)
		}
		if wantAccept := map[bool]string{true: "text/event-stream", false: "application/json"}[streaming]; h["Accept"] != wantAccept {
			t.Errorf("Accept %q, want %q", h["Accept"], wantAccept)
		}

		// The payload is the body inputs.json records for the turn.
		var payload any
		if err := json.Unmarshal(l.Payload, &payload); err != nil {
			t.Fatalf("payload: %v", err)
		}
		if ps := inputs[md.ConversationID]; md.TurnIndex >= len(ps) || !reflect.DeepEqual(payload, ps[md.TurnIndex]) {
			t.Errorf("request %s payload %s is not inputs.json's body for %s turn %d", md.ID, l.Payload, md.ConversationID, md.TurnIndex)
		}

		if l.Error != nil {
			if l.Status == nil || *l.Status != 500 || l.Error.Code != 500 || len(l.Responses) != 0 {
				t.Errorf("failed request: status %v, error %+v, %d responses", l.Status, l.Error, len(l.Responses))
			}
			continue
		}
		if l.Status == nil || *l.Status != 200 {
			t.Errorf("status %v, want 200", l.Status)
		}
		last := l.Start
		for _, resp := range l.Responses {
			if resp.PerfNs < last {
				t.Errorf("response perf_ns %d before %d", resp.PerfNs, last)
			}
			last = resp.PerfNs
		}
		if streaming {
			// Role chunk, osl content chunks, finish chunk, usage chunk, [DONE].
			if len(l.Responses) != osl+4 {
				t.Errorf("%d responses, want %d", len(l.Responses), osl+4)
			}
			for _, resp := range l.Responses {
				if len(resp.Packets) != 1 || resp.Packets[0].Name != "data" || resp.Text != nil {
					t.Errorf("response %+v is not one data packet", resp)
				}
			}
			if n := len(l.Responses); n > 0 && l.Responses[n-1].Packets[0].Value != "[DONE]" {
				t.Errorf("last packet %q, want [DONE]", l.Responses[n-1].Packets[0].Value)
			}
		} else {
			if len(l.Responses) != 1 || l.Responses[0].Text == nil || l.Responses[0].Packets != nil ||
				!json.Valid([]byte(*l.Responses[0].Text)) {
				t.Errorf("non-streaming responses %+v, want one text body", l.Responses)
			}
		}
	}
	return lines
}

func TestRawExportStreaming(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: time.Millisecond})
	r := profile(t, "-m", "mock-model", "-u", url, "--streaming", "--concurrency", "2", "--request-count", "8",
		"--isl", "16", "--osl", "16", "--extra-inputs", "ignore_eos:true", "--api-key", rawSecret, "--export-level", "raw")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := checkRawExport(t, r, true, 16)
	if len(lines) != 8 {
		t.Errorf("%d lines, want 8", len(lines))
	}
	checkNoSecret(t, r, rawSecret)
}

func TestRawExportNonStreaming(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "mock-model", "-u", url, "--concurrency", "2", "--request-count", "6",
		"--isl", "16", "--osl", "8", "--api-key", rawSecret, "--export-level", "raw")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkRawExport(t, r, false, 8)
	checkNoSecret(t, r, rawSecret)
}

// TestRawExportErrors is AIPerf's config h: an error-rate server and an api
// key. Failed requests have status 500, no responses and the error.
func TestRawExportErrors(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true, ErrorRate: 40, RandomSeed: 5})
	r := profile(t, "-m", "mock-model", "-u", url, "--streaming", "--concurrency", "4", "--request-count", "40",
		"--isl", "16", "--osl", "4", "--api-key", rawSecret, "-H", "X-Tenant-Secret: "+rawSecret, "--export-level", "raw")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// The -H credential header sits between the ids and Authorization.
	var lines []rawLine
	for _, b := range readRawFile(t, filepath.Join(r.dir, "profile_export_raw.jsonl")) {
		lines = append(lines, parseRawLine(t, b))
	}
	failed := 0
	for _, l := range lines {
		want := []string{"User-Agent", "X-Request-ID", "X-Correlation-ID", "X-Tenant-Secret", "Authorization", "Accept", "Content-Type"}
		if !slices.Equal(l.headerKeys, want) || l.Headers["X-Tenant-Secret"] != "<redacted>" {
			t.Fatalf("request_headers %v (%v), want %v", l.Headers, l.headerKeys, want)
		}
		if l.Error != nil {
			failed++
			if l.Error.Type != "Internal Server Error" || !strings.Contains(l.Error.Message, "simulated server error") {
				t.Errorf("error %+v", l.Error)
			}
		}
	}
	jsonlFailed := 0
	for _, rec := range r.records {
		if rec.Error != nil {
			jsonlFailed++
		}
	}
	if failed == 0 || failed == len(lines) || failed != jsonlFailed {
		t.Errorf("%d of %d raw lines failed, %d JSONL records: want some, the same", failed, len(lines), jsonlFailed)
	}
	checkNoSecret(t, r, rawSecret)
}

func TestRawExportFollowsPrefixAndLevel(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "mock-model", "-u", url, "--request-count", "3", "--isl", "8", "--osl", "2",
		"--export-level", "raw", "--profile-export-prefix", "run7")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	path := filepath.Join(r.dir, "run7_raw.jsonl")
	if n := len(readRawFile(t, path)); n != 3 {
		t.Errorf("%s has %d lines, want 3", path, n)
	}
	if !strings.Contains(r.stdout, "Raw Records: "+path) {
		t.Errorf("footer does not list %s", path)
	}

	// Below raw level there is no raw file and no footer line.
	r = profile(t, "-m", "mock-model", "-u", url, "--request-count", "3", "--isl", "8", "--osl", "2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "profile_export_raw.jsonl")); !os.IsNotExist(err) {
		t.Errorf("records level wrote a raw file (%v)", err)
	}
	if strings.Contains(r.stdout, "Raw Records") {
		t.Error("records level lists a raw file")
	}
}

// TestRawExportMultiTurnPayloadHasHistory: a later turn's payload is the
// body as sent, re-rendered with the conversation so far (AIPerf's config
// d2 has 3 and 5 messages in turns 1 and 2), while inputs.json keeps the
// turn's own message.
func TestRawExportMultiTurnPayloadHasHistory(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "mock-model", "-u", url, "--streaming", "--concurrency", "2", "--request-count", "6",
		"--conversation-num", "2", "--conversation-turn-mean", "3", "--isl", "8", "--osl", "2", "--export-level", "raw")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	inputs := inputsPayloads(t, r)
	lines := readRawFile(t, filepath.Join(r.dir, "profile_export_raw.jsonl"))
	turns := map[int]int{}
	for _, b := range lines {
		l := parseRawLine(t, b)
		var md struct {
			ConversationID string `json:"conversation_id"`
			TurnIndex      int    `json:"turn_index"`
		}
		if err := json.Unmarshal(l.Metadata, &md); err != nil {
			t.Fatal(err)
		}
		turns[md.TurnIndex]++
		var payload struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(l.Payload, &payload); err != nil {
			t.Fatal(err)
		}
		if got, want := len(payload.Messages), 2*md.TurnIndex+1; got != want {
			t.Errorf("%s turn %d: %d messages, want %d", md.ConversationID, md.TurnIndex, got, want)
			continue
		}
		own := inputs[md.ConversationID][md.TurnIndex].(map[string]any)["messages"].([]any)
		if last := payload.Messages[len(payload.Messages)-1]; !reflect.DeepEqual(any(last), own[len(own)-1]) {
			t.Errorf("%s turn %d: last message %v, want inputs.json's %v", md.ConversationID, md.TurnIndex, last, own[len(own)-1])
		}
	}
	if len(lines) != 6 || turns[0] != 2 || turns[1] != 2 || turns[2] != 2 {
		t.Errorf("%d lines, turns %v; want 2 sessions of 3 turns", len(lines), turns)
	}
}
