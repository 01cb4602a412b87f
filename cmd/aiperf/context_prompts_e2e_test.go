package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// sentRequest is one request body as profile_export_raw.jsonl keeps it.
type sentRequest struct {
	ConversationID string
	TurnIndex      int
	Body           json.RawMessage
}

func sentRequests(t *testing.T, r *profileRun) []sentRequest {
	t.Helper()
	var out []sentRequest
	for _, b := range readRawFile(t, filepath.Join(r.dir, "profile_export_raw.jsonl")) {
		l := parseRawLine(t, b)
		var md struct {
			ConversationID string `json:"conversation_id"`
			TurnIndex      int    `json:"turn_index"`
		}
		if err := json.Unmarshal(l.Metadata, &md); err != nil {
			t.Fatal(err)
		}
		out = append(out, sentRequest{md.ConversationID, md.TurnIndex, l.Payload})
	}
	return out
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func chatMessages(t *testing.T, body []byte) []chatMessage {
	t.Helper()
	var b struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	return b.Messages
}

// --shared-system-prompt-length and --user-context-prompt-length: one
// system prompt of exactly that many tokens for every conversation, one
// user context per conversation, both ahead of every turn (history
// included), adding to the ISL.
func TestSharedSystemAndUserContextPrompts(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--isl", "16", "--osl", "4", "--shared-system-prompt-length", "12",
		"--user-context-prompt-length", "7", "--num-sessions", "3", "--session-turns-mean", "2",
		"--concurrency", "1", "--export-level", "raw")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	tok := tiktoken.New()
	reqs := sentRequests(t, r)
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 3 sessions x 2 turns", len(reqs))
	}
	system := ""
	contexts := map[string]string{}
	for _, q := range reqs {
		msgs := chatMessages(t, q.Body)
		wantLen := 3 + 2*q.TurnIndex // system, context, [user, assistant]*, user
		if len(msgs) != wantLen || msgs[0].Role != "system" || msgs[1].Role != "user" {
			t.Fatalf("%s turn %d: messages %+v", q.ConversationID, q.TurnIndex, msgs)
		}
		if n := tok.Count(msgs[0].Content); n != 12 {
			t.Errorf("system prompt has %d tokens, want 12", n)
		}
		if n := tok.Count(msgs[1].Content); n != 7 {
			t.Errorf("user context has %d tokens, want 7", n)
		}
		if system == "" {
			system = msgs[0].Content
		} else if msgs[0].Content != system {
			t.Errorf("%s: system prompt differs between conversations", q.ConversationID)
		}
		if prev, ok := contexts[q.ConversationID]; ok && prev != msgs[1].Content {
			t.Errorf("%s: user context changed between turns", q.ConversationID)
		}
		contexts[q.ConversationID] = msgs[1].Content
		if q.TurnIndex == 1 {
			// The history repeats the first turn's own prompt, not the
			// system prompt and context again.
			if msgs[2].Role != "user" || tok.Count(msgs[2].Content) != 16 || msgs[3].Role != "assistant" {
				t.Errorf("%s: history %+v", q.ConversationID, msgs[2:4])
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range contexts {
		seen[c] = true
	}
	if len(contexts) != 3 || len(seen) != 3 {
		t.Errorf("user contexts %v: want one distinct context per conversation", contexts)
	}
	// The system prompt and context add to --isl (AIPerf's additive model).
	if isl := r.mustMetric(t, "input_sequence_length"); *isl.Min < 12+7+16-2 {
		t.Errorf("ISL min %v, want about 12+7+16", *isl.Min)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, r.summary["input_config"]); err != nil {
		t.Fatal(err)
	}
	ic := compact.String()
	if !strings.Contains(ic, `"shared_system_length":12`) || !strings.Contains(ic, `"user_context_length":7`) {
		t.Errorf("input_config lacks the prefix_prompts lengths: %s", ic)
	}
}

// --system-prompt-file reaches file datasets too (prepended to the dataset's
// own system message), and is refused before anything is sent on an
// endpoint with no system role.
func TestSystemPromptFile(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	dir := t.TempDir()
	sys := filepath.Join(dir, "sys.txt")
	data := filepath.Join(dir, "turns.jsonl")
	if err := os.WriteFile(sys, []byte("You are terse."), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte(`{"text": "What is 2+2?"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := profile(t, "-m", "m", "-u", url, "--input-file", data, "--custom-dataset-type", "single_turn",
		"--system-prompt-file", sys, "--request-count", "2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for id, payloads := range inputsPayloads(t, r) {
		b, _ := json.Marshal(payloads[0])
		msgs := chatMessages(t, b)
		if len(msgs) != 2 || msgs[0] != (chatMessage{"system", "You are terse."}) || msgs[1].Content != "What is 2+2?" {
			t.Errorf("%s: messages %+v", id, msgs)
		}
	}

	refused := profile(t, "-m", "m", "-u", url, "--endpoint-type", "completions", "--system-prompt", "Be brief.", "--request-count", "1")
	if refused.code == 0 || len(refused.records) != 0 {
		t.Fatalf("completions with --system-prompt: exit %d, %d records", refused.code, len(refused.records))
	}
	if !strings.Contains(refused.stderr, `--system-prompt: endpoint type "completions" sends no system message`) {
		t.Errorf("stderr does not say why:\n%s", refused.stderr)
	}
}

// Mooncake "messages" and "payload" records are sent verbatim: the message
// array (with tools) in place of history, the payload as the whole body.
// An endpoint that cannot send message arrays refuses the trace up front.
func TestMooncakeMessagesAndPayloadRecords(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	trace := filepath.Join(t.TempDir(), "agent.jsonl")
	lines := []string{
		`{"session_id": "a", "timestamp": 0, "messages": [{"role": "system", "content": "Use tools."}, {"role": "user", "content": "Weather?"}], "tools": [{"type": "function", "function": {"name": "weather", "parameters": {"type": "object"}}}], "output_length": 4}`,
		`{"session_id": "a", "timestamp": 30, "messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "Sunny."}, {"role": "user", "content": "Tomorrow?"}], "output_length": 4}`,
		`{"session_id": "b", "timestamp": 60, "payload": {"model": "m", "messages": [{"role": "user", "content": "verbatim body"}], "max_tokens": 3, "stream": false}}`,
	}
	if err := os.WriteFile(trace, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := profile(t, "-m", "m", "-u", url, "--input-file", trace, "--custom-dataset-type", "mooncake_trace",
		"--fixed-schedule-auto-offset", "--export-level", "raw")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := map[string]string{
		"a/0": `{"messages":[{"role":"system","content":"Use tools."},{"role":"user","content":"Weather?"}],"model":"m","stream":false,"tools":[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}}],"max_completion_tokens":4}`,
		"a/1": `{"messages":[{"role":"user","content":"Weather?"},{"role":"assistant","content":"Sunny."},{"role":"user","content":"Tomorrow?"}],"model":"m","stream":false,"max_completion_tokens":4}`,
		"b/0": `{"model":"m","messages":[{"role":"user","content":"verbatim body"}],"max_tokens":3,"stream":false}`,
	}
	reqs := sentRequests(t, r)
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for _, q := range reqs {
		key := q.ConversationID + "/" + string(rune('0'+q.TurnIndex))
		if string(q.Body) != want[key] {
			t.Errorf("%s sent\n%s\nwant\n%s", key, q.Body, want[key])
		}
	}
	for i, rec := range r.records {
		if rec.Error != nil {
			t.Errorf("record %d failed: %+v", i, rec.Error)
		}
	}

	refused := profile(t, "-m", "m", "-u", url, "--input-file", trace, "--custom-dataset-type", "mooncake_trace",
		"--endpoint-type", "completions")
	if refused.code == 0 || len(refused.records) != 0 {
		t.Fatalf("completions with message records: exit %d, %d records", refused.code, len(refused.records))
	}
	if !strings.Contains(refused.stderr, "carries a verbatim message array") {
		t.Errorf("stderr does not say why:\n%s", refused.stderr)
	}
}
