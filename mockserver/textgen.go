package mockserver

import (
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

func (s *Server) textgenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, admitted := s.admit(w, r, decodeTextgen)
		if !admitted {
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

// streamTextgen streams textgen events: one {"delta"} per token, the last
// followed by {"done", "usage"}.
func (s *Server) streamTextgen(ctx context.Context, w http.ResponseWriter, g *generation,
	plan outputPlan, u usage, start time.Time, mm *modelMetrics) (int, bool) {
	return s.streamEvents(ctx, w, g, plan, start, mm, nil,
		func(dst, word []byte, _ bool) []byte { return appendTextgenDelta(dst, word) },
		func(dst []byte) []byte { return appendTextgenDone(dst, u) })
}

func appendTextgenDelta(dst, word []byte) []byte {
	dst = append(dst, textgenDeltaPrefix...)
	dst = append(dst, word...)
	return append(dst, textgenDeltaSuffix...)
}

// respondTextgen writes the non-streaming body after TTFT + ITL×tokens.
func (s *Server) respondTextgen(ctx context.Context, w http.ResponseWriter, g *generation,
	plan outputPlan, u usage, start time.Time, mm *modelMetrics) bool {
	if !s.waitForBody(ctx, g, plan, start, mm) {
		return false
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
