package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The "textgen" route is a deliberately non-OpenAI JSON API, the target of
// the example gRPC endpoint plugin (examples/plugins/go-grpc-endpoint):
//
//	POST /v1/textgen {"model":…, "input":"<prompt>", "max_new_tokens":n, "stream":bool,
//	                  "min_new_tokens":n, "ignore_eos":bool}
//	non-streaming:   {"output":"…","usage":{"input_tokens":a,"output_tokens":b}}
//	streaming (SSE): data: {"delta":"…"} per token, then data: {"done":true,"usage":{…}}
//
// It shares the chat/completions machinery: the same prompt cache, output
// plan (exact lengths, no reasoning), vocabulary, TTFT/ITL schedule, error
// injection and metrics.

// TextgenPath is the route of the textgen API.
const TextgenPath = "/v1/textgen"

type textgenWireRequest struct {
	Model        string  `json:"model"`
	Input        *string `json:"input"`
	MaxNewTokens *int    `json:"max_new_tokens"`
	MinNewTokens *int    `json:"min_new_tokens"`
	Stream       bool    `json:"stream"`
	IgnoreEOS    bool    `json:"ignore_eos"`
}

const (
	textgenDeltaPrefix = `data: {"delta":"`
	textgenDeltaSuffix = "\"}\n\n"
)

// decodeTextgen validates a textgen body. The result is planned like a
// completions request, which never reasons.
func decodeTextgen(body []byte) (*inferenceRequest, error) {
	var wr textgenWireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	if wr.Model == "" {
		return nil, badRequest("missing required field \"model\"")
	}
	if wr.Input == nil {
		return nil, badRequest("missing required field \"input\" (a string)")
	}
	req := &inferenceRequest{kind: kindCompletions, model: wr.Model, stream: wr.Stream, promptText: *wr.Input,
		promptTokenIDs: -1, ignoreEOS: wr.IgnoreEOS}
	// Reuse the OpenAI limit checks under textgen's field names.
	if err := req.setLimits(wireRequest{MaxTokens: wr.MaxNewTokens, MinTokens: wr.MinNewTokens}); err != nil {
		var bad *badRequestError
		if errors.As(err, &bad) {
			return nil, badRequest("%s", textgenFieldNames.Replace(bad.msg))
		}
		return nil, err
	}
	return req, nil
}

// textgenFieldNames renames the OpenAI fields in a limit error message.
var textgenFieldNames = strings.NewReplacer(`"max_tokens"`, `"max_new_tokens"`, `"min_tokens"`, `"min_new_tokens"`)

// readTextgen reads and validates a textgen request body.
func readTextgen(w http.ResponseWriter, r *http.Request) (*inferenceRequest, error) {
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bodyPool.Put(buf)
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBodyBytes)); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, badRequest("request body exceeds %d bytes", maxBodyBytes)
		}
		return nil, badRequest("reading request body: %v", err)
	}
	return decodeTextgen(buf.Bytes())
}

func (s *Server) textgenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, err := readTextgen(w, r)
		if err != nil {
			s.metrics.badRequests.Inc()
			writeAPIError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
		if s.errs.fail() {
			s.metrics.injectedErrors.Inc()
			writeAPIError(w, http.StatusInternalServerError, "server_error", "simulated server error (mock server --error-rate)")
			return
		}
		info := s.prompts.lookup(req.promptText)
		plan := planOutput(req, info.tokens, info.seed)
		mm := s.metrics.forModel(req.model)
		mm.running.Inc()
		defer mm.running.Dec()

		g := getGeneration()
		defer putGeneration(g)
		u := usage{prompt: info.tokens, completion: plan.total()}
		var sent int
		var ok bool
		if req.stream {
			sent, ok = s.streamTextgen(r.Context(), w, g, plan, u, start, mm)
		} else if ok = s.respondTextgen(r.Context(), w, g, plan, u, start, mm); ok {
			sent = plan.total()
		}
		if ok {
			mm.finished(start, info.tokens, sent, plan.finish)
		} else {
			mm.aborted(info.tokens, sent)
		}
	})
}

// appendTextgenUsage writes {"input_tokens":a,"output_tokens":b}.
func appendTextgenUsage(dst []byte, u usage) []byte {
	dst = append(dst, `{"input_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.prompt), 10)
	dst = append(dst, `,"output_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.completion), 10)
	return append(dst, '}')
}

func appendTextgenDone(dst []byte, u usage) []byte {
	dst = append(dst, `data: {"done":true,"usage":`...)
	dst = appendTextgenUsage(dst, u)
	return append(dst, "}\n\n"...)
}

// streamTextgen mirrors Server.stream: token i at start+TTFT+i·ITL on an
// absolute schedule, or everything in one write in Fast mode.
func (s *Server) streamTextgen(ctx context.Context, w http.ResponseWriter, g *generation,
	plan outputPlan, u usage, start time.Time, mm *modelMetrics) (int, bool) {
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
	buf := g.out[:0]
	defer func() { g.out = buf }()

	if s.cfg.Fast {
		for range total {
			word, _ := tokens.next()
			buf = appendTextgenDelta(buf, word)
		}
		mm.ttft.Observe(time.Since(start).Seconds())
		buf = appendTextgenDone(buf, u)
		h.Set("Content-Length", strconv.Itoa(len(buf)))
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(buf); err != nil {
			return 0, false
		}
		flush()
		return total, true
	}

	// Headers go out at once, like a server acknowledging the request.
	w.WriteHeader(http.StatusOK)
	flush()
	first := start.Add(s.cfg.TTFT)
	for i := range total {
		if !g.waitUntil(ctx, first.Add(time.Duration(i)*s.cfg.ITL)) {
			return i, false
		}
		word, _ := tokens.next()
		buf = appendTextgenDelta(buf[:0], word)
		if i == total-1 {
			buf = appendTextgenDone(buf, u)
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

func appendTextgenDelta(dst, word []byte) []byte {
	dst = append(dst, textgenDeltaPrefix...)
	dst = append(dst, word...)
	return append(dst, textgenDeltaSuffix...)
}

// respondTextgen writes the non-streaming body after TTFT + ITL×tokens.
func (s *Server) respondTextgen(ctx context.Context, w http.ResponseWriter, g *generation,
	plan outputPlan, u usage, start time.Time, mm *modelMetrics) bool {
	if !s.cfg.Fast {
		if !g.waitUntil(ctx, start.Add(s.cfg.TTFT+time.Duration(plan.total())*s.cfg.ITL)) {
			return false
		}
		mm.ttft.Observe(s.cfg.TTFT.Seconds())
	} else {
		mm.ttft.Observe(time.Since(start).Seconds())
	}
	out := append(g.out[:0], `{"output":"`...)
	out = appendWords(out, s.vocab, plan.seed, saltContent, plan.content)
	out = append(out, `","usage":`...)
	out = appendTextgenUsage(out, u)
	out = append(out, "}\n"...)
	g.out = out
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(out)
	return err == nil
}
