package mockserver

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Three reranking APIs, one scorer (AIPerf's nim_rankings, hf_tei_rankings
// and cohere_rankings types):
//
//	POST /v1/ranking  (NVIDIA NIM)  {"model","query":{"text"},"passages":[{"text"},…]}
//	                  → {"rankings":[{"index","logit"},…],"usage":{"prompt_tokens","total_tokens"}}
//	POST /rerank      (HF TEI)      {"query","texts":[…],"return_text"}
//	                  → [{"index","score"[,"text"]},…]
//	POST /v2/rerank   (Cohere)      {"model","query","documents":[…],"top_n"}
//	                  → {"id","results":[{"index","relevance_score"},…],"meta":{…}}
//
// A passage's logit is a hash of (query, passage) in [-8, 8]; TEI and Cohere
// report its sigmoid. Results are sorted best first, ties by index.

type rankAPI uint8

const (
	rankNIM rankAPI = iota
	rankTEI
	rankCohere
)

type rankWire struct {
	Model      string            `json:"model"`
	Query      json.RawMessage   `json:"query"`
	Passages   []json.RawMessage `json:"passages"`
	Texts      []json.RawMessage `json:"texts"`
	Documents  []json.RawMessage `json:"documents"`
	TopN       *int              `json:"top_n"`
	ReturnText bool              `json:"return_text"`
}

type rankRequest struct {
	api        rankAPI
	model      string
	query      string
	passages   []string
	topN       int
	returnText bool
}

// textOrObject reads a JSON string or an object {"text": string}, the two
// ways these APIs spell a text.
func textOrObject(raw json.RawMessage, field string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest("%s: %v", field, err)
		}
		return s, nil
	}
	var obj struct {
		Text *string `json:"text"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil || obj.Text == nil {
		return "", badRequest("%s must be a string or an object with a \"text\" string", field)
	}
	return *obj.Text, nil
}

func decodeRanking(body []byte, api rankAPI) (*rankRequest, error) {
	var wr rankWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	req := &rankRequest{api: api, model: wr.Model, returnText: wr.ReturnText}
	listName, list := "passages", wr.Passages
	switch api {
	case rankTEI:
		listName, list = "texts", wr.Texts
		if req.model == "" {
			req.model = defaultModels[0] // TEI bodies carry no model
		}
	case rankCohere:
		listName, list = "documents", wr.Documents
	}
	if req.model == "" {
		return nil, badRequest("missing required field \"model\"")
	}
	if len(bytes.TrimSpace(wr.Query)) == 0 {
		return nil, badRequest("missing required field \"query\"")
	}
	var err error
	if req.query, err = textOrObject(wr.Query, "query"); err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, badRequest("missing required field %q (a non-empty array)", listName)
	}
	req.passages = make([]string, len(list))
	for i, raw := range list {
		if req.passages[i], err = textOrObject(raw, listName+"["+strconv.Itoa(i)+"]"); err != nil {
			return nil, err
		}
	}
	if wr.TopN != nil {
		if *wr.TopN < 1 {
			return nil, badRequest("\"top_n\" must be >= 1, got %d", *wr.TopN)
		}
		req.topN = *wr.TopN
	}
	return req, nil
}

// rankedPassage is one passage's score.
type rankedPassage struct {
	index int
	logit float64
}

func (s *Server) rankingHandler(api rankAPI) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := admitAs(s, w, r, writeAPIError, func(b []byte) (*rankRequest, error) { return decodeRanking(b, api) })
		if !ok {
			return
		}
		q := s.prompts.lookup(req.query)
		// A cross-encoder reads every (query, passage) pair.
		prompt := q.tokens * len(req.passages)
		ranked := make([]rankedPassage, len(req.passages))
		for i, p := range req.passages {
			info := s.prompts.lookup(p)
			prompt += info.tokens
			ranked[i] = rankedPassage{index: i, logit: pairLogit(q.seed, info.seed)}
		}
		slices.SortStableFunc(ranked, func(a, b rankedPassage) int {
			switch {
			case a.logit > b.logit:
				return -1
			case a.logit < b.logit:
				return 1
			}
			return 0
		})
		if req.topN > 0 && req.topN < len(ranked) {
			ranked = ranked[:req.topN]
		}
		var id string
		if api == rankCohere {
			id = s.newID("rerank-")
		}
		s.respondItems(w, r, start, req.model, prompt, len(req.passages), func(dst []byte) []byte {
			return appendRankingBody(dst, req, ranked, prompt, id)
		})
	})
}

// pairLogit is the relevance logit of a passage for a query, in thousandths
// from -8 to 8.
func pairLogit(querySeed, passageSeed uint64) float64 {
	h := mix64(querySeed*golden ^ passageSeed)
	return float64(int64(h%16001)-8000) / 1000
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func appendScore(dst []byte, v float64) []byte { return strconv.AppendFloat(dst, v, 'g', -1, 32) }

func appendRankingBody(dst []byte, req *rankRequest, ranked []rankedPassage, prompt int, id string) []byte {
	switch req.api {
	case rankNIM:
		dst = append(dst, `{"rankings":[`...)
		for i, p := range ranked {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"index":`...)
			dst = appendInt(dst, p.index)
			dst = append(dst, `,"logit":`...)
			dst = strconv.AppendFloat(dst, p.logit, 'f', -1, 64)
			dst = append(dst, '}')
		}
		dst = append(dst, `],"usage":{"prompt_tokens":`...)
		dst = appendInt(dst, prompt)
		dst = append(dst, `,"total_tokens":`...)
		dst = appendInt(dst, prompt)
		return append(dst, "}}\n"...)
	case rankTEI:
		dst = append(dst, '[')
		for i, p := range ranked {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"index":`...)
			dst = appendInt(dst, p.index)
			dst = append(dst, `,"score":`...)
			dst = appendScore(dst, sigmoid(p.logit))
			if req.returnText {
				dst = append(dst, `,"text":`...)
				dst = appendJSONString(dst, req.passages[p.index])
			}
			dst = append(dst, '}')
		}
		return append(dst, "]\n"...)
	default: // rankCohere
		dst = append(dst, `{"id":`...)
		dst = appendJSONString(dst, id)
		dst = append(dst, `,"results":[`...)
		for i, p := range ranked {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"index":`...)
			dst = appendInt(dst, p.index)
			dst = append(dst, `,"relevance_score":`...)
			dst = appendScore(dst, sigmoid(p.logit))
			dst = append(dst, '}')
		}
		dst = append(dst, `],"meta":{"api_version":{"version":"2"},"billed_units":{"search_units":1},"tokens":{"input_tokens":`...)
		dst = appendInt(dst, prompt)
		return append(dst, `,"output_tokens":0}}}`+"\n"...)
	}
}
