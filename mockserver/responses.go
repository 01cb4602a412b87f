package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// OpenAI Responses API (AIPerf's responses type):
//
//	POST /v1/responses {"model","input":"…"|[items],"instructions","max_output_tokens","stream"}
//	non-streaming → {"id","object":"response","created_at","status":"completed","model",
//	                 "output":[{"type":"message",…,"content":[{"type":"output_text","text"}]}],"usage":{…}}
//	streaming → typed SSE events (each with "event:" and a "type" in its data):
//	  response.created, response.in_progress, response.output_item.added,
//	  response.content_part.added, response.output_text.delta (one per token),
//	  response.output_text.done, response.content_part.done,
//	  response.output_item.done, response.completed (with usage).
//
// The status is "completed" even when max_output_tokens cut the answer:
// OpenAI would say "incomplete" and end with response.incomplete, which
// carries no usage for AIPerf to read.

type responsesWire struct {
	Model           string          `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    string          `json:"instructions"`
	Stream          bool            `json:"stream"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	MinTokens       *int            `json:"min_tokens"`
	IgnoreEOS       bool            `json:"ignore_eos"`
}

// responsesItem is an input item: a message (role + content) or a tool
// output (function_call_output's "output").
type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

func decodeResponses(body []byte) (*inferenceRequest, error) {
	var wr responsesWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	if wr.Model == "" {
		return nil, badRequest("missing required field \"model\"")
	}
	input, err := responsesInputText(wr.Input)
	if err != nil {
		return nil, err
	}
	// The instructions are part of the prompt the model reads, as a chat
	// system message is.
	if wr.Instructions != "" {
		input = wr.Instructions + "\n" + input
	}
	req := &inferenceRequest{kind: kindResponses, model: wr.Model, stream: wr.Stream, promptText: input,
		promptTokenIDs: -1, ignoreEOS: wr.IgnoreEOS}
	l := limits{maxName: "max_output_tokens", max: wr.MaxOutputTokens, minName: "min_tokens", min: wr.MinTokens}
	if err := l.apply(req); err != nil {
		return nil, err
	}
	return req, nil
}

// responsesInputText joins the text of a string input or of every input
// item with newlines.
func responsesInputText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", badRequest("missing required field \"input\" (a string or an array of input items)")
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest("input: %v", err)
		}
		return s, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return "", badRequest("\"input\" must be a string or a non-empty array of input items")
	}
	texts := make([]string, 0, len(items))
	for i, it := range items {
		content := it.Content
		if content == nil {
			content = it.Output
		}
		text, err := partsText(content, "input", i, "input_text", "output_text", "text")
		if err != nil {
			return "", err
		}
		texts = append(texts, text)
	}
	return strings.Join(texts, "\n"), nil
}

// partsText reads a content field that is a string, null or a list of
// typed parts, keeping the text of the parts whose type is listed.
func partsText(raw json.RawMessage, field string, idx int, textTypes ...string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest("%s[%d].content: %v", field, idx, err)
		}
		return s, nil
	case '[':
		var parts []wirePart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", badRequest("%s[%d].content must be a string or an array of content parts: %v", field, idx, err)
		}
		var sb strings.Builder
		for _, p := range parts {
			for _, t := range textTypes {
				if p.Type == t {
					sb.WriteString(p.Text)
					break
				}
			}
		}
		return sb.String(), nil
	}
	return "", badRequest("%s[%d].content must be a string or an array of content parts", field, idx)
}

func (s *Server) responsesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := s.admit(w, r, decodeResponses)
		if !ok {
			return
		}
		s.generate(w, r, start, req, func(plan outputPlan, u usage) textResponse {
			return &responsesResponse{vocab: s.vocab, plan: plan, u: u, model: req.model,
				id: s.newID("resp_"), itemID: s.newID("msg_"), created: time.Now().Unix()}
		})
	})
}

type responsesResponse struct {
	vocab      *vocabulary
	plan       outputPlan
	u          usage
	model      string
	id, itemID string
	created    int64
	seq        int
}

// event opens the next typed event: the event line, then its data up to
// and including the sequence number.
func (o *responsesResponse) event(dst []byte, typ string) []byte {
	dst = appendSSEHead(dst, typ)
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","sequence_number":`...)
	dst = appendInt(dst, o.seq)
	o.seq++
	return dst
}

// partRef writes `,"item_id":…,"output_index":0,"content_index":0`.
func (o *responsesResponse) partRef(dst []byte) []byte {
	dst = append(dst, `,"item_id":`...)
	dst = appendJSONString(dst, o.itemID)
	return append(dst, `,"output_index":0,"content_index":0`...)
}

func (o *responsesResponse) text(dst []byte) []byte {
	dst = append(dst, '"')
	dst = appendWords(dst, o.vocab, o.plan.seed, saltContent, o.plan.content)
	return append(dst, '"')
}

// item writes the output message; done selects its final form.
func (o *responsesResponse) item(dst []byte, done bool) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, o.itemID)
	if !done {
		return append(dst, `,"type":"message","status":"in_progress","role":"assistant","content":[]}`...)
	}
	dst = append(dst, `,"type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":`...)
	dst = o.text(dst)
	return append(dst, `,"annotations":[]}]}`...)
}

// response writes the response object; done selects the completed form
// with its output and usage.
func (o *responsesResponse) response(dst []byte, done bool) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, o.id)
	dst = append(dst, `,"object":"response","created_at":`...)
	dst = appendInt(dst, int(o.created))
	if !done {
		dst = append(dst, `,"status":"in_progress","model":`...)
		dst = appendJSONString(dst, o.model)
		return append(dst, `,"output":[],"usage":null}`...)
	}
	dst = append(dst, `,"status":"completed","model":`...)
	dst = appendJSONString(dst, o.model)
	dst = append(dst, `,"output":[`...)
	dst = o.item(dst, true)
	dst = append(dst, `],"usage":{"input_tokens":`...)
	dst = appendInt(dst, o.u.prompt)
	dst = append(dst, `,"input_tokens_details":{"cached_tokens":0},"output_tokens":`...)
	dst = appendInt(dst, o.u.completion)
	dst = append(dst, `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`...)
	dst = appendInt(dst, o.u.prompt+o.u.completion)
	return append(dst, "}}"...)
}

func (o *responsesResponse) head(dst []byte) []byte {
	dst = o.event(dst, "response.created")
	dst = append(dst, `,"response":`...)
	dst = o.response(dst, false)
	dst = append(dst, "}"+sseEnd...)
	dst = o.event(dst, "response.in_progress")
	dst = append(dst, `,"response":`...)
	dst = o.response(dst, false)
	dst = append(dst, "}"+sseEnd...)
	dst = o.event(dst, "response.output_item.added")
	dst = append(dst, `,"output_index":0,"item":`...)
	dst = o.item(dst, false)
	dst = append(dst, "}"+sseEnd...)
	dst = o.event(dst, "response.content_part.added")
	dst = o.partRef(dst)
	return append(dst, `,"part":{"type":"output_text","text":"","annotations":[]}}`+sseEnd...)
}

func (o *responsesResponse) token(dst, word []byte, _ bool) []byte {
	dst = o.event(dst, "response.output_text.delta")
	dst = o.partRef(dst)
	dst = append(dst, `,"delta":"`...)
	dst = append(dst, word...)
	return append(dst, `","logprobs":[]}`+sseEnd...)
}

func (o *responsesResponse) tail(dst []byte) []byte {
	dst = o.event(dst, "response.output_text.done")
	dst = o.partRef(dst)
	dst = append(dst, `,"text":`...)
	dst = o.text(dst)
	dst = append(dst, `,"logprobs":[]}`+sseEnd...)
	dst = o.event(dst, "response.content_part.done")
	dst = o.partRef(dst)
	dst = append(dst, `,"part":{"type":"output_text","text":`...)
	dst = o.text(dst)
	dst = append(dst, `,"annotations":[]}}`+sseEnd...)
	dst = o.event(dst, "response.output_item.done")
	dst = append(dst, `,"output_index":0,"item":`...)
	dst = o.item(dst, true)
	dst = append(dst, "}"+sseEnd...)
	dst = o.event(dst, "response.completed")
	dst = append(dst, `,"response":`...)
	dst = o.response(dst, true)
	return append(dst, "}"+sseEnd...)
}

func (o *responsesResponse) body(dst []byte) []byte {
	return append(o.response(dst, true), '\n')
}
