package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Anthropic Messages API (AIPerf's messages type):
//
//	POST /v1/messages {"model","messages":[{"role","content"}],"system","max_tokens","stream"}
//	non-streaming → {"id","type":"message","role":"assistant","model","content":[{"type":"text","text"}],
//	                 "stop_reason","stop_sequence":null,"usage":{"input_tokens","output_tokens",…}}
//	streaming → typed SSE events: message_start, content_block_start, ping,
//	  content_block_delta (text_delta, one per token), content_block_stop,
//	  message_delta (stop_reason and the final usage), message_stop.
//
// The anthropic-version header is accepted but not required, and no
// header is ever echoed. Errors use Anthropic's {"type":"error",…} shape.

type messagesWire struct {
	Model     string          `json:"model"`
	Messages  []messagesMsg   `json:"messages"`
	System    json.RawMessage `json:"system"`
	MaxTokens *int            `json:"max_tokens"`
	MinTokens *int            `json:"min_tokens"`
	IgnoreEOS bool            `json:"ignore_eos"`
	Stream    bool            `json:"stream"`
}

type messagesMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicBlock is a content block; tool_result blocks nest content.
type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

func decodeMessages(body []byte) (*inferenceRequest, error) {
	var wr messagesWire
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	if wr.Model == "" {
		return nil, badRequest("missing required field \"model\"")
	}
	if len(wr.Messages) == 0 {
		return nil, badRequest("missing required field \"messages\" (a non-empty array)")
	}
	texts := make([]string, 0, len(wr.Messages)+1)
	if sys := bytes.TrimSpace(wr.System); len(sys) > 0 && string(sys) != "null" {
		text, err := blocksText(sys, "system", -1)
		if err != nil {
			return nil, err
		}
		texts = append(texts, text)
	}
	for i, m := range wr.Messages {
		text, err := blocksText(m.Content, "messages", i)
		if err != nil {
			return nil, err
		}
		texts = append(texts, text)
	}
	req := &inferenceRequest{kind: kindMessages, model: wr.Model, stream: wr.Stream,
		promptText: strings.Join(texts, "\n"), promptTokenIDs: -1, ignoreEOS: wr.IgnoreEOS}
	l := limits{maxName: "max_tokens", max: wr.MaxTokens, minName: "min_tokens", min: wr.MinTokens}
	if err := l.apply(req); err != nil {
		return nil, err
	}
	return req, nil
}

// blocksText reads a string or a list of content blocks, keeping the text
// blocks and the text inside tool_result blocks.
func blocksText(raw json.RawMessage, field string, idx int) (string, error) {
	where := field
	if idx >= 0 {
		where = field + "[" + strconv.Itoa(idx) + "].content"
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest("%s: %v", where, err)
		}
		return s, nil
	case '[':
		var blocks []anthropicBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return "", badRequest("%s must be a string or an array of content blocks: %v", where, err)
		}
		var sb strings.Builder
		for _, b := range blocks {
			switch b.Type {
			case "text":
				sb.WriteString(b.Text)
			case "tool_result":
				inner, err := blocksText(b.Content, where+".tool_result", -1)
				if err != nil {
					return "", err
				}
				sb.WriteString(inner)
			}
		}
		return sb.String(), nil
	}
	return "", badRequest("%s must be a string or an array of content blocks", where)
}

func (s *Server) messagesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, ok := admitAs(s, w, r, writeAnthropicError, decodeMessages)
		if !ok {
			return
		}
		s.generate(w, r, start, req, func(plan outputPlan, u usage) textResponse {
			return &messagesResponse{vocab: s.vocab, plan: plan, u: u, model: req.model, id: s.newID("msg_")}
		})
	})
}

type messagesResponse struct {
	vocab *vocabulary
	plan  outputPlan
	u     usage
	model string
	id    string
}

// stopReason maps the plan's finish reason to Anthropic's names.
func (o *messagesResponse) stopReason() string {
	if o.plan.finish == "length" {
		return "max_tokens"
	}
	return "end_turn"
}

func (o *messagesResponse) head(dst []byte) []byte {
	dst = appendSSEHead(dst, "message_start")
	dst = append(dst, `{"type":"message_start","message":{"id":`...)
	dst = appendJSONString(dst, o.id)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = appendJSONString(dst, o.model)
	dst = append(dst, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	dst = appendInt(dst, o.u.prompt)
	// Anthropic reports one output token at message_start.
	dst = append(dst, `,"output_tokens":1}}}`+sseEnd...)
	dst = appendSSEHead(dst, "content_block_start")
	dst = append(dst, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`+sseEnd...)
	dst = appendSSEHead(dst, "ping")
	return append(dst, `{"type":"ping"}`+sseEnd...)
}

func (o *messagesResponse) token(dst, word []byte, _ bool) []byte {
	dst = appendSSEHead(dst, "content_block_delta")
	dst = append(dst, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`...)
	dst = append(dst, word...)
	return append(dst, `"}}`+sseEnd...)
}

func (o *messagesResponse) tail(dst []byte) []byte {
	dst = appendSSEHead(dst, "content_block_stop")
	dst = append(dst, `{"type":"content_block_stop","index":0}`+sseEnd...)
	dst = appendSSEHead(dst, "message_delta")
	dst = append(dst, `{"type":"message_delta","delta":{"stop_reason":"`...)
	dst = append(dst, o.stopReason()...)
	dst = append(dst, `","stop_sequence":null},"usage":{"input_tokens":`...)
	dst = appendInt(dst, o.u.prompt)
	dst = append(dst, `,"output_tokens":`...)
	dst = appendInt(dst, o.u.completion)
	dst = append(dst, "}}"+sseEnd...)
	dst = appendSSEHead(dst, "message_stop")
	return append(dst, `{"type":"message_stop"}`+sseEnd...)
}

func (o *messagesResponse) body(dst []byte) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, o.id)
	dst = append(dst, `,"type":"message","role":"assistant","model":`...)
	dst = appendJSONString(dst, o.model)
	dst = append(dst, `,"content":[{"type":"text","text":"`...)
	dst = appendWords(dst, o.vocab, o.plan.seed, saltContent, o.plan.content)
	dst = append(dst, `"}],"stop_reason":"`...)
	dst = append(dst, o.stopReason()...)
	dst = append(dst, `","stop_sequence":null,"usage":{"input_tokens":`...)
	dst = appendInt(dst, o.u.prompt)
	dst = append(dst, `,"output_tokens":`...)
	dst = appendInt(dst, o.u.completion)
	return append(dst, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}`+"\n"...)
}
