package mockserver

import (
	"context"
	"net/http"
	"strconv"
	"time"
)

// This file holds what the generating APIs beyond chat/completions share
// (TGI, Solido, Responses, Messages): one request lifecycle, with the API
// supplying only how its stream events and its JSON body look.

// textResponse renders one generating request in its API's shape. A new
// value is made per request, so implementations may keep per-stream state
// (a sequence number, say).
type textResponse interface {
	// head is written with the stream headers, before TTFT; it may be nil.
	head(dst []byte) []byte
	// token writes the event of one output word (pre-escaped JSON text).
	token(dst, word []byte, reasoning bool) []byte
	// tail follows the last token event.
	tail(dst []byte) []byte
	// body is the complete non-streaming response.
	body(dst []byte) []byte
}

// generate runs a generating request: plan the output from the prompt,
// then stream it on the TTFT/ITL schedule or answer after TTFT + ITL×tokens.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, start time.Time, req *inferenceRequest,
	render func(plan outputPlan, u usage) textResponse) {
	info := s.prompts.lookup(req.promptText)
	plan := planOutput(req, info.tokens, info.seed)
	mm := s.metrics.forModel(req.model)
	mm.running.Inc()
	defer mm.running.Dec()

	g := getGeneration()
	defer putGeneration(g)
	u := usage{prompt: info.tokens, completion: plan.total()}
	resp := render(plan, u)
	var sent int
	var ok bool
	if req.stream {
		sent, ok = s.streamEvents(r.Context(), w, g, plan, start, mm, resp.head(g.out[:0]), resp.token, resp.tail)
	} else if ok = s.waitForBody(r.Context(), g, plan, start, mm); ok {
		g.out = resp.body(g.out[:0])
		if ok = writeJSONStatus(w, http.StatusOK, g.out); ok {
			sent = plan.total()
		}
	}
	if ok {
		mm.finished(start, info.tokens, sent, plan.finish)
	} else {
		mm.aborted(info.tokens, sent)
	}
}

// waitItems holds the answer of a non-generating request (embeddings,
// rankings, images) until TTFT + ITL×items: TTFT plays the fixed cost and
// ITL the cost per embedded input, ranked passage or image. It reports
// false when the client went away first.
func (s *Server) waitItems(ctx context.Context, g *generation, start time.Time, items int) bool {
	if s.cfg.Fast {
		return ctx.Err() == nil
	}
	return g.waitUntil(ctx, start.Add(s.cfg.TTFT+time.Duration(items)*s.cfg.ITL))
}

// respondItems writes a non-generating JSON answer after waitItems and
// records it; body renders into the pooled buffer it is given.
func (s *Server) respondItems(w http.ResponseWriter, r *http.Request, start time.Time, model string,
	promptTokens, items int, body func(dst []byte) []byte) {
	mm := s.metrics.forModel(model)
	mm.running.Inc()
	defer mm.running.Dec()
	g := getGeneration()
	defer putGeneration(g)
	if !s.waitItems(r.Context(), g, start, items) {
		mm.aborted(promptTokens, 0)
		return
	}
	g.out = body(g.out[:0])
	if writeJSONStatus(w, http.StatusOK, g.out) {
		mm.finished(start, promptTokens, 0, "stop")
	} else {
		mm.aborted(promptTokens, 0)
	}
}

// newID returns prefix + the per-process tag + a sequence number, unique
// within and across runs.
func (s *Server) newID(prefix string) string {
	b := make([]byte, 0, len(prefix)+len(s.idTag)+8)
	b = append(b, prefix...)
	b = append(b, s.idTag...)
	b = strconv.AppendUint(b, s.seq.Add(1), 10)
	return string(b)
}

// limits are the output-length controls of a generating request, under the
// field names of its API.
type limits struct {
	maxName string
	max     *int
	minName string
	min     *int
}

// apply validates the limits into req.maxTokens and req.minTokens.
func (l limits) apply(req *inferenceRequest) error {
	if l.max != nil {
		if *l.max < 1 {
			return badRequest("%q must be >= 1, got %d", l.maxName, *l.max)
		}
		req.maxTokens = *l.max
	}
	if l.min != nil {
		if *l.min < 0 {
			return badRequest("%q must be >= 0, got %d", l.minName, *l.min)
		}
		if req.maxTokens > 0 && *l.min > req.maxTokens {
			return badRequest("%q (%d) must not exceed %q (%d)", l.minName, *l.min, l.maxName, req.maxTokens)
		}
		req.minTokens = *l.min
	}
	return nil
}

// appendInt appends a decimal integer.
func appendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }

// appendSSEHead opens an SSE message with an event name, as the typed-event
// APIs (Responses, Anthropic, image streaming) send them; the JSON data and
// sseEnd follow.
func appendSSEHead(dst []byte, event string) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, event...)
	return append(dst, "\ndata: "...)
}

// sseEnd closes an SSE message.
const sseEnd = "\n\n"
