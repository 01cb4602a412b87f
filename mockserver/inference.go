package mockserver

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// generation is the pooled per-request state: renderer, output buffer and
// the pacing timer, so a request allocates almost nothing after warm-up.
type generation struct {
	r     renderer
	out   []byte
	timer *time.Timer
}

// maxPooledBuffer keeps one huge response from pinning memory in the pool.
const maxPooledBuffer = 1 << 20

var generationPool = sync.Pool{New: func() any {
	return &generation{out: make([]byte, 0, 16<<10), r: renderer{scratch: make([]byte, 0, 256)}}
}}

func getGeneration() *generation { return generationPool.Get().(*generation) }

func putGeneration(g *generation) {
	if cap(g.out) > maxPooledBuffer {
		return
	}
	generationPool.Put(g)
}

// waitUntil sleeps until t or until ctx ends; it reports whether to go on.
func (g *generation) waitUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	if g.timer == nil {
		g.timer = time.NewTimer(d)
	} else {
		// Since Go 1.23 Reset on a stopped or fired timer never delivers a
		// stale value, so no draining is needed.
		g.timer.Reset(d)
	}
	select {
	case <-g.timer.C:
		return true
	case <-ctx.Done():
		g.timer.Stop()
		return false
	}
}

// tokenStream yields the words of a plan: reasoning first, then content.
type tokenStream struct {
	vocab      *vocabulary
	reasoning  walk
	content    walk
	nReasoning int
	i          int
}

func newTokenStream(v *vocabulary, p outputPlan) tokenStream {
	return tokenStream{
		vocab:      v,
		reasoning:  newWalk(p.seed, saltReasoning),
		content:    newWalk(p.seed, saltContent),
		nReasoning: p.reasoning,
	}
}

// next returns the next pre-rendered word and whether it is reasoning.
func (t *tokenStream) next() ([]byte, bool) {
	t.i++
	if t.i <= t.nReasoning {
		return t.vocab.word(t.reasoning.next()), true
	}
	return t.vocab.word(t.content.next()), false
}

func (s *Server) inferenceHandler(kind endpointKind) http.Handler {
	idPrefix := s.chatIDPrefix
	if kind == kindCompletions {
		idPrefix = s.completionIDPrefix
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, admitted := s.admit(w, r, func(body []byte) (*inferenceRequest, error) { return decodeRequest(body, kind) })
		if !admitted {
			return
		}
		var info promptInfo
		if req.promptTokenIDs >= 0 {
			info = promptInfo{tokens: req.promptTokenIDs, seed: promptSeed(req.promptText)}
		} else {
			info = s.prompts.lookup(req.promptText)
		}
		plan := planOutput(req, info.tokens, info.seed)
		mm := s.metrics.forModel(req.model)
		mm.running.Inc()
		defer mm.running.Dec()

		g := getGeneration()
		defer putGeneration(g)
		g.r.reset(kind, idPrefix, s.seq.Add(1), time.Now().Unix(), req.model)
		u := usage{prompt: info.tokens, completion: plan.total(), reasoning: plan.reasoning}

		var sent int
		var ok bool
		if req.stream {
			sent, ok = s.stream(r.Context(), w, g, req, plan, u, start, mm)
		} else if ok = s.respond(r.Context(), w, g, plan, u, start, mm); ok {
			sent = plan.total()
		}
		if ok {
			mm.finished(start, info.tokens, sent, plan.finish)
		} else {
			mm.aborted(info.tokens, sent)
		}
	})
}

// stream writes an OpenAI SSE response: the chat role delta at once, one
// chunk per token, then the finish chunk, optional usage chunk and [DONE].
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, g *generation, req *inferenceRequest,
	plan outputPlan, u usage, start time.Time, mm *modelMetrics) (int, bool) {
	var head []byte
	if req.kind == kindChat {
		// Rendered into the pooled buffer streamEvents starts from: no allocation.
		head = g.r.appendRole(g.out[:0])
	}
	return s.streamEvents(ctx, w, g, plan, start, mm, head, g.r.appendToken,
		func(buf []byte) []byte { return s.appendStreamTail(buf, g, req, plan, u) })
}

// streamEvents writes an SSE response shared by every API the mock speaks:
// head (a role delta, say) goes out with the headers, then one event per
// token, the last one followed by tail. Token i goes out at
// start+TTFT+i·ITL on an absolute schedule, so sleep overshoot does not
// accumulate; in Fast mode everything is written before a single flush. It
// returns the tokens sent and whether the stream completed.
func (s *Server) streamEvents(ctx context.Context, w http.ResponseWriter, g *generation, plan outputPlan,
	start time.Time, mm *modelMetrics, head []byte,
	event func(dst, word []byte, reasoning bool) []byte, tail func(dst []byte) []byte) (int, bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}

	total := plan.total()
	tokens := newTokenStream(s.vocab, plan)
	buf := append(g.out[:0], head...)
	defer func() { g.out = buf }()

	if s.cfg.Fast {
		for range total {
			word, reasoning := tokens.next()
			buf = event(buf, word, reasoning)
		}
		mm.ttft.Observe(time.Since(start).Seconds())
		buf = tail(buf)
		// The whole stream is known: a Content-Length spares chunked framing.
		h.Set("Content-Length", strconv.Itoa(len(buf)))
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(buf); err != nil {
			return 0, false
		}
		flush()
		return total, true
	}

	w.WriteHeader(http.StatusOK)
	// Headers (and the head, e.g. the chat role delta) go out at once, like a
	// server acknowledging the request; the head carries no content, so it
	// does not count as the first token.
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return 0, false
		}
	}
	flush()
	first := start.Add(s.cfg.TTFT)
	for i := range total {
		if !g.waitUntil(ctx, first.Add(time.Duration(i)*s.cfg.ITL)) {
			return i, false
		}
		word, reasoning := tokens.next()
		buf = event(buf[:0], word, reasoning)
		if i == total-1 {
			buf = tail(buf)
		}
		if _, err := w.Write(buf); err != nil {
			return i, false
		}
		flush()
		if i == 0 {
			mm.ttft.Observe(time.Since(start).Seconds())
		}
	}
	return total, true
}

// waitForBody holds a non-streaming response until TTFT + ITL×tokens and
// records its TTFT; it reports false when the client went away first.
func (s *Server) waitForBody(ctx context.Context, g *generation, plan outputPlan, start time.Time, mm *modelMetrics) bool {
	if s.cfg.Fast {
		mm.ttft.Observe(time.Since(start).Seconds())
		return true
	}
	if !g.waitUntil(ctx, start.Add(s.cfg.TTFT+time.Duration(plan.total())*s.cfg.ITL)) {
		return false
	}
	// The first token was "generated" at start+TTFT, not at the end.
	mm.ttft.Observe(s.cfg.TTFT.Seconds())
	return true
}

// appendStreamTail writes the finish chunk, the optional usage chunk and [DONE].
func (s *Server) appendStreamTail(buf []byte, g *generation, req *inferenceRequest, plan outputPlan, u usage) []byte {
	buf = g.r.appendFinish(buf, plan.finish)
	if req.includeUsage {
		buf = g.r.appendUsageChunk(buf, u)
	}
	return append(buf, sseDone...)
}

// respond writes a non-streaming JSON response after TTFT + ITL×tokens.
func (s *Server) respond(ctx context.Context, w http.ResponseWriter, g *generation,
	plan outputPlan, u usage, start time.Time, mm *modelMetrics) bool {
	if !s.waitForBody(ctx, g, plan, start, mm) {
		return false
	}
	g.out = g.r.appendBody(g.out[:0], s.vocab, plan, u)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(g.out)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(g.out)
	return err == nil
}
