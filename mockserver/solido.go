package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Solido RAG (AIPerf's solido_rag type):
//
//	POST /rag/api/prompt {"query":["…",…],"filters":{…},"inference_model":"…"}
//	→ {"content":"…","sources":[{"id","title","score"},…]}
//	or, when the client accepts text/event-stream (AIPerf sends no "stream"
//	field) or sets "stream": true, one SSE event {"content":"<word>"} per
//	token and a last {"content":"","sources":[…]}.
//
// The query texts are joined with spaces, as AIPerf does. Top-level
// max_tokens, min_tokens and ignore_eos (from --extra-inputs) are honoured.

type solidoWire struct {
	Query          json.RawMessage `json:"query"`
	InferenceModel string          `json:"inference_model"`
	Stream         bool            `json:"stream"`
	MaxTokens      *int            `json:"max_tokens"`
	MinTokens      *int            `json:"min_tokens"`
	IgnoreEOS      bool            `json:"ignore_eos"`
}

// solidoRequest is an inferenceRequest plus the number of query texts,
// which sets how many sources come back.
type solidoRequest struct {
	*inferenceRequest
	queries int
}

func decodeSolido(body []byte, acceptsSSE bool) (solidoRequest, error) {
	var wr solidoWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return solidoRequest{}, badRequest("invalid JSON body: %v", err)
	}
	raw := bytes.TrimSpace(wr.Query)
	var queries []string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return solidoRequest{}, badRequest("missing required field \"query\" (an array of strings)")
	case raw[0] == '"':
		var q string
		if err := json.Unmarshal(raw, &q); err != nil {
			return solidoRequest{}, badRequest("query: %v", err)
		}
		queries = []string{q}
	default:
		if err := json.Unmarshal(raw, &queries); err != nil || len(queries) == 0 {
			return solidoRequest{}, badRequest("\"query\" must be a string or a non-empty array of strings")
		}
	}
	model := wr.InferenceModel
	if model == "" {
		model = defaultModels[0]
	}
	req := &inferenceRequest{kind: kindSolido, model: model, stream: wr.Stream || acceptsSSE,
		promptText: strings.Join(queries, " "), promptTokenIDs: -1, ignoreEOS: wr.IgnoreEOS}
	l := limits{maxName: "max_tokens", max: wr.MaxTokens, minName: "min_tokens", min: wr.MinTokens}
	if err := l.apply(req); err != nil {
		return solidoRequest{}, err
	}
	return solidoRequest{inferenceRequest: req, queries: len(queries)}, nil
}

func (s *Server) solidoHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sse := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
		req, ok := admitAs(s, w, r, writeAPIError, func(b []byte) (solidoRequest, error) { return decodeSolido(b, sse) })
		if !ok {
			return
		}
		s.generate(w, r, start, req.inferenceRequest, func(plan outputPlan, _ usage) textResponse {
			return &solidoResponse{vocab: s.vocab, plan: plan, sources: min(3, req.queries)}
		})
	})
}

type solidoResponse struct {
	vocab   *vocabulary
	plan    outputPlan
	sources int
}

func (o *solidoResponse) head(dst []byte) []byte { return dst }

func (o *solidoResponse) token(dst, word []byte, _ bool) []byte {
	dst = append(dst, `data: {"content":"`...)
	dst = append(dst, word...)
	return append(dst, `"}`+sseEnd...)
}

func (o *solidoResponse) tail(dst []byte) []byte {
	dst = append(dst, `data: {"content":"","sources":`...)
	dst = o.appendSources(dst)
	return append(dst, "}"+sseEnd...)
}

func (o *solidoResponse) body(dst []byte) []byte {
	dst = append(dst, `{"content":"`...)
	dst = appendWords(dst, o.vocab, o.plan.seed, saltContent, o.plan.content)
	dst = append(dst, `","sources":`...)
	dst = o.appendSources(dst)
	return append(dst, "}\n"...)
}

// saltSources separates the source ids from the output-text walks.
const saltSources = 0x736f75726365 // "source"

// appendSources writes one source per query text (at most 3), with ids
// drawn from the prompt and falling scores.
func (o *solidoResponse) appendSources(dst []byte) []byte {
	w := newWalk(o.plan.seed, saltSources)
	dst = append(dst, '[')
	for i := range o.sources {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":"doc_`...)
		dst = strconv.AppendUint(dst, w.next()>>32, 16)
		dst = append(dst, `","title":"Document `...)
		dst = appendInt(dst, i+1)
		dst = append(dst, `","score":`...)
		dst = strconv.AppendFloat(dst, float64(9-i)/10, 'f', -1, 64)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
