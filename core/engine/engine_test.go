package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/google/uuid"
)

// --- engine against the real mock server ------------------------------------

func startMock(t *testing.T, cfg mockserver.Config) string {
	return mocktest.Start(t, cfg)
}

// servedRequests sums a counter family on the mock's /metrics page.
func servedRequests(t *testing.T, base, family string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	total := 0.0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, family) || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		total += v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return int(total)
}

// observingTransport is the real transport with the requests it was handed
// kept, so tests can see URLs and headers per credit.
type observingTransport struct {
	sdk.Transport
	mu    sync.Mutex
	sent  map[int]sdk.TransportRequest // by credit index (SessionNum), last turn
	count int                          // every request, all turns
}

func (o *observingTransport) Send(ctx context.Context, req *sdk.TransportRequest, rec *sdk.RequestRecord) {
	cp := *req
	cp.Headers = maps.Clone(req.Headers)
	o.mu.Lock()
	if o.sent == nil {
		o.sent = map[int]sdk.TransportRequest{}
	}
	o.sent[rec.SessionNum] = cp
	o.count++
	o.mu.Unlock()
	o.Transport.Send(ctx, req, rec)
}

type collector struct {
	mu  sync.Mutex
	got []Completed
}

func (c *collector) done(x Completed) {
	c.mu.Lock()
	c.got = append(c.got, x)
	c.mu.Unlock()
}

func prepared(t *testing.T, n int, models []string, streaming bool) []PreparedRequest {
	t.Helper()
	convs := make([]sdk.Conversation, n)
	for i := range convs {
		convs[i] = sdk.Conversation{SessionID: fmt.Sprintf("conv-%d", i),
			Turns: []sdk.Turn{{Texts: []string{fmt.Sprintf("prompt number %d for the mock", i)}, MaxTokens: intp(3 + i%3)}}}
	}
	reqs, _, err := Prepare(chatFixture{}, convs, PrepareOptions{Models: models, Streaming: streaming,
		ExtraInputs: map[string]any{"ignore_eos": true}, Tokenizer: wordTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

func newEngine(t *testing.T, tr sdk.Transport, reqs []PreparedRequest, opts Options) *Engine {
	t.Helper()
	e, err := New(tr, closedLoop{}, reqs, withDefaults(opts))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func realTransport(t *testing.T) *observingTransport {
	t.Helper()
	tr := transport.New(transport.Options{MaxConnsPerHost: 8, Timeout: 30 * time.Second})
	t.Cleanup(func() { _ = tr.Close() })
	return &observingTransport{Transport: tr}
}

func TestNewRejectsWhatCannotRun(t *testing.T) {
	reqs := []PreparedRequest{{ConversationID: "c", Payload: []byte("{}")}}
	twoTurns := []PreparedRequest{{ConversationID: "c", Payload: []byte("{}")},
		{ConversationID: "c", TurnIndex: 1, Payload: []byte("{}")}}
	url := []string{"http://127.0.0.1:1/x"}
	full := Options{URLs: url, Sampler: &sequentialSampler{}, URLSelection: roundRobin{}}
	without := func(edit func(*Options)) Options { o := full; edit(&o); return o }
	cases := []struct {
		name string
		reqs []PreparedRequest
		opts Options
		want string
	}{
		{"no requests", nil, full, "no requests"},
		{"no URL", reqs, without(func(o *Options) { o.URLs = nil }), "no URL"},
		{"no sampler", reqs, without(func(o *Options) { o.Sampler = nil }), "no dataset sampler"},
		{"no URL selection", reqs, without(func(o *Options) { o.URLSelection = nil }), "no URL selection strategy"},
		// Later turns are rendered with their history: that takes an endpoint.
		{"multi-turn without endpoint", twoTurns, full, "conversation c has 2 turns but no endpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(transport.New(transport.Options{}), closedLoop{}, c.reqs, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) || e != nil {
				t.Fatalf("New = %v, %v; want an error mentioning %q", e, err, c.want)
			}
		})
	}
	if _, err := New(transport.New(transport.Options{}), closedLoop{}, twoTurns, without(func(o *Options) { o.Endpoint = chatFixture{} })); err != nil {
		t.Errorf("multi-turn with an endpoint: %v", err)
	}
}

func TestRunPhaseSendsEveryCreditOnce(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("streaming=%v", streaming), func(t *testing.T) {
			const convs, passes, conc = 4, 3, 3
			const n = convs * passes
			reqs := prepared(t, convs, []string{"model-a", "model-b"}, streaming)
			tr := realTransport(t)
			userHeaders := map[string]string{"User-Agent": "aiperf/test", "Content-Type": "application/json"}
			sampler := &sequentialSampler{}
			e := newEngine(t, tr, reqs, Options{URLs: []string{base + chatPath}, Headers: userHeaders,
				Streaming: streaming, Seed: 11, Sampler: sampler})
			var col collector
			plan := sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: n, Concurrency: conc}
			if err := e.RunPhase(context.Background(), plan, col.done); err != nil {
				t.Fatal(err)
			}
			if len(col.got) != n {
				t.Fatalf("%d completions for %d credits", len(col.got), n)
			}
			ids := map[string]bool{}
			sessions := map[int]bool{}
			perConv := map[string]int{}
			for _, c := range col.got {
				rec, req := c.Record, c.Request
				if rec == nil || req == nil {
					t.Fatalf("completion without record or request: %+v", c)
				}
				if rec.Error != nil || rec.Status != http.StatusOK {
					t.Errorf("request %s failed: status %d %+v", rec.XRequestID, rec.Status, rec.Error)
				}
				for _, id := range []string{rec.XRequestID, rec.XCorrelationID} {
					if _, err := uuid.Parse(id); err != nil {
						t.Errorf("id %q is not a UUID: %v", id, err)
					}
					if ids[id] {
						t.Errorf("id %s used twice", id)
					}
					ids[id] = true
				}
				sessions[rec.SessionNum] = true
				perConv[req.ConversationID]++
				// Credit i sends the sampler's session i (sequential: i mod convs).
				if want := fmt.Sprintf("conv-%d", rec.SessionNum%convs); req.ConversationID != want {
					t.Errorf("credit %d sent %s, want %s", rec.SessionNum, req.ConversationID, want)
				}
				// The word tokenizer makes the prompt's count exact, read
				// from the body sent.
				if text, n, _ := req.Inputs(chatFixture{}, wordTokenizer{}, rec.RequestBody, true); n == nil || *n != 6 {
					t.Errorf("InputTokens %v, want the 6 words of %q", n, text)
				}
				// The request is the engine's own prepared request, not a copy.
				if !pointsInto(reqs, req) {
					t.Errorf("Completed.Request does not point into the prepared requests")
				}
				if rec.ConversationID != req.ConversationID || rec.TurnIndex != req.TurnIndex || rec.Model != req.Model {
					t.Errorf("record %s/%d/%s does not match request %s/%d/%s", rec.ConversationID, rec.TurnIndex, rec.Model,
						req.ConversationID, req.TurnIndex, req.Model)
				}
				if rec.RequestedOutputTokens == nil || *rec.RequestedOutputTokens != *req.MaxTokens {
					t.Errorf("RequestedOutputTokens %v, want %d", rec.RequestedOutputTokens, *req.MaxTokens)
				}
				if rec.Phase != sdk.PhaseProfiling || rec.WorkerID == "" {
					t.Errorf("phase %q worker %q", rec.Phase, rec.WorkerID)
				}
				if rec.Streaming != streaming || len(rec.Responses) == 0 {
					t.Errorf("streaming %v with %d responses, want streaming=%v", rec.Streaming, len(rec.Responses), streaming)
				}
				if rec.CreditIssuedNs == 0 || rec.CreditIssuedNs > rec.StartPerfNs || rec.StartPerfNs > rec.EndPerfNs {
					t.Errorf("credit %d, start %d, end %d are out of order", rec.CreditIssuedNs, rec.StartPerfNs, rec.EndPerfNs)
				}
				// The wire headers carry the record's ids and the run's headers.
				sent := tr.sent[rec.SessionNum]
				if sent.Headers["X-Request-ID"] != rec.XRequestID || sent.Headers["X-Correlation-ID"] != rec.XCorrelationID {
					t.Errorf("sent ids %q/%q, record %q/%q", sent.Headers["X-Request-ID"], sent.Headers["X-Correlation-ID"],
						rec.XRequestID, rec.XCorrelationID)
				}
				if sent.Headers["User-Agent"] != "aiperf/test" || sent.Streaming != streaming || string(sent.Body) != string(req.Payload) {
					t.Errorf("sent request does not carry the run's headers/body: %+v", sent.Headers)
				}
			}
			for i := range n {
				if !sessions[i] {
					t.Errorf("credit %d produced no completion", i)
				}
			}
			// Each pass of the sampler is a permutation: every conversation equally often.
			for id, k := range perConv {
				if k != passes {
					t.Errorf("conversation %s sent %d times, want %d", id, k, passes)
				}
			}
			// One order per phase, over every session, with the run's seed.
			if fmt.Sprint(sampler.calls) != fmt.Sprint([][2]int64{{convs, 11}}) {
				t.Errorf("Sampler.Order calls %v, want one (n=%d, seed=11)", sampler.calls, convs)
			}
			if len(userHeaders) != 2 {
				t.Errorf("engine wrote into the caller's header map: %v", userHeaders)
			}
			snap := e.Snapshot()
			want := sdk.ProgressSnapshot{Phase: sdk.PhaseProfiling, Sent: n, Completed: n, Errors: 0, Total: n}
			snap.Elapsed = 0
			if snap != want {
				t.Errorf("Snapshot = %+v, want %+v", snap, want)
			}
		})
	}
}

func pointsInto(reqs []PreparedRequest, req *PreparedRequest) bool {
	for i := range reqs {
		if &reqs[i] == req {
			return true
		}
	}
	return false
}

// TestRunPhaseIDHeadersWinWhateverTheCallerSpelling: header names are
// case-insensitive and the transport canonicalizes them, so an
// "x-request-id" among Options.Headers next to the engine's "X-Request-ID"
// puts one of the two values on the wire at random, and the record's id
// then names no request the server saw. The mock server does not report
// request headers, so a plain HTTP server observes them here.
func TestRunPhaseIDHeadersWinWhateverTheCallerSpelling(t *testing.T) {
	var mu sync.Mutex
	wire := map[string]string{} // X-Request-ID -> X-Correlation-ID as received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		wire[r.Header.Get("X-Request-ID")] = r.Header.Get("X-Correlation-ID")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"chat.completion","choices":[{"message":{"content":"hi"}}]}`)
	}))
	defer srv.Close()
	const n = 48
	e := newEngine(t, realTransport(t), prepared(t, 2, []string{"m"}, false), Options{URLs: []string{srv.URL + chatPath},
		Headers: map[string]string{"x-request-id": "from-user", "X-CORRELATION-ID": "from-user"}})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: "p", RequestCount: n, Concurrency: 1}, col.done); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, c := range col.got {
		corr, ok := wire[c.Record.XRequestID]
		if !ok || corr != c.Record.XCorrelationID {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d records carry ids the server never received (the caller's x-request-id/X-CORRELATION-ID went out instead)", bad, n)
	}
}

func TestRunPhaseUsesURLsRoundRobin(t *testing.T) {
	bases := []string{startMock(t, mockserver.Config{Fast: true}), startMock(t, mockserver.Config{Fast: true}),
		startMock(t, mockserver.Config{Fast: true})}
	urls := make([]string, len(bases))
	for i, b := range bases {
		urls[i] = b + chatPath
	}
	const n = 10
	tr := realTransport(t)
	e := newEngine(t, tr, prepared(t, 3, []string{"m"}, false), Options{URLs: urls, Seed: 1})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: "p", RequestCount: n, Concurrency: 4}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(tr.sent) != n {
		t.Fatalf("%d requests sent, want %d", len(tr.sent), n)
	}
	for i := range n {
		if got, want := tr.sent[i].URL, urls[i%len(urls)]; got != want {
			t.Errorf("credit %d went to %s, want %s", i, got, want)
		}
	}
	// The servers agree: credits 0,3,6,9 / 1,4,7 / 2,5,8.
	// The mock counts a request after its handler returns, which can trail
	// the client's last read by a moment: poll briefly.
	for i, b := range bases {
		want := (n - i + len(bases) - 1) / len(bases)
		got := servedRequests(t, b, "vllm:request_success_total")
		for deadline := time.Now().Add(5 * time.Second); got != want && time.Now().Before(deadline); got = servedRequests(t, b, "vllm:request_success_total") {
			time.Sleep(10 * time.Millisecond)
		}
		if got != want {
			t.Errorf("server %d served %d requests, want %d", i, got, want)
		}
	}
	for _, c := range col.got {
		if c.Record.Error != nil {
			t.Errorf("request failed: %+v", c.Record.Error)
		}
	}
}

func TestRunPhaseCountsErrors(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true, ErrorRate: 100})
	const n = 7
	e := newEngine(t, realTransport(t), prepared(t, 2, []string{"m"}, true), Options{URLs: []string{base + chatPath}, Streaming: true})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: n, Concurrency: 2}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(col.got) != n {
		t.Fatalf("%d completions, want %d (failed requests complete too)", len(col.got), n)
	}
	for _, c := range col.got {
		if c.Record.Error == nil || c.Record.Error.Code != http.StatusInternalServerError || c.Record.Valid() {
			t.Errorf("record error %+v, want HTTP 500", c.Record.Error)
		}
	}
	snap := e.Snapshot()
	if snap.Sent != n || snap.Completed != n || snap.Errors != n || snap.Total != n {
		t.Errorf("Snapshot = %+v, want %d sent/completed/errors/total", snap, n)
	}
	if got := servedRequests(t, base, "mock:injected_errors_total"); got != n {
		t.Errorf("mock injected %d errors, want %d", got, n)
	}
}

func TestRunPhaseResetsProgressPerPhase(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	e := newEngine(t, realTransport(t), prepared(t, 3, []string{"m"}, false), Options{URLs: []string{base + chatPath}})
	if s := e.Snapshot(); s.Phase != "" || s.Sent != 0 || s.Total != 0 {
		t.Errorf("Snapshot before any phase = %+v", s)
	}
	phases := []struct {
		name string
		n    int
	}{{sdk.PhaseWarmup, 4}, {sdk.PhaseProfiling, 6}}
	for _, p := range phases {
		var col collector
		if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: p.name, RequestCount: p.n, Concurrency: 2}, col.done); err != nil {
			t.Fatal(err)
		}
		s := e.Snapshot()
		if s.Phase != p.name || s.Sent != int64(p.n) || s.Completed != int64(p.n) || s.Total != int64(p.n) || s.Errors != 0 {
			t.Errorf("after %s: Snapshot = %+v, want %d of %d", p.name, s, p.n, p.n)
		}
		if len(col.got) != p.n {
			t.Errorf("%s: %d completions, want %d", p.name, len(col.got), p.n)
		}
		for _, c := range col.got {
			if c.Record.Phase != p.name {
				t.Errorf("%s record labelled %q", p.name, c.Record.Phase)
			}
		}
	}
	// Each ended phase keeps its final counts for the UIs.
	fin := e.Finished()
	if len(fin) != 2 || fin[0].Phase != sdk.PhaseWarmup || fin[0].Completed != 4 || fin[1].Phase != sdk.PhaseProfiling || fin[1].Completed != 6 {
		t.Errorf("Finished = %+v, want warmup 4 then profiling 6", fin)
	}
}

func TestRunPhaseCancelledSendsNothing(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	tr := realTransport(t)
	e := newEngine(t, tr, prepared(t, 2, []string{"m"}, false), Options{URLs: []string{base + chatPath}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var col collector
	if err := e.RunPhase(ctx, sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 5, Concurrency: 2}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(col.got) != 0 || len(tr.sent) != 0 {
		t.Errorf("cancelled phase sent %d requests, completed %d", len(tr.sent), len(col.got))
	}
	if s := e.Snapshot(); s.Sent != 0 || s.Completed != 0 || s.Total != 5 {
		t.Errorf("Snapshot = %+v", s)
	}
	if got := servedRequests(t, base, "vllm:request_success_total"); got != 0 {
		t.Errorf("mock served %d requests", got)
	}
}

func TestRunPhaseWrapsTimingErrors(t *testing.T) {
	e := newEngine(t, realTransport(t), prepared(t, 1, []string{"m"}, false), Options{URLs: []string{"http://127.0.0.1:1/v1/chat/completions"}})
	called := false
	err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseWarmup, RequestCount: 3, Concurrency: 0},
		func(Completed) { called = true })
	if err == nil || !strings.HasPrefix(err.Error(), "warmup phase: ") || !strings.Contains(err.Error(), "concurrency must be >= 1") {
		t.Fatalf("err = %v, want the timing error prefixed with the phase", err)
	}
	if called {
		t.Error("done called although the timing strategy refused the plan")
	}
}

// The engine sends what its plugins choose: credit i gets session
// Order(i) and URL Pick(i), and a new phase asks the sampler afresh.
func TestRunPhaseDelegatesSamplingAndURLSelection(t *testing.T) {
	bases := []string{startMock(t, mockserver.Config{Fast: true}), startMock(t, mockserver.Config{Fast: true})}
	urls := []string{bases[0] + chatPath, bases[1] + chatPath}
	const convs, n = 4, 8
	reqs := prepared(t, convs, []string{"m"}, false)
	reverse := funcSampler(func(k, credit int) int { return k - 1 - credit%k })
	// URL 1 for the first three credits, then URL 0: not round robin.
	picks := funcPicker(func(credit, urls int) int {
		if credit < 3 {
			return 1
		}
		return 0
	})
	tr := realTransport(t)
	e := newEngine(t, tr, reqs, Options{URLs: urls, Sampler: reverse, URLSelection: picks})
	for _, phase := range []string{sdk.PhaseWarmup, sdk.PhaseProfiling} {
		var col collector
		if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: phase, RequestCount: n, Concurrency: 3}, col.done); err != nil {
			t.Fatal(err)
		}
		if len(col.got) != n {
			t.Fatalf("%s: %d completions, want %d", phase, len(col.got), n)
		}
		for _, c := range col.got {
			i := c.Record.SessionNum
			if want := fmt.Sprintf("conv-%d", convs-1-i%convs); c.Request.ConversationID != want {
				t.Errorf("%s credit %d sent %s, want %s", phase, i, c.Request.ConversationID, want)
			}
			if got, want := tr.sent[i].URL, urls[picks(i, len(urls))]; got != want {
				t.Errorf("%s credit %d went to %s, want %s", phase, i, got, want)
			}
		}
	}
}

// A sampler or URL selection strategy that answers out of range stops the
// phase with an error naming it, instead of panicking a sending goroutine.
func TestRunPhaseStopsOnOutOfRangePluginIndex(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want string
	}{
		// Which of the concurrent credits meets the bad index first varies.
		{"sampler", Options{Sampler: funcSampler(func(k, _ int) int { return k })}, "the dataset_sampler plugin (--dataset-sampling-strategy) gave session 2 to credit "},
		{"negative session", Options{Sampler: funcSampler(func(int, int) int { return -1 })}, "gave session -1"},
		// Two credits run at once: whichever reaches the picker first is named.
		{"URL selection", Options{URLSelection: funcPicker(func(_, urls int) int { return urls })}, "the url_selection_strategy plugin (--url-strategy) picked URL 1 for credit "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := realTransport(t)
			opts := c.opts
			opts.URLs = []string{"http://127.0.0.1:1" + chatPath}
			e := newEngine(t, tr, prepared(t, 2, []string{"m"}, false), opts)
			var col collector
			err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 5, Concurrency: 2}, col.done)
			if err == nil || !strings.HasPrefix(err.Error(), "profiling phase: ") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want the phase stopped with %q", err, c.want)
			}
			if len(tr.sent) != 0 || len(col.got) != 0 {
				t.Errorf("%d requests sent, %d completed after the plugin failed", len(tr.sent), len(col.got))
			}
		})
	}
}
