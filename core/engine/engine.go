// Package engine runs phases: it turns credits from a timing strategy into
// requests on the transport and hands every finished record downstream.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/google/uuid"
)

// Completed is a finished request with the prepared request it came from.
type Completed struct {
	Record  *sdk.RequestRecord
	Request *PreparedRequest
}

// Connection reuse strategies (--connection-reuse-strategy).
const (
	ReusePooled = "pooled"
	ReuseNever  = "never"
	ReuseSticky = "sticky-user-sessions"
)

// Options configure the engine.
type Options struct {
	// URLs are full endpoint URLs, used round robin (--url-strategy).
	URLs []string
	// Headers are sent with every request (User-Agent, Content-Type, Accept,
	// Authorization, user headers). X-Request-ID and X-Correlation-ID are
	// added per request.
	Headers   map[string]string
	Streaming bool
	Timeout   time.Duration
	// Seed drives the dataset sampling order and request cancellation.
	Seed int64
	// Endpoint and Prepare re-render later turns of multi-turn sessions with
	// the conversation's history, and detect the first token for prefill
	// slots. Single-turn runs need neither.
	Endpoint sdk.Endpoint
	Prepare  PrepareOptions
	// ConnectionReuse is pooled (default), never or sticky-user-sessions.
	ConnectionReuse string
	// Sampling orders sessions: shuffle (default: without replacement,
	// reshuffled each pass), sequential (dataset order, as trace replay
	// needs) or random (with replacement).
	Sampling string
	PhaseOptions
}

// PhaseOptions are the per-phase knobs; set them with SetPhaseOptions
// before RunPhase.
type PhaseOptions struct {
	// CancellationRate is the percentage of requests cancelled
	// CancellationDelay after their body was sent.
	CancellationRate  float64
	CancellationDelay time.Duration
	// RequestBudget caps the requests of a phase across sessions (0 = no
	// cap): with multi-turn sessions a request count stops mid-session.
	RequestBudget int
	// TurnGap, when set, spaces a session's turns by this much from one
	// turn's start to the next (user-centric mode: num_users/rate), sending
	// a late turn at once; it replaces the dataset's turn delays.
	TurnGap time.Duration
}

// SetPhaseOptions changes the per-phase knobs for the next RunPhase.
func (e *Engine) SetPhaseOptions(p PhaseOptions) {
	e.opts.PhaseOptions = p
	e.cancels = newCancelPicker(p.CancellationRate, e.opts.Seed)
}

// connectionReleaser is implemented by transports that keep per-session
// connections (sticky user sessions).
type connectionReleaser interface {
	ReleaseConnection(key string)
}

// session is one conversation's prepared turns.
type session struct {
	turns []PreparedRequest
}

// Engine sends prepared sessions as credits arrive.
type Engine struct {
	transport sdk.Transport
	timing    sdk.TimingStrategy
	sessions  []session
	opts      Options

	sampler *sampler
	cancels *cancelPicker

	// progress of the current phase
	phase     atomic.Value // string
	sent      atomic.Int64
	completed atomic.Int64
	errors    atomic.Int64
	total     atomic.Int64
	startedNs atomic.Int64
	budget    atomic.Int64
}

// New builds an engine. requests (in conversation and turn order) must be
// non-empty; consecutive requests of one conversation form a session.
func New(tr sdk.Transport, timing sdk.TimingStrategy, requests []PreparedRequest, opts Options) (*Engine, error) {
	if len(requests) == 0 {
		return nil, fmt.Errorf("engine: no requests to send")
	}
	if len(opts.URLs) == 0 {
		return nil, fmt.Errorf("engine: no URL to send to")
	}
	// Sessions are sub-slices of requests, so a Completed points at the
	// caller's prepared request.
	var sessions []session
	start := 0
	for i := 1; i <= len(requests); i++ {
		if i == len(requests) || requests[i].ConversationID != requests[i-1].ConversationID || requests[i].TurnIndex == 0 {
			sessions = append(sessions, session{turns: requests[start:i:i]})
			start = i
		}
	}
	e := &Engine{transport: tr, timing: timing, sessions: sessions, opts: opts,
		sampler: newSampler(opts.Sampling, len(sessions), opts.Seed),
		cancels: newCancelPicker(opts.CancellationRate, opts.Seed)}
	e.phase.Store("")
	return e, nil
}

// RunPhase runs one phase to its stop condition (or ctx cancellation) and
// calls done for every finished request, from the sending goroutine. It
// returns after every request it started has finished. Requests cut off by
// the end of a grace period are cancelled and not passed to done.
func (e *Engine) RunPhase(ctx context.Context, plan sdk.PhasePlan, done func(Completed)) error {
	return e.RunPhaseWith(ctx, e.timing, plan, done)
}

// RunPhaseWith is RunPhase with another timing strategy (a warmup phase may
// use another mode than profiling). Each phase samples the dataset afresh.
func (e *Engine) RunPhaseWith(ctx context.Context, timing sdk.TimingStrategy, plan sdk.PhasePlan, done func(Completed)) error {
	if timing == nil {
		return fmt.Errorf("%s phase: no timing strategy", plan.Phase)
	}
	e.sampler = newSampler(e.opts.Sampling, len(e.sessions), e.opts.Seed)
	e.phase.Store(plan.Phase)
	e.sent.Store(0)
	e.completed.Store(0)
	e.errors.Store(0)
	e.total.Store(int64(plan.RequestCount))
	e.startedNs.Store(clock.Now())
	e.budget.Store(int64(e.opts.RequestBudget))
	s := &sender{e: e, plan: plan, done: done}
	if err := timing.Run(ctx, plan, s); err != nil {
		return fmt.Errorf("%s phase: %w", plan.Phase, err)
	}
	return nil
}

// Snapshot implements sdk.ProgressSource.
func (e *Engine) Snapshot() sdk.ProgressSnapshot {
	return sdk.ProgressSnapshot{
		Phase:     e.phase.Load().(string),
		Sent:      e.sent.Load(),
		Completed: e.completed.Load(),
		Errors:    e.errors.Load(),
		Total:     e.total.Load(),
		Elapsed:   time.Duration(clock.Now() - e.startedNs.Load()),
	}
}

type sender struct {
	e    *Engine
	plan sdk.PhasePlan
	done func(Completed)
}

// Send implements sdk.CreditSender: it runs one session, turn after turn,
// each later turn after its delay and with the conversation so far.
func (s *sender) Send(ctx context.Context, c sdk.Credit) {
	e := s.e
	// The credit's index picks the session, so credit i gets dataset entry i
	// of the sampling order whatever order the sending goroutines run in
	// (trace replay pairs each schedule offset with its entry).
	sess := &e.sessions[e.sampler.at(c.Index)]
	correlationID := uuid.NewString()
	if r, ok := e.transport.(connectionReleaser); ok && e.opts.ConnectionReuse == ReuseSticky {
		defer r.ReleaseConnection(correlationID) // however the session ends
	}
	firstToken := onceFunc(c.OnFirstToken)
	defer firstToken() // a session that ends without a token still frees its slot
	var history []sdk.HistoryEntry
	var lastStart int64
	for ti := range sess.turns {
		req := &sess.turns[ti]
		if !e.takeBudget() {
			return
		}
		if ti > 0 && !e.waitTurn(ctx, req, lastStart) {
			return
		}
		payload := req.Payload
		if ti > 0 && e.opts.Endpoint != nil {
			body, err := e.opts.Endpoint.FormatPayload(e.opts.Prepare.RequestInfo(req.Model, req.Turn, history))
			if err == nil {
				payload = body
			}
		}
		var onFirst func()
		if ti == 0 {
			onFirst = firstToken
		}
		rec := s.sendTurn(ctx, c, req, payload, correlationID, ti == len(sess.turns)-1, onFirst)
		if rec == nil {
			return // cut off by the grace period: excluded
		}
		lastStart = rec.StartPerfNs
		s.done(Completed{Record: rec, Request: req})
		if !rec.Valid() || ctx.Err() != nil {
			return // a failed turn ends the session: its history is unknown
		}
		if len(sess.turns) > 1 {
			history = append(history, sdk.HistoryEntry{Role: roleOf(req.Turn), Text: req.InputText},
				sdk.HistoryEntry{Role: "assistant", Text: e.answerText(rec)})
		}
	}
}

// sendTurn sends one request; it returns nil when the request was cancelled
// because the phase's grace period ended (such requests are excluded).
func (s *sender) sendTurn(ctx context.Context, c sdk.Credit, req *PreparedRequest, payload []byte, correlationID string, last bool, onFirst func()) *sdk.RequestRecord {
	e := s.e
	requestID := uuid.NewString()
	headers := make(map[string]string, len(e.opts.Headers)+2)
	for k, v := range e.opts.Headers {
		// The record's IDs must be the ones sent: drop any caller spelling of them.
		if strings.EqualFold(k, "X-Request-ID") || strings.EqualFold(k, "X-Correlation-ID") {
			continue
		}
		headers[k] = v
	}
	headers["X-Request-ID"] = requestID
	headers["X-Correlation-ID"] = correlationID
	rec := &sdk.RequestRecord{
		ConversationID:        req.ConversationID,
		TurnIndex:             req.TurnIndex,
		SessionNum:            c.Index,
		XRequestID:            requestID,
		XCorrelationID:        correlationID,
		Model:                 req.Model,
		Phase:                 c.Phase,
		WorkerID:              "worker_0",
		CreditIssuedNs:        c.IssuedNs,
		Streaming:             e.opts.Streaming,
		RequestedOutputTokens: req.MaxTokens,
	}
	if req.TurnIndex == 0 {
		rec.ScheduledNs = c.ScheduledNs
	}
	e.sent.Add(1)
	treq := &sdk.TransportRequest{
		// Round robin by session: every turn of a session goes to one server.
		URL: e.opts.URLs[c.Index%len(e.opts.URLs)], Headers: headers, Body: payload,
		Streaming: e.opts.Streaming, Timeout: e.opts.Timeout,
	}
	switch e.opts.ConnectionReuse {
	case ReuseNever:
		treq.CloseConnection = true
	case ReuseSticky:
		treq.ConnectionKey, treq.CloseConnection = correlationID, last
	}
	if e.cancels.pick() {
		treq.CancelAfterSent, treq.CancelAtSend = e.opts.CancellationDelay, e.opts.CancellationDelay <= 0
	}
	if _, external := e.opts.Endpoint.(sdk.RecordParser); onFirst != nil && external {
		// No plugin call may sit inside the timed window: with an external
		// endpoint the first event of the stream stands for the first token.
		treq.OnEvent = func([]byte) bool { onFirst(); return true }
	} else if onFirst != nil && e.opts.Endpoint != nil {
		ep := e.opts.Endpoint
		treq.OnEvent = func(data []byte) bool {
			if p, err := ep.ParseResponse(data); err == nil && p.HasContent() {
				onFirst()
				return true
			}
			return false
		}
	}
	e.transport.Send(ctx, treq, rec)
	if rec.WasCancelled && errors.Is(context.Cause(ctx), sdk.ErrGraceExpired) {
		return nil
	}
	if rec.Error != nil {
		e.errors.Add(1)
	}
	e.completed.Add(1)
	return rec
}

// waitTurn waits before a later turn of a session: until the previous
// turn's start plus TurnGap in user-centric mode, else the turn's delay
// after the previous turn ended. It reports false when ctx ended first.
func (e *Engine) waitTurn(ctx context.Context, req *PreparedRequest, prevStart int64) bool {
	if gap := e.opts.TurnGap; gap > 0 {
		wait := time.Duration(prevStart + int64(gap) - clock.Now())
		return wait <= 0 || sleepCtx(ctx, wait)
	}
	if req.Turn.DelayMs != nil && *req.Turn.DelayMs > 0 {
		return sleepCtx(ctx, time.Duration(*req.Turn.DelayMs*float64(time.Millisecond)))
	}
	return true
}

// takeBudget reserves one request of the phase's request budget.
func (e *Engine) takeBudget() bool {
	if e.opts.RequestBudget <= 0 {
		return true
	}
	return e.budget.Add(-1) >= 0
}

// answerText is the assistant's reply of a finished turn, for the history
// of the next one.
func (e *Engine) answerText(rec *sdk.RequestRecord) string {
	if e.opts.Endpoint == nil {
		return ""
	}
	var b strings.Builder
	if rp, ok := e.opts.Endpoint.(sdk.RecordParser); ok {
		parsed, _ := rp.ParseRecord(rec.Responses)
		for _, p := range parsed {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	for _, r := range rec.Responses {
		if p, err := e.opts.Endpoint.ParseResponse(r.Data); err == nil {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func roleOf(t sdk.Turn) string {
	if t.Role != "" {
		return t.Role
	}
	return "user"
}

// sleepCtx sleeps for d unless ctx ends first; it reports whether it slept.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// onceFunc wraps f (which may be nil) so it runs at most once.
func onceFunc(f func()) func() {
	if f == nil {
		return func() {}
	}
	return sync.OnceFunc(f)
}

// cancelPicker decides which requests --request-cancellation-rate cancels,
// from a seeded source so a run is reproducible.
type cancelPicker struct {
	mu   sync.Mutex
	rate float64
	rng  *rand.Rand
}

func newCancelPicker(ratePct float64, seed int64) *cancelPicker {
	return &cancelPicker{rate: ratePct / 100, rng: rand.New(rand.NewPCG(uint64(seed), 0xca5ce1))}
}

func (p *cancelPicker) pick() bool {
	if p.rate <= 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.Float64() < p.rate
}

// Dataset sampling strategies (--dataset-sampling-strategy).
const (
	SampleShuffle    = "shuffle"
	SampleSequential = "sequential"
	SampleRandom     = "random"
)

// sampler maps a credit index to a dataset session, reproducibly for a
// seed. shuffle (AIPerf's default for synthetic data) walks a seeded
// permutation without replacement and uses a new one each pass; sequential
// keeps dataset order (trace replay); random draws with replacement.
type sampler struct {
	mode string
	n    int
	seed int64

	mu     sync.Mutex
	passes map[int][]int // shuffle permutations by pass, recent ones only
}

func newSampler(mode string, n int, seed int64) *sampler {
	return &sampler{mode: mode, n: n, seed: seed, passes: map[int][]int{}}
}

// at returns the session for credit index i.
func (s *sampler) at(i int) int {
	switch s.mode {
	case SampleSequential:
		return i % s.n
	case SampleRandom:
		return rand.New(rand.NewPCG(uint64(s.seed), uint64(i)^0x7a6e)).IntN(s.n)
	}
	pass, pos := i/s.n, i%s.n
	s.mu.Lock()
	defer s.mu.Unlock()
	perm, ok := s.passes[pass]
	if !ok {
		perm = make([]int, s.n)
		for j := range perm {
			perm[j] = j
		}
		rng := rand.New(rand.NewPCG(uint64(s.seed), uint64(pass)^0x5eed))
		rng.Shuffle(s.n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		s.passes[pass] = perm
		// Credits of a pass arrive roughly in order: older passes are done.
		delete(s.passes, pass-3)
	}
	return perm[pos]
}
