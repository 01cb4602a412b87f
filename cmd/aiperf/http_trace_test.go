package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// aiperfHTTPUnits reads the http_req_* tags of an AIPerf 0.13 fixture's
// JSON summary with their units, and the JSON kind (int or float) of each
// tag's value in its first JSONL record.
func aiperfHTTPUnits(t *testing.T, fixture string) (units map[string]string, isInt map[string]bool) {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "aiperf013", fixture)
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var summary map[string]json.RawMessage
	if err := json.Unmarshal(b, &summary); err != nil {
		t.Fatal(err)
	}
	units = map[string]string{}
	for tag, raw := range summary {
		if !strings.HasPrefix(tag, "http_req_") {
			continue
		}
		var s struct{ Unit string }
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		units[tag] = s.Unit
	}
	f, err := os.Open(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		t.Fatal("empty fixture JSONL")
	}
	var rec jsonlRecord
	if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	isInt = map[string]bool{}
	for tag := range units {
		m, ok := rec.Metrics[tag]
		if !ok {
			t.Fatalf("fixture record lacks %s", tag)
		}
		isInt[tag] = !bytes.ContainsAny(m.Value, ".eE")
	}
	return units, isInt
}

// recordFloat is a JSONL metric's value.
func recordFloat(t *testing.T, rec jsonlRecord, tag string) float64 {
	t.Helper()
	m, ok := rec.Metrics[tag]
	if !ok {
		t.Fatalf("record without %s: %v", tag, rec.Metadata)
	}
	var v float64
	if err := json.Unmarshal(m.Value, &v); err != nil {
		t.Fatalf("%s = %s: %v", tag, m.Value, err)
	}
	return v
}

// sentBodies maps conversation id and turn to the length of the payload
// inputs.json recorded, i.e. the request body that was sent.
func sentBodies(t *testing.T, dir string) map[string][]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []struct {
			SessionID string            `json:"session_id"`
			Payloads  []json.RawMessage `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	out := map[string][]int{}
	for _, d := range in.Data {
		for _, p := range d.Payloads {
			var c bytes.Buffer
			if err := json.Compact(&c, p); err != nil {
				t.Fatal(err)
			}
			out[d.SessionID] = append(out[d.SessionID], c.Len())
		}
	}
	return out
}

// Every HTTP trace metric AIPerf 0.13 writes by default is in our JSON
// summary with AIPerf's unit and in every JSONL record with its unit and
// value kind, and the per-record values hold together: the phases add up to
// the durations, a new connection has a connect phase and a reused one none,
// the request body is what inputs.json says was sent.
func TestHTTPTraceMetricsMatchAIPerf(t *testing.T) {
	for _, c := range []struct {
		name, fixture string
		streaming     bool
	}{
		{"streaming", "a_chat_stream", true},
		{"non-streaming", "b_chat_nostream", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			units, isInt := aiperfHTTPUnits(t, c.fixture)
			if len(units) != 14 {
				t.Fatalf("fixture %s has %d http_req_* metrics, want 14: %v", c.fixture, len(units), units)
			}
			url := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
			args := []string{"-m", "mock-model", "-u", url, "--endpoint-type", "chat", "--concurrency", "2",
				"--request-count", "8", "--isl", "64", "--osl", "16", "--extra-inputs", "ignore_eos:true"}
			if c.streaming {
				args = append(args, "--streaming")
			}
			r := profile(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			tags := make([]string, 0, len(units))
			for tag := range units {
				tags = append(tags, tag)
				s := r.mustMetric(t, tag)
				if s.Unit != units[tag] {
					t.Errorf("%s: unit %q in the JSON, AIPerf writes %q", tag, s.Unit, units[tag])
				}
				if s.Count == nil || int(*s.Count) != len(r.records) {
					t.Errorf("%s: count %v, want one value per record (%d)", tag, s.Count, len(r.records))
				}
			}
			sort.Strings(tags)
			bodies := sentBodies(t, r.dir)
			newConns := 0
			for _, rec := range r.records {
				for _, tag := range tags {
					m, ok := rec.Metrics[tag]
					if !ok {
						t.Fatalf("record %v lacks %s", rec.Metadata["x_request_id"], tag)
					}
					if m.Unit != units[tag] || isInt[tag] == bytes.ContainsAny(m.Value, ".eE") {
						t.Errorf("%s = %s %s, AIPerf writes %s values (int: %v)", tag, m.Value, m.Unit, units[tag], isInt[tag])
					}
				}
				v := func(tag string) float64 { return recordFloat(t, rec, tag) }
				near := func(what string, got, want float64) {
					if math.Abs(got-want) > 1e-6 {
						t.Errorf("%s: %v, want %v", what, got, want)
					}
				}
				near("duration = sending + waiting + receiving", v("http_req_duration"),
					v("http_req_sending")+v("http_req_waiting")+v("http_req_receiving"))
				near("overhead = blocked + dns + connecting", v("http_req_connection_overhead"),
					v("http_req_blocked")+v("http_req_dns_lookup")+v("http_req_connecting"))
				near("total = overhead + sending + waiting + receiving", v("http_req_total"),
					v("http_req_connection_overhead")+v("http_req_sending")+v("http_req_waiting")+v("http_req_receiving"))
				if v("http_req_dns_lookup") != 0 {
					t.Errorf("DNS lookup %v ms for an IP address", v("http_req_dns_lookup"))
				}
				switch v("http_req_connection_reused") {
				case 0:
					newConns++
					if v("http_req_connecting") <= 0 || v("http_req_sending") < v("http_req_connecting") {
						t.Errorf("new connection: connecting %v ms, sending %v ms (which includes it, as in AIPerf)",
							v("http_req_connecting"), v("http_req_sending"))
					}
				case 1:
					if v("http_req_connecting") != 0 {
						t.Errorf("reused connection: connecting %v ms", v("http_req_connecting"))
					}
				}
				if v("http_req_chunks_sent") != 1 {
					t.Errorf("chunks sent %v, want the one body write", v("http_req_chunks_sent"))
				}
				turns := bodies[rec.Metadata["conversation_id"].(string)]
				if turn := int(rec.Metadata["turn_index"].(float64)); turn >= len(turns) || v("http_req_data_sent")*1024 != float64(turns[turn]) {
					t.Errorf("data sent %v KB, inputs.json payloads %v (bytes)", v("http_req_data_sent"), turns)
				}
				if v("http_req_data_received") <= 0 {
					t.Errorf("data received %v KB", v("http_req_data_received"))
				}
				if c.streaming {
					if v("http_req_chunks_received") < 2 || v("http_req_receiving") <= 0 {
						t.Errorf("streamed: %v chunks received over %v ms", v("http_req_chunks_received"), v("http_req_receiving"))
					}
				} else if v("http_req_chunks_received") != 1 || v("http_req_receiving") != 0 {
					// AIPerf: response.read() reports the whole body as one chunk.
					t.Errorf("whole body: %v chunks over %v ms, want 1 and 0", v("http_req_chunks_received"), v("http_req_receiving"))
				}
			}
			// Two virtual users open two connections, then reuse them.
			if newConns < 1 || newConns > 2 {
				t.Errorf("%d records on a new connection, want the two users' first requests", newConns)
			}
			// Console: HTTP trace metrics stay out of the table, as in AIPerf
			// without --show-trace-timing.
			if strings.Contains(r.stdout, "HTTP Total Time") {
				t.Errorf("console shows HTTP trace metrics:\n%s", r.stdout)
			}
		})
	}
}
