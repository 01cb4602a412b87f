// Package engine runs phases: it turns credits from a timing strategy into
// requests on the transport and hands every finished record downstream.
package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/google/uuid"
)

// Completed is a finished request with the prepared request it came from.
type Completed struct {
	Record  *sdk.RequestRecord
	Request *PreparedRequest
	// History is the conversation before this turn as the request carried
	// it: earlier user turns and the assistant's answers, in order. It is
	// set only for a later turn of a session whose payload the endpoint
	// re-rendered with that history (the body differs from the history-free
	// one prepared ahead). Nil otherwise: first turns, single-turn
	// requests, and endpoints that do not send history (completions). The
	// record pipeline counts the ISL from the body sent either way
	// (PreparedRequest.Inputs), off the timed path.
	// Read-only: the slice is shared with the session.
	History []sdk.HistoryEntry
}

// Connection reuse strategies (--connection-reuse-strategy).
const (
	ReusePooled = "pooled"
	ReuseNever  = "never"
	ReuseSticky = "sticky-user-sessions"
)

// ErrTypePayloadRender is the error type of a later turn that could not be
// rendered: its FormatPayload failed, or the previous turn's answer could
// not be parsed for the history.
const ErrTypePayloadRender = "PayloadRenderError"

// Options configure the engine.
type Options struct {
	// URLs are full endpoint URLs; URLSelection picks one per session.
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
	// the conversation's history (required when a session has several
	// turns), and Endpoint detects the first token for prefill slots when
	// it implements sdk.FirstTokenDetector. Single-turn runs need neither.
	Endpoint sdk.Endpoint
	Prepare  PrepareOptions
	// ConnectionReuse is pooled (default), never or sticky-user-sessions.
	ConnectionReuse string
	// VideoPollInterval spaces the polls of a job API (an endpoint with
	// RequiresPolling); 0 means 100ms, AIPerf's
	// AIPERF_HTTP_VIDEO_POLL_INTERVAL default.
	VideoPollInterval time.Duration
	// DownloadVideoContent fetches a finished job's video
	// (--download-video-content); it is not timed into the request.
	DownloadVideoContent bool
	// Sampler orders the sessions of each phase (dataset_sampler plugin).
	Sampler sdk.DatasetSampler
	// URLSelection picks the URL of each session (url_selection_strategy
	// plugin).
	URLSelection sdk.URLSelectionStrategy
	// Plugins supplies the plugins the run selected for the categories the
	// engine uses (dataset_sampler, url_selection_strategy) when the fields
	// above are nil: the engine asks for what it needs, so the app wires
	// none of them by hand.
	Plugins PluginSource
	PhaseOptions
}

// PluginSource builds the plugin a run selected for a category (core/app's
// Host, which applies the plugin lifecycle).
type PluginSource interface {
	Selected(ctx context.Context, c sdk.Category) (any, error)
}

// selected fills *dst from src when it is nil.
func selected[T any](dst *T, src PluginSource, c sdk.CategoryOf[T]) error {
	if any(*dst) != nil || src == nil {
		return nil
	}
	// Building a plugin is quick and happens before the first phase; the
	// run's cancellation applies from the phases on.
	v, err := src.Selected(context.Background(), c.Category)
	if err != nil {
		return err
	}
	*dst = v.(T) // Selected checked the category's interface
	return nil
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
	// Stripe is this process's part of a sharded run (zero: all of it).
	Stripe Stripe
	// TurnGap, when set, spaces a session's turns by this much from one
	// turn's start to the next (user-centric mode: num_users/rate), sending
	// a late turn at once; it replaces the dataset's turn delays.
	TurnGap time.Duration
}

// Stripe is the part of a phase's credits a shard sends (core/app/shard.go).
// Count <= 1 means every credit.
type Stripe struct {
	Index, Count int
	// Renumber (closed loop): the strategy issues this shard's own credits
	// 0, 1, 2…; credit k is credit k·Count+Index of the whole run. Without
	// it (open loop) the strategy issues every credit of the run and the
	// shard sends those with index ≡ Index (mod Count), skipping the rest.
	Renumber bool
}

// Sharded reports whether the stripe is a proper part of the run.
func (s Stripe) Sharded() bool { return s.Count > 1 }

// Global maps a credit index of the strategy to the run's numbering, and
// says whether this shard sends it.
func (s Stripe) Global(index int) (int, bool) {
	switch {
	case !s.Sharded():
		return index, true
	case s.Renumber:
		return index*s.Count + s.Index, true
	}
	return index, index%s.Count == s.Index
}

// own is how many of n credits the strategy issues this shard sends.
func (s Stripe) own(n int) int {
	if !s.Sharded() || s.Renumber || n <= 0 {
		return n
	}
	return (n - s.Index + s.Count - 1) / s.Count
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

	cancels *cancelPicker
	// shape is how the endpoint's requests go out (form data, a job).
	shape requestShape

	// progress of the current phase
	phase     atomic.Value // string
	sent      atomic.Int64
	completed atomic.Int64
	errors    atomic.Int64
	total     atomic.Int64
	duration  atomic.Int64
	startedNs atomic.Int64
	budget    atomic.Int64
	graceCut  atomic.Int64 // requests cut off by a grace period, every phase

	// finished holds the final progress of every phase that ended, in
	// order: a UI polling at its refresh misses a phase's last requests.
	finishedMu sync.Mutex
	finished   []sdk.ProgressSnapshot
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
	if err := selected(&opts.Sampler, opts.Plugins, sdk.DatasetSamplers); err != nil {
		return nil, fmt.Errorf("--dataset-sampling-strategy: %w", err)
	}
	if err := selected(&opts.URLSelection, opts.Plugins, sdk.URLSelectionStrategies); err != nil {
		return nil, fmt.Errorf("--url-strategy: %w", err)
	}
	if opts.Sampler == nil {
		return nil, fmt.Errorf("engine: no dataset sampler (Options.Sampler) to order the sessions")
	}
	if opts.URLSelection == nil {
		return nil, fmt.Errorf("engine: no URL selection strategy (Options.URLSelection)")
	}
	// Sessions are sub-slices of requests, so a Completed points at the
	// caller's prepared request.
	var sessions []session
	start := 0
	for i := 1; i <= len(requests); i++ {
		if i == len(requests) || requests[i].ConversationID != requests[i-1].ConversationID || requests[i].TurnIndex == 0 {
			sessions = append(sessions, session{turns: requests[start:i:i]})
			if i-start > 1 && opts.Endpoint == nil {
				return nil, fmt.Errorf("engine: conversation %s has %d turns but no endpoint (Options.Endpoint) renders later turns with their history",
					requests[start].ConversationID, i-start)
			}
			start = i
		}
	}
	e := &Engine{transport: tr, timing: timing, sessions: sessions, opts: opts,
		cancels: newCancelPicker(opts.CancellationRate, opts.Seed), shape: newRequestShape(opts)}
	e.phase.Store("")
	return e, nil
}

// RunPhase runs one phase to its stop condition (or ctx cancellation) and
// calls done for every finished request, from the sending goroutine. It
// returns after every request it started has finished. Requests cut off by
// the end of a grace period are cancelled and passed to done as
// cancellation records that GraceCut recognises (docs/METRICS.md).
func (e *Engine) RunPhase(ctx context.Context, plan sdk.PhasePlan, done func(Completed)) error {
	return e.RunPhaseWith(ctx, e.timing, plan, done)
}

// RunPhaseWith is RunPhase with another timing strategy (a warmup phase may
// use another mode than profiling). Each phase samples the dataset afresh.
// A sampler or URL selection strategy that returns an index out of range
// stops the phase with an error.
func (e *Engine) RunPhaseWith(ctx context.Context, timing sdk.TimingStrategy, plan sdk.PhasePlan, done func(Completed)) error {
	if timing == nil {
		return fmt.Errorf("%s phase: no timing strategy", plan.Phase)
	}
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	s := &sender{e: e, plan: plan, done: done, abort: abort,
		order: e.opts.Sampler.Order(len(e.sessions), e.opts.Seed)}
	e.phase.Store(plan.Phase)
	e.sent.Store(0)
	e.completed.Store(0)
	e.errors.Store(0)
	e.total.Store(int64(e.opts.Stripe.own(plan.RequestCount)))
	e.duration.Store(int64(plan.Duration))
	e.startedNs.Store(clock.Now())
	e.budget.Store(int64(e.opts.RequestBudget))
	err := timing.Run(ctx, plan, s)
	final := e.Snapshot()
	e.finishedMu.Lock()
	e.finished = append(e.finished, final)
	e.finishedMu.Unlock()
	if perr := s.pluginErr.Load(); perr != nil {
		return fmt.Errorf("%s phase: %w", plan.Phase, *perr)
	}
	if err != nil {
		return fmt.Errorf("%s phase: %w", plan.Phase, err)
	}
	return nil
}

// GraceCutMessage is the error message of a request cut off by the end of
// a grace period: AIPerf's message for a request cancelled from outside.
const GraceCutMessage = "Request cancelled by external signal"

// GraceCut reports whether rec is a request the engine cut off at the end
// of a grace period. Such records are written to the per-record exports but
// left out of the metrics, as AIPerf leaves them out of its results.
func GraceCut(rec *sdk.RequestRecord) bool {
	return rec != nil && rec.WasCancelled && rec.Error != nil &&
		rec.Error.Type == transport.ErrTypeCancelled && rec.Error.Message == GraceCutMessage
}

// GraceCutCount is how many requests grace periods cut off, every phase.
func (e *Engine) GraceCutCount() int64 { return e.graceCut.Load() }

// Snapshot implements sdk.ProgressSource.
func (e *Engine) Snapshot() sdk.ProgressSnapshot {
	return sdk.ProgressSnapshot{
		Phase:     e.phase.Load().(string),
		Sent:      e.sent.Load(),
		Completed: e.completed.Load(),
		Errors:    e.errors.Load(),
		Total:     e.total.Load(),
		Duration:  time.Duration(e.duration.Load()),
		Elapsed:   time.Duration(clock.Now() - e.startedNs.Load()),
	}
}

// Finished returns the final progress of every phase that ended, in order.
func (e *Engine) Finished() []sdk.ProgressSnapshot {
	e.finishedMu.Lock()
	defer e.finishedMu.Unlock()
	return append([]sdk.ProgressSnapshot(nil), e.finished...)
}

type sender struct {
	e     *Engine
	plan  sdk.PhasePlan
	done  func(Completed)
	order func(credit int) int // this phase's dataset order

	abort     context.CancelCauseFunc
	pluginErr atomic.Pointer[error]
}

// fail stops the phase because a plugin broke its contract.
func (s *sender) fail(err error) {
	if s.pluginErr.CompareAndSwap(nil, &err) {
		s.abort(err)
	}
}

// Send implements sdk.CreditSender: it runs one session, turn after turn,
// each later turn after its delay and with the conversation so far.
func (s *sender) Send(ctx context.Context, c sdk.Credit) {
	e := s.e
	// A sharded run: the credit's index in the whole run, or another
	// shard's credit (sent there at this same instant).
	index, mine := e.opts.Stripe.Global(c.Index)
	if !mine {
		if c.OnFirstToken != nil {
			c.OnFirstToken()
		}
		return
	}
	c.Index = index
	firstToken := onceFunc(c.OnFirstToken)
	defer firstToken() // a session that ends without a token still frees its slot
	// The credit's index picks the session, so credit i gets dataset entry i
	// of the sampling order whatever order the sending goroutines run in
	// (trace replay pairs each schedule offset with its entry).
	si := s.order(c.Index)
	if si < 0 || si >= len(e.sessions) {
		s.fail(fmt.Errorf("the dataset_sampler plugin (--dataset-sampling-strategy) gave session %d to credit %d; want 0..%d", si, c.Index, len(e.sessions)-1))
		return
	}
	sess := &e.sessions[si]
	// Every turn of a session goes to one server.
	ui := e.opts.URLSelection.Pick(c.Index, len(e.opts.URLs))
	if ui < 0 || ui >= len(e.opts.URLs) {
		s.fail(fmt.Errorf("the url_selection_strategy plugin (--url-strategy) picked URL %d for credit %d; want 0..%d", ui, c.Index, len(e.opts.URLs)-1))
		return
	}
	url := e.opts.URLs[ui]
	correlationID := uuid.NewString()
	if r, ok := e.transport.(connectionReleaser); ok && e.opts.ConnectionReuse == ReuseSticky {
		defer r.ReleaseConnection(correlationID) // however the session ends
	}
	var history []sdk.HistoryEntry
	var historyErr error // the previous answer could not be parsed
	var lastStart int64
	for ti := range sess.turns {
		req := &sess.turns[ti]
		if !e.takeBudget() {
			return
		}
		if historyErr != nil {
			s.failTurn(c, req, correlationID, historyErr)
			return
		}
		if ti > 0 && !e.waitTurn(ctx, req, lastStart) {
			return
		}
		payload := req.Payload
		if ti > 0 && !req.SelfContained() {
			// New guarantees an endpoint for multi-turn sessions.
			body, err := e.opts.Prepare.Render(e.opts.Endpoint, req, history)
			if err != nil {
				s.failTurn(c, req, correlationID, fmt.Errorf("render the payload: %w", err))
				return
			}
			payload = body
		}
		var onFirst func()
		if ti == 0 && c.OnFirstToken != nil {
			onFirst = firstToken
		}
		rec := s.sendTurn(ctx, c, req, url, payload, correlationID, ti == len(sess.turns)-1, onFirst)
		if ti == 0 {
			firstToken() // the first request ended: a slot still held has no token to wait for
		}
		lastStart = rec.StartPerfNs
		done := Completed{Record: rec, Request: req}
		if ti > 0 && !bytes.Equal(payload, req.Payload) {
			// The history went into the body: the ISL counts it. Compared
			// after the last byte; the cap keeps later appends off it.
			done.History = history[:len(history):len(history)]
		}
		s.done(done)
		if !rec.Valid() || ctx.Err() != nil {
			return // a failed turn ends the session: its history is unknown
		}
		if ti < len(sess.turns)-1 && !sess.turns[ti+1].SelfContained() {
			answer, err := e.answerText(rec)
			if err != nil {
				historyErr = fmt.Errorf("the answer of turn %d could not be parsed for the history: %w", ti, err)
				continue
			}
			history = append(history, sdk.HistoryEntry{Role: roleOf(*req.TurnInfo()), Text: historyText(req)},
				sdk.HistoryEntry{Role: "assistant", Text: answer})
		}
	}
}

// newRecord starts the record of one request of the session.
func (s *sender) newRecord(c sdk.Credit, req *PreparedRequest, correlationID string) *sdk.RequestRecord {
	rec := &sdk.RequestRecord{
		ConversationID:        req.ConversationID,
		TurnIndex:             req.TurnIndex,
		SessionNum:            c.Index,
		XRequestID:            uuid.NewString(),
		XCorrelationID:        correlationID,
		Model:                 req.Model,
		Phase:                 c.Phase,
		WorkerID:              "worker_0",
		CreditIssuedNs:        c.IssuedNs,
		Streaming:             s.e.opts.Streaming,
		RequestedOutputTokens: req.MaxTokens,
	}
	if req.TurnIndex == 0 {
		rec.ScheduledNs = c.ScheduledNs
	}
	return rec
}

// failTurn records a turn that could not be sent. It is counted and passed
// to done like a request the transport failed before the wire, so it shows
// in the error summary and the exports; the session ends with it.
func (s *sender) failTurn(c sdk.Credit, req *PreparedRequest, correlationID string, cause error) {
	e := s.e
	rec := s.newRecord(c, req, correlationID)
	now := clock.Now()
	rec.StartPerfNs, rec.TimestampNs, rec.EndPerfNs = now, clock.WallNs(now), now
	rec.Error = &sdk.ErrorDetails{Type: ErrTypePayloadRender,
		Message: fmt.Sprintf("conversation %s turn %d: %v", req.ConversationID, req.TurnIndex, cause)}
	e.sent.Add(1)
	e.errors.Add(1)
	e.completed.Add(1)
	s.done(Completed{Record: rec, Request: req})
}

// sendTurn sends one request. A request cancelled because the phase's grace
// period ended comes back as a GraceCut record, counted apart from the
// completed and failed ones.
// Between transport.Send's start and its return no plugin runs except the
// endpoint's FirstTokenDetector, and only when onFirst is set.
func (s *sender) sendTurn(ctx context.Context, c sdk.Credit, req *PreparedRequest, url string, payload []byte, correlationID string, last bool, onFirst func()) *sdk.RequestRecord {
	e := s.e
	rec := s.newRecord(c, req, correlationID)
	headers := make(map[string]string, len(e.opts.Headers)+2)
	for k, v := range e.opts.Headers {
		// The record's IDs must be the ones sent: drop any caller spelling of them.
		if strings.EqualFold(k, "X-Request-ID") || strings.EqualFold(k, "X-Correlation-ID") {
			continue
		}
		headers[k] = v
	}
	headers["X-Request-ID"] = rec.XRequestID
	headers["X-Correlation-ID"] = correlationID
	// What was sent, for the raw export (two pointers: free at other levels).
	rec.RequestHeaders, rec.RequestBody = headers, payload
	e.sent.Add(1)
	treq := &sdk.TransportRequest{
		URL: url, Headers: headers, Body: payload,
		Streaming: e.opts.Streaming, Timeout: e.opts.Timeout,
	}
	e.shape.apply(treq)
	switch e.opts.ConnectionReuse {
	case ReuseNever:
		treq.CloseConnection = true
	case ReuseSticky:
		treq.ConnectionKey, treq.CloseConnection = correlationID, last
	}
	if e.cancels.pick(c.Index, req.TurnIndex) {
		treq.CancelAfterSent, treq.CancelAtSend = e.opts.CancellationDelay, e.opts.CancellationDelay <= 0
	}
	if onFirst != nil {
		treq.OnEvent = firstTokenHook(e.opts.Endpoint, onFirst)
	}
	e.transport.Send(ctx, treq, rec)
	if rec.WasCancelled && errors.Is(context.Cause(ctx), sdk.ErrGraceExpired) {
		// AIPerf's transport records such a request with this type, code and
		// message (its records never reach the results; ours reach only the
		// per-record exports).
		rec.Error = &sdk.ErrorDetails{Code: transport.CodeCancelled, Type: transport.ErrTypeCancelled, Message: GraceCutMessage}
		e.graceCut.Add(1)
		return rec
	}
	if rec.Error != nil {
		e.errors.Add(1)
	}
	e.completed.Add(1)
	return rec
}

// firstTokenHook releases a prefill slot from the transport's OnEvent: at
// the first event the endpoint's detector accepts, or at the first event
// when the endpoint has no detector (ParseResponse is never called here).
func firstTokenHook(ep sdk.Endpoint, onFirst func()) func([]byte) bool {
	if d, ok := ep.(sdk.FirstTokenDetector); ok {
		return func(data []byte) bool {
			if d.IsFirstToken(data) {
				onFirst()
				return true
			}
			return false
		}
	}
	return func([]byte) bool { onFirst(); return true }
}

// waitTurn waits before a later turn of a session: until the previous
// turn's start plus TurnGap in user-centric mode, else the turn's delay
// after the previous turn ended. It reports false when ctx ended first.
func (e *Engine) waitTurn(ctx context.Context, req *PreparedRequest, prevStart int64) bool {
	if gap := e.opts.TurnGap; gap > 0 {
		wait := time.Duration(prevStart + int64(gap) - clock.Now())
		return wait <= 0 || clock.Sleep(ctx, wait)
	}
	if d := req.TurnInfo().DelayMs; d != nil && *d > 0 {
		return clock.Sleep(ctx, time.Duration(*d*float64(time.Millisecond)))
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
// of the next one. A reply that cannot be parsed is an error: a history
// with a missing answer is not the conversation the dataset describes.
func (e *Engine) answerText(rec *sdk.RequestRecord) (string, error) {
	var b strings.Builder
	if rp, ok := e.opts.Endpoint.(sdk.RecordParser); ok {
		parsed, err := rp.ParseRecord(rec.Responses)
		if err != nil {
			return "", err
		}
		for _, p := range parsed {
			b.WriteString(p.Text)
		}
		return b.String(), nil
	}
	for i, r := range rec.Responses {
		p, err := e.opts.Endpoint.ParseResponse(r.Data)
		if err != nil {
			return "", fmt.Errorf("response %d: %w", i, err)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// historyText is a sent turn's text as later turns repeat it: its own
// texts, without the conversation's system prompt and user context.
func historyText(req *PreparedRequest) string {
	return strings.Join(req.TurnInfo().Texts, " ")
}

func roleOf(t sdk.Turn) string {
	if t.Role != "" {
		return t.Role
	}
	return "user"
}

// onceFunc wraps f (which may be nil) so it runs at most once.
func onceFunc(f func()) func() {
	if f == nil {
		return func() {}
	}
	return sync.OnceFunc(f)
}

// cancelPicker decides which requests --request-cancellation-rate cancels.
// The decision is a seeded hash of the request's place in the run (session
// index, turn), not a draw from a shared sequence: a run is reproducible,
// and the shards of a sharded run cancel exactly the requests one process
// would.
type cancelPicker struct {
	rate float64
	seed uint64
}

func newCancelPicker(ratePct float64, seed int64) *cancelPicker {
	return &cancelPicker{rate: ratePct / 100, seed: uint64(seed) ^ 0xca5ce1}
}

func (p *cancelPicker) pick(session, turn int) bool {
	if p.rate <= 0 {
		return false
	}
	// splitmix64 of (seed, session, turn): 53 uniform bits.
	x := p.seed + uint64(session)*0x9e3779b97f4a7c15 + uint64(turn)*0xbf58476d1ce4e5b9
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11)/(1<<53) < p.rate
}
