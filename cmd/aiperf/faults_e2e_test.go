package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/internal/faultserver"
)

// faultRunBound is how long one run against a misbehaving server may take
// before the test calls it a hang. It is a hang detector, not a timing
// assertion: every case finishes in a few seconds.
const faultRunBound = 30 * time.Second

// AIPerf's InvalidInferenceResultError messages (core/records/parse.go).
const (
	noContentMsg   = "InvalidInferenceResultError('Invalid inference result: No responses with actual content were received from the server (only usage/metadata, null/empty data, or [DONE] markers)')"
	noResponsesMsg = "InvalidInferenceResultError('Invalid inference result: No responses were received')"
)

// errorSummaryRow is one row of profile_export_aiperf.json's error_summary.
type errorSummaryRow struct {
	ErrorDetails struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error_details"`
	Count int `json:"count"`
}

// wantErr is the errors a case expects: how many records fail with this
// type, and a prefix of their JSONL message (or, when it starts with "~", a
// substring of it).
type wantErr struct {
	typ     string
	count   int
	message string
}

func (w wantErr) matches(msg string) bool {
	if sub, ok := strings.CutPrefix(w.message, "~"); ok {
		return strings.Contains(msg, sub)
	}
	return strings.HasPrefix(msg, w.message)
}

// TestFaultInjection runs `aiperf profile` against a server that misbehaves
// in one way per case and checks the run survives it as AIPerf would: the
// exit status, the typed error on each JSONL record and in the error
// summary, every request the client sent accounted for, the artifacts on
// disk, and no hang.
func TestFaultInjection(t *testing.T) {
	cases := []struct {
		name   string
		cfg    faultserver.Config
		stream bool
		count  int      // --request-count
		conc   int      // --concurrency
		extra  []string // more flags
		code   int
		ok     int       // records that succeed
		errs   []wantErr // the failing records, by type
		// received is how many requests the server reads; -1: count
		// (every request the client sent reached it).
		received int
		// partial: the run stops early (--failed-request-threshold), so
		// fewer than count requests are sent.
		partial bool
		// cancelled is how many records the run itself cancelled
		// (was_cancelled, RequestCancellationError 499); -1: any number.
		cancelled int
		// minOSL is the least output_sequence_length of a successful
		// record; 0: exactly the six tokens of faultserver.Content.
		minOSL float64
	}{
		{name: "reset before the answer", cfg: faultserver.Config{Fault: faultserver.Reset}, count: 6, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"ClientOSError", 6, "~connection reset"}}, received: -1},
		{name: "reset every second request", cfg: faultserver.Config{Fault: faultserver.Reset, Every: 2}, count: 6, conc: 1,
			code: app.ExitOK, ok: 3, errs: []wantErr{{"ClientOSError", 3, "~connection reset"}}, received: -1},
		{name: "reset mid-stream", cfg: faultserver.Config{Fault: faultserver.ResetMidStream}, stream: true, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"ClientPayloadError", 4, "~connection reset"}}, received: -1},
		{name: "reset mid-body", cfg: faultserver.Config{Fault: faultserver.ResetMidStream}, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"ClientPayloadError", 4, "~connection reset"}}, received: -1},
		{name: "stall", cfg: faultserver.Config{Fault: faultserver.Stall}, count: 2, conc: 2,
			extra: []string{"--request-timeout-seconds", "1.5"},
			code:  app.ExitFailedRequests, errs: []wantErr{{"TimeoutError", 2, "Request timed out after 1.5 seconds"}}, received: -1},
		{name: "stall every second request", cfg: faultserver.Config{Fault: faultserver.Stall, Every: 2}, count: 4, conc: 2,
			extra: []string{"--request-timeout-seconds", "1.5"},
			code:  app.ExitOK, ok: 2, errs: []wantErr{{"TimeoutError", 2, "Request timed out after 1.5 seconds"}}, received: -1},
		// Without a request timeout (6 hours by default) only the run's end
		// frees a stalled request: the grace period cuts it off, and it is
		// exported as cancelled, not as an error.
		{name: "stall past the benchmark duration", cfg: faultserver.Config{Fault: faultserver.Stall}, count: 2, conc: 2,
			extra: []string{"--benchmark-duration", "0.5", "--benchmark-grace-period", "0.5"},
			code:  app.ExitOK, cancelled: 2, received: -1},
		{name: "half-open stream", cfg: faultserver.Config{Fault: faultserver.HalfOpen}, stream: true, count: 2, conc: 2,
			extra: []string{"--request-timeout-seconds", "1.5"},
			code:  app.ExitFailedRequests, errs: []wantErr{{"TimeoutError", 2, "Request timed out after 1.5 seconds"}}, received: -1},
		{name: "drip stream", cfg: faultserver.Config{Fault: faultserver.Drip}, stream: true, count: 4, conc: 4,
			code: app.ExitOK, ok: 4, received: -1},
		{name: "drip body", cfg: faultserver.Config{Fault: faultserver.Drip}, count: 4, conc: 4,
			code: app.ExitOK, ok: 4, received: -1},
		{name: "garbage body", cfg: faultserver.Config{Fault: faultserver.Garbage}, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"ResponseParseError", 4, "response 0: chat: malformed response JSON"}}, received: -1},
		{name: "garbage stream", cfg: faultserver.Config{Fault: faultserver.Garbage}, stream: true, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"InvalidInferenceResultError", 4, noResponsesMsg}}, received: -1},
		{name: "empty choices body", cfg: faultserver.Config{Fault: faultserver.EmptyChoices}, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"InvalidInferenceResultError", 4, noContentMsg}}, received: -1},
		{name: "usage-only stream", cfg: faultserver.Config{Fault: faultserver.EmptyChoices}, stream: true, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"InvalidInferenceResultError", 4, noContentMsg}}, received: -1},
		{name: "done-only stream", cfg: faultserver.Config{Fault: faultserver.DoneOnly}, stream: true, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"InvalidInferenceResultError", 4, noContentMsg}}, received: -1},
		{name: "empty 200 body", cfg: faultserver.Config{Fault: faultserver.DoneOnly}, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"InvalidInferenceResultError", 4, noContentMsg}}, received: -1},
		{name: "empty choices every second request", cfg: faultserver.Config{Fault: faultserver.EmptyChoices, Every: 2}, stream: true,
			count: 4, conc: 1, code: app.ExitOK, ok: 2, errs: []wantErr{{"InvalidInferenceResultError", 2, noContentMsg}}, received: -1},
		{name: "gzip stream", cfg: faultserver.Config{Fault: faultserver.Gzip}, stream: true, count: 4, conc: 2,
			code: app.ExitOK, ok: 4, received: -1},
		{name: "gzip body", cfg: faultserver.Config{Fault: faultserver.Gzip}, count: 4, conc: 2,
			code: app.ExitOK, ok: 4, received: -1},
		{name: "corrupt gzip stream", cfg: faultserver.Config{Fault: faultserver.CorruptGzip}, stream: true, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"ClientPayloadError", 4, "Can not decode content-encoding: gzip"}}, received: -1},
		{name: "corrupt gzip body", cfg: faultserver.Config{Fault: faultserver.CorruptGzip}, count: 4, conc: 2,
			code: app.ExitFailedRequests, errs: []wantErr{{"ClientPayloadError", 4, "Can not decode content-encoding: gzip"}}, received: -1},
		// Our transport sets no size limit on an event or a body (nor does
		// AIPerf's aiohttp reader): a 10 MiB answer is read whole and counted.
		// "word " repeated over 10 MiB is about 2.1 million o200k tokens:
		// at least 2 million shows the whole answer was counted.
		{name: "oversized event", cfg: faultserver.Config{Fault: faultserver.Oversized}, stream: true, count: 1, conc: 1,
			code: app.ExitOK, ok: 1, received: -1, minOSL: 2_000_000},
		{name: "oversized body", cfg: faultserver.Config{Fault: faultserver.Oversized}, count: 1, conc: 1,
			code: app.ExitOK, ok: 1, received: -1, minOSL: 2_000_000},
		// One request at a time, so the order is fixed: 3 answered, the 4th
		// kills the server mid-request, the other 4 find nothing listening.
		{name: "server dies mid-run", cfg: faultserver.Config{Fault: faultserver.Die, DieAfter: 3}, stream: true, count: 8, conc: 1,
			code: app.ExitOK, ok: 3,
			errs: []wantErr{
				{"ClientOSError", 1, "~connection reset"},
				{"ClientConnectorError", 4, "~connection refused"},
			},
			received: 4},
		// Every request fails; the threshold (armed after max(concurrency,
		// 10) records) stops the run long before 200.
		{name: "failed-request threshold", cfg: faultserver.Config{Fault: faultserver.Reset}, count: 200, conc: 2,
			extra: []string{"--failed-request-threshold", "0.5"},
			code:  app.ExitFailedRequests, partial: true, cancelled: -1, errs: []wantErr{{"ClientOSError", -1, "~connection reset"}}, received: -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := faultserver.Start(t, c.cfg)
			args := []string{"-m", "fault-model", "-u", srv.URL, "--endpoint-type", "chat",
				"--request-count", fmt.Sprint(c.count), "--concurrency", fmt.Sprint(c.conc), "--isl", "8", "--osl", "6"}
			if c.stream {
				args = append(args, "--streaming")
			}
			args = append(args, c.extra...)
			start := time.Now()
			r := profile(t, args...)
			if took := time.Since(start); took > faultRunBound {
				t.Fatalf("the run took %v against a %s server: hung", took, c.cfg.Fault)
			}
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			checkFaultArtifacts(t, r)
			checkFaultRecords(t, r, srv, c.count, c.partial, c.received, c.ok, c.cancelled, c.minOSL, c.errs)
		})
	}
}

// checkFaultArtifacts: the three result files exist and are not empty.
func checkFaultArtifacts(t *testing.T, r *profileRun) {
	t.Helper()
	for _, name := range []string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "profile_export.jsonl"} {
		st, err := os.Stat(filepath.Join(r.dir, name))
		if err != nil || st.Size() == 0 {
			t.Errorf("artifact %s missing or empty: %v", name, err)
		}
	}
	if r.summary == nil {
		t.Fatalf("no JSON summary\n%s", r.stderr)
	}
}

// checkFaultRecords accounts for every request: one JSONL record per request
// sent, each a success or an error of an expected type, and the summary's
// counts and error_summary agree with the records.
func checkFaultRecords(t *testing.T, r *profileRun, srv *faultserver.Server, count int, partial bool,
	received, ok, wantCancelled int, minOSL float64, errs []wantErr) {
	t.Helper()
	n := len(r.records)
	switch {
	case partial && (n == 0 || n >= count):
		t.Errorf("%d JSONL records; want the run stopped early, between 1 and %d", n, count-1)
	case !partial && n != count:
		t.Errorf("%d JSONL records, want one per request sent: %d", n, count)
	}
	// A request the server read was sent, so has a record; one it never
	// read (refused, or cancelled before it was written) has one too.
	if got := srv.Received(); (received < 0 && !partial && got != count) || (received >= 0 && got != received) || got > n {
		t.Errorf("server read %d requests; client records %d (want %d read)", got, n, received)
	}

	okN, cancelled := 0, 0
	byType := map[string]int{}
	codes := map[string]int{} // error type -> the records' code
	for i, rec := range r.records {
		if rec.Error == nil {
			okN++
			checkOutputTokens(t, r, i, rec, minOSL)
			continue
		}
		if c, _ := rec.Metadata["was_cancelled"].(bool); c {
			cancelled++
			if wantCancelled == 0 || rec.Error.Type != "RequestCancellationError" || rec.Error.Code != 499 {
				t.Errorf("record %d cancelled: %+v", i, rec.Error)
			}
			continue
		}
		byType[rec.Error.Type]++
		codes[rec.Error.Type] = rec.Error.Code
		w, found := findWant(errs, rec.Error.Type)
		if !found {
			t.Errorf("record %d: unexpected error %s: %q", i, rec.Error.Type, rec.Error.Message)
			continue
		}
		if !w.matches(rec.Error.Message) {
			t.Errorf("record %d: %s message %q, want %q", i, rec.Error.Type, rec.Error.Message, w.message)
		}
	}
	if okN != ok {
		t.Errorf("%d successful records, want %d", okN, ok)
	}
	if wantCancelled >= 0 && cancelled != wantCancelled {
		t.Errorf("%d cancelled records, want %d", cancelled, wantCancelled)
	}
	for _, w := range errs {
		if (w.count >= 0 && byType[w.typ] != w.count) || (w.count < 0 && byType[w.typ] == 0) {
			t.Errorf("%d %s records, want %d (all types: %v)", byType[w.typ], w.typ, w.count, byType)
		}
	}

	// The summary counts the same requests.
	if okN > 0 {
		if got := r.mustMetric(t, "request_count"); *got.Avg != float64(okN) {
			t.Errorf("request_count %v, want %d", *got.Avg, okN)
		}
	}
	if failed := n - okN - cancelled; failed > 0 {
		got, found := r.metric(t, "error_request_count")
		if !found || got.Avg == nil || *got.Avg < float64(failed) {
			t.Errorf("error_request_count %+v, want at least the %d failed records", got.Avg, failed)
		}
	}
	var rows []errorSummaryRow
	if err := json.Unmarshal(r.summary["error_summary"], &rows); err != nil {
		t.Fatalf("error_summary: %v", err)
	}
	seen := map[string]int{}
	for _, row := range rows {
		seen[row.ErrorDetails.Type] += row.Count
		if row.ErrorDetails.Type == "RequestCancellationError" {
			continue // checked below
		}
		if code := codes[row.ErrorDetails.Type]; row.ErrorDetails.Code != code {
			t.Errorf("error_summary row %s has code %d, its records %d", row.ErrorDetails.Type, row.ErrorDetails.Code, code)
		}
		if w, found := findWant(errs, row.ErrorDetails.Type); found && !w.matches(row.ErrorDetails.Message) &&
			!strings.Contains(row.ErrorDetails.Message, strings.TrimPrefix(w.message, "~")) {
			t.Errorf("error_summary row %s %q, want %q", row.ErrorDetails.Type, row.ErrorDetails.Message, w.message)
		}
	}
	// Requests the run cut off at its end are excluded from the error
	// summary; those the failed-request threshold cancelled are errors.
	if want := map[bool]int{true: cancelled}[partial]; seen["RequestCancellationError"] != want {
		t.Errorf("error_summary counts %d cancellations, want %d (summary %+v)", seen["RequestCancellationError"], want, rows)
	}
	for typ, k := range byType {
		if seen[typ] != k {
			t.Errorf("error_summary counts %d %s, the records %d (summary %+v)", seen[typ], typ, k, rows)
		}
	}
	if len(errs) == 0 && len(rows) != 0 {
		t.Errorf("error_summary %+v, want none", rows)
	}
	if t.Failed() {
		types := make([]string, 0, len(byType))
		for k := range byType {
			types = append(types, k)
		}
		sort.Strings(types)
		t.Logf("error types %v\nstdout:\n%s\nstderr:\n%s", types, r.stdout, r.stderr)
	}
}

func findWant(errs []wantErr, typ string) (wantErr, bool) {
	for _, w := range errs {
		if w.typ == typ {
			return w, true
		}
	}
	return wantErr{}, false
}

// checkOutputTokens: a successful record counted the tokens of the whole
// answer: the six of faultserver.Content, or at least minOSL.
func checkOutputTokens(t *testing.T, r *profileRun, i int, rec jsonlRecord, minOSL float64) {
	t.Helper()
	v := r.value(t, rec, "output_sequence_length")
	if (minOSL == 0 && v != 6) || v < minOSL {
		t.Errorf("record %d: output_sequence_length %v, want %v", i, v, max(minOSL, 6))
	}
}
