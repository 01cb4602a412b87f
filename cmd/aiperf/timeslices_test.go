package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// TestTimeslicesMatchAIPerf013 runs e_chat_goodput_slices' command against
// the mock and compares the layout of the timeslice files with AIPerf's:
// the CSV header, the JSON's top-level keys, each slice's bounds and, for
// every tag we write, the stats keys of AIPerf's block.
func TestTimeslicesMatchAIPerf013(t *testing.T) {
	url := startMock(t, mockserver.Config{TTFT: 20 * time.Millisecond, ITL: 2 * time.Millisecond})
	r := runFixture(t, url, "--endpoint-type", "chat", "--streaming", "--goodput", "time_to_first_token:100", "--slice-duration", "0.05")

	ours, theirs := r.read(t, "profile_export_aiperf_timeslices.csv"), readFixture(t, "e_chat_goodput_slices/profile_export_aiperf_timeslices.csv")
	header := func(b []byte) string { return string(bytes.SplitN(b, []byte("\n"), 2)[0]) }
	if header(ours) != header(theirs) {
		t.Errorf("CSV header %q, want %q", header(ours), header(theirs))
	}
	if !bytes.Contains(ours, []byte(",Request Throughput,requests/sec,avg,")) {
		t.Error("CSV lacks the per-slice Request Throughput rows")
	}

	var got, want map[string]json.RawMessage
	if err := json.Unmarshal(r.read(t, "profile_export_aiperf_timeslices.json"), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(readFixture(t, "e_chat_goodput_slices/profile_export_aiperf_timeslices.json"), &want); err != nil {
		t.Fatal(err)
	}
	if k1, k2 := keysOf(got), keysOf(want); !slices.Equal(k1, k2) {
		t.Errorf("top-level keys %v, want %v", k1, k2)
	}
	var gs, ws []map[string]json.RawMessage
	_ = json.Unmarshal(got["timeslices"], &gs)
	_ = json.Unmarshal(want["timeslices"], &ws)
	if len(gs) == 0 || len(ws) == 0 {
		t.Fatalf("slices: ours %d, theirs %d", len(gs), len(ws))
	}
	for i, s := range gs {
		if s["start_ns"] == nil || s["end_ns"] == nil {
			t.Errorf("slice %d lacks its bounds", i)
		}
		if s["effective_latency"] != nil || s["credit_to_start_latency"] != nil {
			t.Errorf("slice %d carries a tag AIPerf leaves out", i)
		}
	}
	for tag, raw := range gs[0] {
		if tag == "start_ns" || tag == "end_ns" {
			continue
		}
		w, ok := ws[0][tag]
		if !ok {
			t.Errorf("slice tag %q is not AIPerf's", tag)
			continue
		}
		var a, b map[string]json.RawMessage
		_ = json.Unmarshal(raw, &a)
		_ = json.Unmarshal(w, &b)
		if ka, kb := keysOf(a), keysOf(b); !slices.Equal(ka, kb) {
			t.Errorf("%s: keys %v, want %v", tag, ka, kb)
		}
	}
	for _, tag := range []string{"request_count", "request_throughput", "output_token_throughput", "goodput"} {
		if gs[0][tag] == nil {
			t.Errorf("slice 0 lacks %s", tag)
		}
	}
}

func keysOf(m map[string]json.RawMessage) []string {
	k := make([]string, 0, len(m))
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}
