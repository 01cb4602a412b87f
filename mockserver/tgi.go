package mockserver

import (
	"encoding/json"
	"net/http"
	"time"
)

// Hugging Face TGI (AIPerf's huggingface_generate type):
//
//	POST /generate        {"inputs":"…","parameters":{"max_new_tokens":n,"details":bool,…}}
//	                      → {"generated_text":"…"[,"details":{…}]}
//	POST /generate_stream same body → SSE, one event per token:
//	    data: {"index":i,"token":{"id":…,"text":"…","logprob":…,"special":false},"generated_text":null,"details":null}
//	  the last one carrying the whole "generated_text" and "details".
//
// Besides TGI's max_new_tokens, "parameters" honours ignore_eos and
// min_new_tokens (AIPerf's --extra-inputs land there) for exact lengths.

type tgiWire struct {
	Inputs     *string `json:"inputs"`
	Parameters *struct {
		MaxNewTokens *int `json:"max_new_tokens"`
		MinNewTokens *int `json:"min_new_tokens"`
		IgnoreEOS    bool `json:"ignore_eos"`
		Details      bool `json:"details"`
	} `json:"parameters"`
}

// tgiRequest is an inferenceRequest plus TGI's details switch.
type tgiRequest struct {
	*inferenceRequest
	details bool
}

func decodeTGI(body []byte, stream bool) (tgiRequest, error) {
	var wr tgiWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return tgiRequest{}, badRequest("invalid JSON body: %v", err)
	}
	if wr.Inputs == nil {
		return tgiRequest{}, badRequest("missing required field \"inputs\" (a string)")
	}
	// TGI serves one model and its body names none.
	req := &inferenceRequest{kind: kindTGI, model: defaultModels[0], stream: stream, promptText: *wr.Inputs, promptTokenIDs: -1}
	out := tgiRequest{inferenceRequest: req}
	if p := wr.Parameters; p != nil {
		req.ignoreEOS, out.details = p.IgnoreEOS, p.Details
		l := limits{maxName: "max_new_tokens", max: p.MaxNewTokens, minName: "min_new_tokens", min: p.MinNewTokens}
		if err := l.apply(req); err != nil {
			return tgiRequest{}, err
		}
	}
	return out, nil
}

func (s *Server) tgiHandler(stream bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := admitAs(s, w, r, writeAPIError, func(b []byte) (tgiRequest, error) { return decodeTGI(b, stream) })
		if !ok {
			return
		}
		s.generate(w, r, start, req.inferenceRequest, func(plan outputPlan, u usage) textResponse {
			return &tgiResponse{vocab: s.vocab, plan: plan, u: u, details: req.details}
		})
	})
}

type tgiResponse struct {
	vocab   *vocabulary
	plan    outputPlan
	u       usage
	details bool
	i       int
}

// tgiFinish maps the plan's finish reason to TGI's names.
func tgiFinish(finish string) string {
	if finish == "length" {
		return "length"
	}
	return "eos_token"
}

func (t *tgiResponse) head(dst []byte) []byte { return dst }

func (t *tgiResponse) token(dst, word []byte, _ bool) []byte {
	dst = append(dst, `data: {"index":`...)
	dst = appendInt(dst, t.i)
	t.i++
	dst = append(dst, `,"token":{"id":`...)
	dst = appendInt(dst, t.vocab.tokenID(word))
	dst = append(dst, `,"text":"`...)
	dst = append(dst, word...)
	dst = append(dst, `","logprob":-0.1,"special":false},"generated_text":`...)
	if t.i < t.plan.total() {
		return append(dst, `null,"details":null}`+sseEnd...)
	}
	dst = t.appendText(dst)
	dst = append(dst, `,"details":`...)
	dst = t.appendDetails(dst)
	return append(dst, "}"+sseEnd...)
}

func (t *tgiResponse) tail(dst []byte) []byte { return dst }

func (t *tgiResponse) body(dst []byte) []byte {
	dst = append(dst, `{"generated_text":`...)
	dst = t.appendText(dst)
	if t.details {
		dst = append(dst, `,"details":`...)
		dst = t.appendDetails(dst)
	}
	return append(dst, "}\n"...)
}

func (t *tgiResponse) appendText(dst []byte) []byte {
	dst = append(dst, '"')
	dst = appendWords(dst, t.vocab, t.plan.seed, saltContent, t.plan.content)
	return append(dst, '"')
}

func (t *tgiResponse) appendDetails(dst []byte) []byte {
	dst = append(dst, `{"finish_reason":"`...)
	dst = append(dst, tgiFinish(t.plan.finish)...)
	dst = append(dst, `","generated_tokens":`...)
	dst = appendInt(dst, t.u.completion)
	dst = append(dst, `,"input_length":`...)
	dst = appendInt(dst, t.u.prompt)
	return append(dst, `,"seed":null}`...)
}
