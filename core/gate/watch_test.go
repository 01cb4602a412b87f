package gate

import (
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// rec is a processed record of a phase, failed or not.
func rec(phase string, failed bool) *sdk.RecordMetrics {
	r := &sdk.RequestRecord{Phase: phase}
	if failed {
		r.Error = &sdk.ErrorDetails{Code: 500, Type: "Internal Server Error"}
	}
	return &sdk.RecordMetrics{Record: r}
}

// feed adds a record sequence: 'x' failed, '.' succeeded, 'w' a
// failed warmup record.
func feed(w *Watch, seq string) {
	for _, c := range seq {
		switch c {
		case 'x':
			w.Add(rec(sdk.PhaseProfiling, true))
		case '.':
			w.Add(rec(sdk.PhaseProfiling, false))
		case 'w':
			w.Add(rec(sdk.PhaseWarmup, true))
		}
	}
}

func ratio(v float64) *float64 { return &v }

func TestWatchFailedRequestThreshold(t *testing.T) {
	tests := []struct {
		name        string
		threshold   float64
		concurrency int
		seq         string
		// tripAt is the record count when it trips (0: never); errors is
		// the failed count then.
		tripAt, errors int64
	}{
		// AIPerf's grace floor: max(concurrency, 10) records before the
		// ratio is checked, so nine failures in a row do not abort.
		{"floor of 10", 0.5, 1, "xxxxxxxxxxxx", 10, 10},
		{"no concurrency counts as 1", 0.5, 0, "xxxxxxxxxxxx", 10, 10},
		{"floor is the concurrency above 10", 0.5, 16, strings.Repeat("x", 20), 16, 16},
		// Strictly above the threshold: 1/10 = 0.1 does not trip 0.1, the
		// next failure (2/11) does.
		{"ratio equal to the threshold", 0.1, 4, "x.........x", 11, 2},
		{"recovers below the threshold", 0.3, 1, "x.x.......x.........", 0, 0},
		{"zero tolerates none", 0, 1, "..........x", 11, 1},
		{"zero with every request ok", 0, 1, strings.Repeat(".", 50), 0, 0},
		{"one never trips", 1, 1, strings.Repeat("x", 50), 0, 0},
		// Only profiling records count (warmup failures are ignored).
		{"warmup ignored", 0.1, 1, strings.Repeat("w", 30) + strings.Repeat(".", 10), 0, 0},
		{"warmup not in the floor", 0.5, 1, "wwwwwwwwwxxxxxxxxxx", 10, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			var cause error
			w := NewWatch(WatchConfig{FailedRequestThreshold: ratio(tc.threshold), Concurrency: tc.concurrency}, func(err error) {
				calls++
				cause = err
			})
			feed(w, tc.seq)
			a := w.Tripped()
			if tc.tripAt == 0 {
				if a != nil || calls != 0 {
					t.Fatalf("tripped: %v", a)
				}
				return
			}
			if a == nil || calls != 1 {
				t.Fatalf("not tripped (calls %d)", calls)
			}
			if a.Records != tc.tripAt || a.Errors != tc.errors || a.Flag != "--failed-request-threshold" || a.Limit != tc.threshold {
				t.Errorf("abort %+v, want at %d records with %d errors", a, tc.tripAt, tc.errors)
			}
			if cause != error(a) {
				t.Errorf("cause %v is not the abort", cause)
			}
			if !strings.HasPrefix(a.Error(), "--failed-request-threshold exceeded: ") {
				t.Errorf("message %q", a.Error())
			}
		})
	}
}

func TestWatchMessageIsAIPerfs(t *testing.T) {
	w := NewWatch(WatchConfig{FailedRequestThreshold: ratio(0.25), Concurrency: 2}, nil)
	feed(w, "xxx.......")
	want := "--failed-request-threshold exceeded: 3/10 = 0.300 > 0.250 (grace floor 10); the run was stopped"
	if a := w.Tripped(); a == nil || a.Error() != want {
		t.Errorf("got %v, want %q", a, want)
	}
}

func TestWatchAbortOnBreach(t *testing.T) {
	tests := []struct {
		exprs  string
		seq    string
		tripAt int64
	}{
		// error_request_count only grows: a breach is final, no floor.
		{"error_request_count:avg<3", "x.x.x", 5},
		{"error_request_count:avg<=3", "x.x.x.x", 7},
		// request_error_rate (%) waits for the floor, like AIPerf's ratio.
		{"request_error_rate:avg<50", "xxxxxxxxxx", 10},
		{"request_error_rate:avg<50", "x.x.x.x.x.", 10}, // 50 % is not < 50
		{"request_error_rate:avg<=50", "x.x.x.x.x.", 0},
		{"request_error_rate:avg<=50", "x.x.x.x.x.x", 11},
		// Not live: lower bounds and latency thresholds wait for the end.
		{"request_error_rate:avg>50 time_to_first_token:p99<1 error_request_count:avg>=0", "xxxxxxxxxxxxxxx", 0},
	}
	for _, tc := range tests {
		ts, err := ParseThresholds([]string{tc.exprs})
		if err != nil {
			t.Fatal(err)
		}
		w := NewWatch(WatchConfig{Thresholds: ts, AbortOnBreach: true, Concurrency: 1}, func(error) {})
		if w == nil {
			if tc.tripAt != 0 {
				t.Errorf("%s: no watch", tc.exprs)
			}
			continue
		}
		feed(w, tc.seq)
		a := w.Tripped()
		switch {
		case tc.tripAt == 0 && a != nil:
			t.Errorf("%s: tripped %v", tc.exprs, a)
		case tc.tripAt != 0 && (a == nil || a.Records != tc.tripAt || a.Flag != "--abort-on-threshold-breach" || a.Threshold == nil):
			t.Errorf("%s: %+v, want a trip at %d records", tc.exprs, a, tc.tripAt)
		}
	}
	// Without --abort-on-threshold-breach the same thresholds are not watched.
	ts, _ := ParseThresholds([]string{"error_request_count:avg<1"})
	if w := NewWatch(WatchConfig{Thresholds: ts}, nil); w != nil {
		t.Error("thresholds watched without --abort-on-threshold-breach")
	}
}

func TestWatchStopsCountingOnceTripped(t *testing.T) {
	calls := 0
	w := NewWatch(WatchConfig{FailedRequestThreshold: ratio(0)}, func(error) { calls++ })
	feed(w, "..........x")
	// The cancelled in-flight requests arrive afterwards as failures.
	feed(w, "xxxxx")
	if a := w.Tripped(); a == nil || a.Records != 11 || a.Errors != 1 || calls != 1 {
		t.Errorf("abort %+v after %d calls", a, calls)
	}
}

func TestNilWatchIgnoresRecords(t *testing.T) {
	w := NewWatch(WatchConfig{}, func(error) { t.Error("abort called") })
	if w != nil {
		t.Fatal("a watch with nothing to check")
	}
	feed(w, "xxxxxxxxxxxxxxxxxxxx")
	w.Add(nil)
	if w.Tripped() != nil {
		t.Error("nil watch tripped")
	}
}

func TestLive(t *testing.T) {
	for expr, want := range map[string]bool{
		"error_request_count:avg<3": true, "request_error_rate:avg<=1": true,
		"error_request_count:avg>3": false, "request_error_rate:avg>=1": false,
		"time_to_first_token:p99<200": false,
	} {
		ts, err := ParseThresholds([]string{expr})
		if err != nil {
			t.Fatal(err)
		}
		if Live(ts[0]) != want {
			t.Errorf("Live(%s) = %v", expr, !want)
		}
	}
}
