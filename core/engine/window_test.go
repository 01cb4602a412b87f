package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// windowGuard notes every plugin call and which of them ran while a
// request was between transport.Send's start and its return.
type windowGuard struct {
	inFlight atomic.Int64
	mu       sync.Mutex
	calls    map[string]int
	during   []string
	onEvent  map[[2]int]bool // (credit, turn) → the request had an OnEvent hook
}

func newWindowGuard() *windowGuard {
	return &windowGuard{calls: map[string]int{}, onEvent: map[[2]int]bool{}}
}

func (g *windowGuard) note(call string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls[call]++
	if g.inFlight.Load() > 0 {
		g.during = append(g.during, call)
	}
}

type guardedTransport struct {
	sdk.Transport
	g *windowGuard
}

func (t guardedTransport) Send(ctx context.Context, req *sdk.TransportRequest, rec *sdk.RequestRecord) {
	t.g.mu.Lock()
	t.g.onEvent[[2]int{rec.SessionNum, rec.TurnIndex}] = req.OnEvent != nil
	t.g.mu.Unlock()
	t.g.inFlight.Add(1)
	defer t.g.inFlight.Add(-1)
	t.Transport.Send(ctx, req, rec)
}

type guardedEndpoint struct {
	chatFixture
	g *windowGuard
}

func (e guardedEndpoint) Metadata() sdk.EndpointMetadata {
	e.g.note("Metadata")
	return e.chatFixture.Metadata()
}

func (e guardedEndpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	e.g.note("FormatPayload")
	return e.chatFixture.FormatPayload(req)
}

func (e guardedEndpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	e.g.note("ParseResponse")
	return e.chatFixture.ParseResponse(data)
}

// guardedDetector adds the one call the timed window allows.
type guardedDetector struct{ guardedEndpoint }

func (e guardedDetector) IsFirstToken(data []byte) bool {
	e.g.note("IsFirstToken")
	p, err := e.chatFixture.ParseResponse(data)
	return err == nil && p.HasContent()
}

type guardedSampler struct{ g *windowGuard }

func (s guardedSampler) Order(n int, _ int64) func(int) int {
	s.g.note("Order")
	return func(credit int) int { s.g.note("Order()"); return credit % n }
}

type guardedPicker struct{ g *windowGuard }

func (p guardedPicker) Pick(credit, urls int) int { p.g.note("Pick"); return credit % urls }

// multiTurnConvs is n conversations of turns turns each, short answers.
func multiTurnConvs(t *testing.T, ep sdk.Endpoint, n, turns int, streaming bool) []PreparedRequest {
	t.Helper()
	convs := make([]sdk.Conversation, n)
	for i := range convs {
		convs[i].SessionID = fmt.Sprintf("s%d", i)
		for ti := range turns {
			convs[i].Turns = append(convs[i].Turns, sdk.Turn{Texts: []string{fmt.Sprintf("question %d of session %d", ti, i)}, MaxTokens: intp(3)})
		}
	}
	reqs, _, err := Prepare(ep, convs, PrepareOptions{Models: []string{"m"}, Streaming: streaming,
		ExtraInputs: map[string]any{"ignore_eos": true}})
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// No plugin runs between a request's send and its last byte: not the
// endpoint's ParseResponse (the first-token hook used to call it on every
// event), not FormatPayload, the sampler or the URL strategy. Only an
// endpoint's FirstTokenDetector may, and only for a request holding a
// prefill slot; without a slot the request has no OnEvent hook at all.
func TestNoPluginCallInsideTheTimedWindow(t *testing.T) {
	base := startMock(t, mockserver.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	const convs, turns = 2, 3
	for _, c := range []struct {
		name     string
		detector bool
		prefill  bool
	}{
		{"prefill slot, endpoint with detector", true, true},
		{"prefill slot, endpoint without detector", false, true},
		{"no prefill slot", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newWindowGuard()
			var ep sdk.Endpoint = guardedEndpoint{g: g}
			if c.detector {
				ep = guardedDetector{guardedEndpoint{g: g}}
			}
			reqs := multiTurnConvs(t, chatFixture{}, convs, turns, true)
			var strat sdk.TimingStrategy = closedLoop{}
			first := &firstTokenStrategy{}
			if c.prefill {
				strat = first
			}
			e, err := New(guardedTransport{Transport: realTransport(t), g: g}, strat, reqs, Options{
				URLs: []string{base + chatPath}, Streaming: true, Endpoint: ep, Prepare: PrepareOptions{Models: []string{"m"}, Streaming: true},
				Sampler: guardedSampler{g}, URLSelection: guardedPicker{g}})
			if err != nil {
				t.Fatal(err)
			}
			var col collector
			// One session at a time, so "in flight" is this session's request.
			if err := e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: convs, Concurrency: 1}, col.done); err != nil {
				t.Fatal(err)
			}
			if len(col.got) != convs*turns {
				t.Fatalf("%d records, want %d", len(col.got), convs*turns)
			}
			for _, x := range col.got {
				if x.Record.Error != nil {
					t.Fatalf("turn %d failed: %+v", x.Record.TurnIndex, x.Record.Error)
				}
			}
			allowed := []string{}
			if c.detector && c.prefill {
				allowed = []string{"IsFirstToken"}
			}
			for _, call := range g.during {
				if !slices.Contains(allowed, call) {
					t.Errorf("%s ran while a request was in flight (calls inside the window: %v)", call, g.during)
					break
				}
			}
			// The guard saw the calls that do happen, outside the window:
			// later turns rendered, earlier answers parsed for the history.
			if g.calls["FormatPayload"] != convs*(turns-1) || g.calls["ParseResponse"] == 0 || g.calls["Pick"] != convs {
				t.Errorf("plugin calls %v: want %d FormatPayload, some ParseResponse, %d Pick", g.calls, convs*(turns-1), convs)
			}
			if c.detector && c.prefill && g.calls["IsFirstToken"] == 0 {
				t.Error("the endpoint's detector was never asked")
			}
			if !c.prefill && g.calls["IsFirstToken"] != 0 {
				t.Errorf("IsFirstToken called %d times without a prefill slot", g.calls["IsFirstToken"])
			}
			// The hook exists only for the first turn of a credit holding a slot.
			for key, has := range g.onEvent {
				if want := c.prefill && key[1] == 0; has != want {
					t.Errorf("credit %d turn %d: OnEvent set %v, want %v", key[0], key[1], has, want)
				}
			}
			if c.prefill && first.calls.Load() != convs {
				t.Errorf("OnFirstToken called %d times for %d credits", first.calls.Load(), convs)
			}
		})
	}
}
