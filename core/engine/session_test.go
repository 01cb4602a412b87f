package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// echoServer answers each chat request with one SSE content chunk naming
// the request's position, and keeps every request body.
type echoServer struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (s *echoServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	n := len(s.bodies)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"reply-%d\"}}]}\n\ndata: [DONE]\n\n", n)
}

func multiTurn(t *testing.T, delayMs float64) []PreparedRequest {
	t.Helper()
	d := delayMs
	convs := []sdk.Conversation{{SessionID: "s1", Turns: []sdk.Turn{
		{Texts: []string{"first question"}}, {Texts: []string{"second question"}, DelayMs: &d}, {Texts: []string{"third question"}, DelayMs: &d},
	}}}
	reqs, _, err := Prepare(chatFixture{}, convs, PrepareOptions{Models: []string{"m"}, Streaming: true, Tokenizer: wordTokenizer{}})
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

func TestSessionsCarryHistoryAndDelays(t *testing.T) {
	echo := &echoServer{}
	srv := httptest.NewServer(echo)
	defer srv.Close()
	reqs := multiTurn(t, 30)
	e := newEngine(t, realTransport(t), reqs, Options{URLs: []string{srv.URL}, Streaming: true, Endpoint: chatFixture{},
		Prepare: PrepareOptions{Models: []string{"m"}, Streaming: true}})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 1, Concurrency: 1}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(col.got) != 3 || len(echo.bodies) != 3 {
		t.Fatalf("%d records, %d requests; want the 3 turns of one session", len(col.got), len(echo.bodies))
	}
	// Turn 3 carries the whole conversation: user, assistant, user, assistant, user.
	msgs := echo.bodies[2]["messages"].([]any)
	want := []string{"user:first question", "assistant:reply-1", "user:second question", "assistant:reply-2", "user:third question"}
	if len(msgs) != len(want) {
		t.Fatalf("turn 3 messages = %v", msgs)
	}
	for i, m := range msgs {
		mm := m.(map[string]any)
		if got := fmt.Sprint(mm["role"], ":", mm["content"]); got != want[i] {
			t.Errorf("message %d = %q, want %q", i, got, want[i])
		}
	}
	// One session: one correlation id; turns in order, each after its delay.
	for i, c := range col.got {
		if c.Record.XCorrelationID != col.got[0].Record.XCorrelationID || c.Record.TurnIndex != i {
			t.Errorf("record %d: correlation %s turn %d", i, c.Record.XCorrelationID, c.Record.TurnIndex)
		}
		if i > 0 && c.Record.StartPerfNs-col.got[i-1].Record.EndPerfNs < int64(30*time.Millisecond) {
			t.Errorf("turn %d started %v after turn %d ended, want ≥ the 30 ms delay", i,
				time.Duration(c.Record.StartPerfNs-col.got[i-1].Record.EndPerfNs), i-1)
		}
	}
}

// historyBlind renders every turn without the conversation (like a
// completions endpoint, whose prompt has no place for history).
type historyBlind struct{ chatFixture }

func (h historyBlind) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	req.History = nil
	return h.chatFixture.FormatPayload(req)
}

// A later turn's Completed carries the history its body was rendered with,
// so the record pipeline counts the ISL of the whole conversation; the
// turn's prepared count stays its own text.
func TestCompletedCarriesTheHistorySent(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ep          sdk.Endpoint
		wantHistory [][]string // per turn, "role:text"
	}{
		{"chat", chatFixture{}, [][]string{nil, {"user:first question", "assistant:reply-1"},
			{"user:first question", "assistant:reply-1", "user:second question", "assistant:reply-2"}}},
		{"history not rendered", historyBlind{}, [][]string{nil, nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			echo := &echoServer{}
			srv := httptest.NewServer(echo)
			defer srv.Close()
			popts := PrepareOptions{Models: []string{"m"}, Streaming: true, Tokenizer: wordTokenizer{}}
			convs := []sdk.Conversation{{SessionID: "s1", Turns: []sdk.Turn{
				{Texts: []string{"first question"}}, {Texts: []string{"second question"}}, {Texts: []string{"third question"}}}}}
			reqs, _, err := Prepare(tc.ep, convs, popts)
			if err != nil {
				t.Fatal(err)
			}
			e := newEngine(t, realTransport(t), reqs, Options{URLs: []string{srv.URL}, Streaming: true, Endpoint: tc.ep, Prepare: popts})
			var col collector
			if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 1, Concurrency: 1}, col.done); err != nil {
				t.Fatal(err)
			}
			if len(col.got) != 3 {
				t.Fatalf("%d records, want 3", len(col.got))
			}
			for i, c := range col.got {
				var got []string
				for _, h := range c.History {
					got = append(got, h.Role+":"+h.Text)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.wantHistory[i]) {
					t.Errorf("turn %d history %q, want %q", i, got, tc.wantHistory[i])
				}
				if len(c.History) != cap(c.History) {
					t.Errorf("turn %d: history cap %d > len %d: a later turn could write into it", i, cap(c.History), len(c.History))
				}
				if _, n, _ := c.Request.Inputs(tc.ep, wordTokenizer{}, c.Request.Payload, true); n == nil || *n != 2 {
					t.Errorf("turn %d: prepared InputTokens %v, want its own 2 words", i, n)
				}
			}
		})
	}
}

func TestRequestBudgetStopsMidSession(t *testing.T) {
	echo := &echoServer{}
	srv := httptest.NewServer(echo)
	defer srv.Close()
	e := newEngine(t, realTransport(t), multiTurn(t, 0), Options{URLs: []string{srv.URL}, Streaming: true, Endpoint: chatFixture{}})
	e.SetPhaseOptions(PhaseOptions{RequestBudget: 2})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 1, Concurrency: 1}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(col.got) != 2 {
		t.Errorf("%d requests, want the budget of 2", len(col.got))
	}
}

func TestCancellationRateCancelsAfterSend(t *testing.T) {
	url := mocktest.Start(t, mockserver.Config{TTFT: 300 * time.Millisecond, ITL: time.Millisecond})
	reqs := prepared(t, 4, []string{"m"}, true)
	e := newEngine(t, realTransport(t), reqs, Options{URLs: []string{url + chatPath}, Streaming: true,
		PhaseOptions: PhaseOptions{CancellationRate: 100, CancellationDelay: 20 * time.Millisecond}})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 6, Concurrency: 3}, col.done); err != nil {
		t.Fatal(err)
	}
	for _, c := range col.got {
		if c.Record.Error == nil || c.Record.Error.Code != 499 || !c.Record.WasCancelled {
			t.Fatalf("record %+v: want a 499 cancellation", c.Record.Error)
		}
	}
	if len(col.got) != 6 {
		t.Errorf("%d records, want 6 (cancelled requests are recorded)", len(col.got))
	}
}

// graceStrategy sends one credit whose context ends with ErrGraceExpired.
type graceStrategy struct{ after time.Duration }

func (g graceStrategy) Run(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error {
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	time.AfterFunc(g.after, func() { cancel(sdk.ErrGraceExpired) })
	s.Send(reqCtx, sdk.Credit{Phase: plan.Phase})
	return nil
}

// A request cut off by the grace period reaches done as a typed
// cancellation that GraceCut recognises, counted apart from the completed
// and failed requests.
func TestGraceExpiryRecordsCancellation(t *testing.T) {
	url := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Second})
	e, err := New(realTransport(t), graceStrategy{after: 50 * time.Millisecond}, prepared(t, 1, []string{"m"}, true),
		withDefaults(Options{URLs: []string{url + chatPath}, Streaming: true}))
	if err != nil {
		t.Fatal(err)
	}
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling}, col.done); err != nil {
		t.Fatal(err)
	}
	if len(col.got) != 1 {
		t.Fatalf("%d records, want the 1 request cut off by the grace period", len(col.got))
	}
	rec := col.got[0].Record
	if !GraceCut(rec) || rec.Error.Code != transport.CodeCancelled || rec.Error.Type != transport.ErrTypeCancelled ||
		rec.CancellationTimeNs == 0 || rec.StartPerfNs == 0 {
		t.Errorf("record = cancelled %v at %d, error %+v; want a grace cut-off %d %s", rec.WasCancelled, rec.CancellationTimeNs,
			rec.Error, transport.CodeCancelled, transport.ErrTypeCancelled)
	}
	if n := e.GraceCutCount(); n != 1 {
		t.Errorf("GraceCutCount = %d, want 1", n)
	}
	if snap := e.Snapshot(); snap.Sent != 1 || snap.Completed != 0 || snap.Errors != 0 {
		t.Errorf("progress sent/completed/errors = %d/%d/%d, want 1/0/0", snap.Sent, snap.Completed, snap.Errors)
	}
}

func TestGraceCut(t *testing.T) {
	cut := &sdk.RequestRecord{WasCancelled: true, Error: &sdk.ErrorDetails{Code: 499, Type: transport.ErrTypeCancelled, Message: GraceCutMessage}}
	for _, tc := range []struct {
		name string
		rec  *sdk.RequestRecord
		want bool
	}{
		{"grace cut-off", cut, true},
		{"nil", nil, false},
		{"success", &sdk.RequestRecord{Status: 200}, false},
		{"Ctrl-C or --request-cancellation-rate", &sdk.RequestRecord{WasCancelled: true,
			Error: &sdk.ErrorDetails{Code: 499, Type: transport.ErrTypeCancelled, Message: "Request was cancelled after 0.050 seconds"}}, false},
		{"not flagged cancelled", &sdk.RequestRecord{Error: cut.Error}, false},
	} {
		if got := GraceCut(tc.rec); got != tc.want {
			t.Errorf("%s: GraceCut = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// firstTokenStrategy sends credits one after another with an OnFirstToken
// hook (a prefill ceiling is active) and counts the hook's calls.
type firstTokenStrategy struct{ calls atomic.Int64 }

func (f *firstTokenStrategy) Run(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error {
	for i := range plan.RequestCount {
		s.Send(ctx, sdk.Credit{Index: i, Phase: plan.Phase, ScheduledNs: 1, IssuedNs: clock.Now(), OnFirstToken: func() { f.calls.Add(1) }})
	}
	return nil
}

func TestFirstTokenHookAndScheduleCarried(t *testing.T) {
	url := mocktest.Start(t, mockserver.Config{Fast: true})
	for _, c := range []struct {
		name      string
		ep        sdk.Endpoint
		streaming bool
	}{
		{"detector", &detectingFixture{}, true},
		{"no detector: first event", chatFixture{}, true},
		{"non-streaming: at the end", &detectingFixture{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			strat := &firstTokenStrategy{}
			e, err := New(realTransport(t), strat, prepared(t, 2, []string{"m"}, c.streaming),
				withDefaults(Options{URLs: []string{url + chatPath}, Streaming: c.streaming, Endpoint: c.ep}))
			if err != nil {
				t.Fatal(err)
			}
			var col collector
			if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 4}, col.done); err != nil {
				t.Fatal(err)
			}
			if got := strat.calls.Load(); got != 4 {
				t.Errorf("OnFirstToken called %d times for 4 requests, want exactly once each", got)
			}
			for _, c := range col.got {
				if c.Record.ScheduledNs != 1 || c.Record.Error != nil {
					t.Errorf("ScheduledNs %d (want 1 carried to the record), error %+v", c.Record.ScheduledNs, c.Record.Error)
				}
			}
			if d, ok := c.ep.(*detectingFixture); ok && c.streaming && d.calls.Load() < 4 {
				t.Errorf("the endpoint's detector was asked %d times for 4 streams", d.calls.Load())
			}
		})
	}
}

// The prefill slot of a stream is released at the detector's first token,
// not at the role-only first event, and before the stream ends.
func TestFirstTokenReleasedAtTheDetectedToken(t *testing.T) {
	var released atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		if released.Load() != 0 {
			t.Error("slot released at the role-only event")
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n")
		w.(http.Flusher).Flush()
		for deadline := time.Now().Add(2 * time.Second); released.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		if released.Load() != 1 {
			t.Error("slot not released while the stream was still open")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	strat := strategyFunc(func(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error {
		s.Send(ctx, sdk.Credit{Phase: plan.Phase, OnFirstToken: func() { released.Add(1) }})
		return nil
	})
	e, err := New(realTransport(t), strat, prepared(t, 1, []string{"m"}, true),
		withDefaults(Options{URLs: []string{srv.URL}, Streaming: true, Endpoint: &detectingFixture{}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling}, func(Completed) {}); err != nil {
		t.Fatal(err)
	}
	if released.Load() != 1 {
		t.Errorf("OnFirstToken called %d times, want once", released.Load())
	}
}

type strategyFunc func(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error

func (f strategyFunc) Run(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error {
	return f(ctx, plan, s)
}

func TestRandomModelSelectionIsSeeded(t *testing.T) {
	convs := make([]sdk.Conversation, 40)
	for i := range convs {
		convs[i] = sdk.Conversation{SessionID: fmt.Sprint(i), Turns: []sdk.Turn{{Texts: []string{"hi"}}}}
	}
	models := func(seed int64, strategy string) string {
		reqs, _, err := Prepare(chatFixture{}, convs, PrepareOptions{Models: []string{"a", "b", "c"}, ModelSelection: strategy, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		for _, r := range reqs {
			b = append(b, r.Model...)
		}
		return string(b)
	}
	if rr := models(1, "round_robin"); rr[:6] != "abcabc" {
		t.Errorf("round robin = %s", rr[:6])
	}
	a, b, c := models(1, "random"), models(1, "random"), models(2, "random")
	if a != b || a == c {
		t.Errorf("random selection: same seed %v, different seed differs %v", a == b, a != c)
	}
	if !strings.Contains(a, "a") || !strings.Contains(a, "b") || !strings.Contains(a, "c") || strings.HasPrefix(a, "abcabcabc") {
		t.Errorf("random selection %s does not look random over 3 models", a)
	}
}
