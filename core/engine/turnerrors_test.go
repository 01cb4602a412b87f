package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/google/uuid"
)

// formatFails renders first turns but refuses any turn with a history.
type formatFails struct{ chatFixture }

func (f formatFails) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	if len(req.History) > 0 {
		return nil, errors.New("fixture: history too long")
	}
	return f.chatFixture.FormatPayload(req)
}

// parseFails cannot parse any answer unit.
type parseFails struct{ chatFixture }

func (parseFails) ParseResponse([]byte) (sdk.ParsedResponse, error) {
	return sdk.ParsedResponse{}, errors.New("fixture: unparseable unit")
}

// recordParseFails is an endpoint that parses whole records (as external
// plugins do) and fails; ParseResponse must then not be used.
type recordParseFails struct {
	chatFixture
	perUnit atomic.Int64
}

func (r *recordParseFails) ParseRecord([]sdk.Response) ([]sdk.ParsedResponse, error) {
	return nil, errors.New("fixture: unparseable record")
}

func (r *recordParseFails) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	r.perUnit.Add(1)
	return r.chatFixture.ParseResponse(data)
}

// waitServed polls the mock's success counter until it reaches want (it
// counts a request after its handler returns, a moment after the client's
// last read) and returns the final count.
func waitServed(t *testing.T, base string, want int) int {
	t.Helper()
	got := servedRequests(t, base, "vllm:request_success_total")
	for deadline := time.Now().Add(5 * time.Second); got < want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		got = servedRequests(t, base, "vllm:request_success_total")
	}
	time.Sleep(20 * time.Millisecond) // a stray extra request would land by now
	return servedRequests(t, base, "vllm:request_success_total")
}

// A later turn that cannot be rendered fails with an error record instead
// of going out without its history (or with another turn's body), and the
// session ends there. Likewise when the previous answer cannot be parsed
// for the history.
func TestLaterTurnThatCannotBeRenderedFails(t *testing.T) {
	cases := []struct {
		name     string
		ep       sdk.Endpoint
		messages []string
	}{
		{"FormatPayload fails", formatFails{}, []string{"conversation s0 turn 1: render the payload: fixture: history too long"}},
		{"answer unparseable", parseFails{}, []string{"conversation s0 turn 1: the answer of turn 0 could not be parsed for the history:",
			"response 0: fixture: unparseable unit"}},
		{"record unparseable", &recordParseFails{}, []string{"conversation s0 turn 1: the answer of turn 0 could not be parsed for the history: fixture: unparseable record"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := startMock(t, mockserver.Config{Fast: true})
			const turns = 3
			reqs := multiTurnConvs(t, chatFixture{}, 1, turns, true)
			tr := realTransport(t)
			e := newEngine(t, tr, reqs, Options{URLs: []string{base + chatPath}, Streaming: true, Endpoint: c.ep,
				Prepare: PrepareOptions{Models: []string{"m"}, Streaming: true}})
			var col collector
			if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 1, Concurrency: 1}, col.done); err != nil {
				t.Fatal(err)
			}
			// Turn 0 went out and succeeded; turn 1 is a counted failure; turn 2
			// never happens.
			if len(col.got) != 2 {
				t.Fatalf("%d records, want turn 0 and the failed turn 1", len(col.got))
			}
			ok, failed := col.got[0], col.got[1]
			if ok.Record.Error != nil || ok.Record.TurnIndex != 0 {
				t.Fatalf("first record: turn %d error %+v, want a successful turn 0", ok.Record.TurnIndex, ok.Record.Error)
			}
			rec := failed.Record
			if rec.Valid() || rec.Error.Type != ErrTypePayloadRender || rec.Error.Code != 0 {
				t.Fatalf("failed turn error %+v, want type %s", rec.Error, ErrTypePayloadRender)
			}
			for _, m := range c.messages {
				if !strings.Contains(rec.Error.Message, m) {
					t.Errorf("message %q lacks %q", rec.Error.Message, m)
				}
			}
			// The record is a full request record of the session's turn 1.
			if failed.Request != &reqs[1] || rec.ConversationID != "s0" || rec.TurnIndex != 1 || rec.Phase != sdk.PhaseProfiling ||
				rec.XCorrelationID != ok.Record.XCorrelationID || rec.XRequestID == ok.Record.XRequestID || rec.Model != "m" {
				t.Errorf("failed record does not describe turn 1 of the session: %+v", rec)
			}
			if _, err := uuid.Parse(rec.XRequestID); err != nil {
				t.Errorf("X-Request-ID %q: %v", rec.XRequestID, err)
			}
			if rec.StartPerfNs < ok.Record.EndPerfNs || rec.EndPerfNs != rec.StartPerfNs || rec.TimestampNs == 0 || len(rec.Responses) != 0 {
				t.Errorf("failed record times start %d end %d wall %d (turn 0 ended %d), %d responses",
					rec.StartPerfNs, rec.EndPerfNs, rec.TimestampNs, ok.Record.EndPerfNs, len(rec.Responses))
			}
			// Nothing was resent: the server saw turn 0 alone.
			if got := waitServed(t, base, 1); got != 1 {
				t.Errorf("mock served %d requests, want only turn 0", got)
			}
			if tr.count != 1 {
				t.Errorf("transport got %d requests, want 1", tr.count)
			}
			snap := e.Snapshot()
			if snap.Sent != 2 || snap.Completed != 2 || snap.Errors != 1 {
				t.Errorf("Snapshot = %+v, want 2 sent/completed with 1 error", snap)
			}
			if r, ok := c.ep.(*recordParseFails); ok && r.perUnit.Load() != 0 {
				t.Errorf("ParseResponse called %d times although the endpoint parses records", r.perUnit.Load())
			}
		})
	}
}

// The failed turn still takes its share of the request budget, and a
// session whose history is fine keeps going: the failure is per session.
func TestRenderFailureIsPerSession(t *testing.T) {
	base := startMock(t, mockserver.Config{Fast: true})
	// s0 has 2 turns (its turn 1 fails), s1 is single-turn.
	reqs := append(multiTurnConvs(t, chatFixture{}, 1, 2, false), multiTurnConvs(t, chatFixture{}, 1, 1, false)...)
	reqs[2].ConversationID = "s1"
	e := newEngine(t, realTransport(t), reqs, Options{URLs: []string{base + chatPath}, Endpoint: formatFails{},
		Prepare: PrepareOptions{Models: []string{"m"}}})
	var col collector
	if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: 4, Concurrency: 1}, col.done); err != nil {
		t.Fatal(err)
	}
	var failures, successes int
	for _, c := range col.got {
		if c.Record.Error != nil {
			failures++
			if c.Record.ConversationID != "s0" || c.Record.TurnIndex != 1 || c.Record.Error.Type != ErrTypePayloadRender {
				t.Errorf("unexpected failure %s turn %d: %+v", c.Record.ConversationID, c.Record.TurnIndex, c.Record.Error)
			}
		} else {
			successes++
		}
	}
	// Credits 0 and 2 run s0 (turn 0 ok, turn 1 fails); 1 and 3 run s1.
	if failures != 2 || successes != 4 {
		t.Errorf("%d failures, %d successes; want 2 and 4", failures, successes)
	}
	if got := waitServed(t, base, 4); got != 4 {
		t.Errorf("mock served %d requests, want 4", got)
	}
}
