package main

import (
	"encoding/json"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// A later turn of a multi-turn session sends the whole conversation so far
// (earlier prompts and the assistant's answers) and its ISL counts all of
// it, as AIPerf 0.13 does (256 / 578 / 900 for 256-token turns with
// 66-token answers). total_isl is the sum of the per-record counts.
func TestMultiTurnISLCountsTheConversationSent(t *testing.T) {
	const sessions, turns, isl, osl = 3, 3, 32, 8
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--endpoint-type", "chat", "--streaming", "--concurrency", "2",
		"--num-sessions", "3", "--session-turns-mean", "3", "--isl", "32", "--osl", "8",
		"--extra-inputs", "ignore_eos:true")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if len(r.records) != sessions*turns {
		t.Fatalf("%d records, want %d", len(r.records), sessions*turns)
	}
	count := func(rec jsonlRecord, tag string) int {
		t.Helper()
		m, ok := rec.Metrics[tag]
		if !ok {
			t.Fatalf("record without %s: %+v", tag, rec)
		}
		var n int
		if err := json.Unmarshal(m.Value, &n); err != nil {
			t.Fatalf("%s = %s, want an int: %v", tag, m.Value, err)
		}
		return n
	}
	type turn struct{ isl, osl int }
	bySession := map[string]map[int]turn{}
	sum := 0
	for _, rec := range r.records {
		if rec.Error != nil {
			t.Fatalf("failed record: %+v", rec.Error)
		}
		id := rec.Metadata["x_correlation_id"].(string)
		if bySession[id] == nil {
			bySession[id] = map[int]turn{}
		}
		in := count(rec, "input_sequence_length")
		bySession[id][int(rec.Metadata["turn_index"].(float64))] = turn{in, count(rec, "output_sequence_length")}
		sum += in
	}
	total := r.mustMetric(t, "total_isl")
	if int(*total.Avg) != sum {
		t.Errorf("total_isl %v, want the sum of the JSONL's per-record ISL %d", *total.Avg, sum)
	}
	if sum <= sessions*turns*isl {
		t.Errorf("total_isl %d is no more than the turns' own prompts (%d): history not counted", sum, sessions*turns*isl)
	}
	// Joining messages may merge or split a token at each boundary.
	const slack = 4
	for id, ts := range bySession {
		if len(ts) != turns {
			t.Fatalf("session %s has turns %v", id, ts)
		}
		t.Logf("session %s: ISL %d / %d / %d, OSL %d / %d / %d", id, ts[0].isl, ts[1].isl, ts[2].isl, ts[0].osl, ts[1].osl, ts[2].osl)
		if ts[0].isl != isl {
			t.Errorf("session %s turn 1 ISL %d, want its prompt's %d", id, ts[0].isl, isl)
		}
		for i := 1; i < turns; i++ {
			if ts[i].isl <= ts[i-1].isl {
				t.Errorf("session %s turn %d ISL %d, not above turn %d's %d", id, i+1, ts[i].isl, i, ts[i-1].isl)
			}
			want := ts[i-1].isl + ts[i-1].osl + isl
			if d := ts[i].isl - want; d < -slack || d > slack {
				t.Errorf("session %s turn %d ISL %d, want about ISL %d + answer %d + prompt %d = %d",
					id, i+1, ts[i].isl, ts[i-1].isl, ts[i-1].osl, isl, want)
			}
		}
		if ts[0].osl != osl {
			t.Errorf("session %s turn 1 OSL %d, want %d", id, ts[0].osl, osl)
		}
	}
}
