// Package engine runs phases: it turns credits from a timing strategy into
// requests on the transport and hands every finished record downstream.
package engine

import (
	"context"
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

// Options configure the engine.
type Options struct {
	// URLs are full endpoint URLs, used round robin.
	URLs []string
	// Headers are sent with every request (User-Agent, Content-Type, Accept,
	// Authorization, user headers). X-Request-ID and X-Correlation-ID are
	// added per request.
	Headers   map[string]string
	Streaming bool
	Timeout   time.Duration
	// Seed drives the dataset sampling order.
	Seed int64
}

// Engine sends prepared requests as credits arrive.
type Engine struct {
	transport sdk.Transport
	timing    sdk.TimingStrategy
	requests  []PreparedRequest
	opts      Options

	sampler *shuffleSampler

	// progress of the current phase
	phase     atomic.Value // string
	sent      atomic.Int64
	completed atomic.Int64
	errors    atomic.Int64
	total     atomic.Int64
	startedNs atomic.Int64
}

// New builds an engine. requests must be non-empty.
func New(tr sdk.Transport, timing sdk.TimingStrategy, requests []PreparedRequest, opts Options) (*Engine, error) {
	if len(requests) == 0 {
		return nil, fmt.Errorf("engine: no requests to send")
	}
	if len(opts.URLs) == 0 {
		return nil, fmt.Errorf("engine: no URL to send to")
	}
	e := &Engine{transport: tr, timing: timing, requests: requests, opts: opts,
		sampler: newShuffleSampler(len(requests), opts.Seed)}
	e.phase.Store("")
	return e, nil
}

// RunPhase runs one phase to its stop condition (or ctx cancellation) and
// calls done for every finished request, from the sending goroutine. It
// returns after every request it started has finished.
func (e *Engine) RunPhase(ctx context.Context, plan sdk.PhasePlan, done func(Completed)) error {
	e.phase.Store(plan.Phase)
	e.sent.Store(0)
	e.completed.Store(0)
	e.errors.Store(0)
	e.total.Store(int64(plan.RequestCount))
	e.startedNs.Store(clock.Now())
	s := &sender{e: e, plan: plan, done: done}
	if err := e.timing.Run(ctx, plan, s); err != nil {
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

// Send implements sdk.CreditSender.
func (s *sender) Send(ctx context.Context, c sdk.Credit) {
	e := s.e
	req := &e.requests[e.sampler.next()]
	requestID := uuid.NewString()
	headers := make(map[string]string, len(e.opts.Headers)+2)
	for k, v := range e.opts.Headers {
		// The record's IDs must be the ones sent: drop any caller spelling of them.
		if strings.EqualFold(k, "X-Request-ID") || strings.EqualFold(k, "X-Correlation-ID") {
			continue
		}
		headers[k] = v
	}
	// Single-turn: each request is its own session.
	correlationID := uuid.NewString()
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
	url := e.opts.URLs[c.Index%len(e.opts.URLs)]
	e.sent.Add(1)
	e.transport.Send(ctx, &sdk.TransportRequest{
		URL: url, Headers: headers, Body: req.Payload, Streaming: e.opts.Streaming, Timeout: e.opts.Timeout,
	}, rec)
	if rec.Error != nil {
		e.errors.Add(1)
	}
	e.completed.Add(1)
	s.done(Completed{Record: rec, Request: req})
}

// shuffleSampler walks the dataset in a seeded random order without
// replacement and reshuffles after each pass (AIPerf's default for synthetic
// data).
type shuffleSampler struct {
	mu    sync.Mutex
	rng   *rand.Rand
	order []int
	pos   int
}

func newShuffleSampler(n int, seed int64) *shuffleSampler {
	s := &shuffleSampler{rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed)), order: make([]int, n)}
	for i := range s.order {
		s.order[i] = i
	}
	s.rng.Shuffle(n, func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
	return s
}

func (s *shuffleSampler) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos == len(s.order) {
		s.rng.Shuffle(len(s.order), func(i, j int) { s.order[i], s.order[j] = s.order[j], s.order[i] })
		s.pos = 0
	}
	i := s.order[s.pos]
	s.pos++
	return i
}
