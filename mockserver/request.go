package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// maxBodyBytes bounds a request body; larger bodies are rejected, not buffered.
const maxBodyBytes = 64 << 20

// endpointKind selects the API shape of an inference route.
type endpointKind uint8

const (
	kindChat endpointKind = iota
	kindCompletions
	// The other generating APIs. None of them reasons: planOutput gives
	// reasoning tokens to chat only.
	kindTGI
	kindSolido
	kindResponses
	kindMessages
)

// wireRequest is the subset of the OpenAI request body the mock honours.
type wireRequest struct {
	Model               string          `json:"model"`
	Messages            []wireMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	Stream              bool            `json:"stream"`
	StreamOptions       *wireStreamOpts `json:"stream_options"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           *int            `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	ReasoningEffort     string          `json:"reasoning_effort"`
}

type wireStreamOpts struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wirePart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// inferenceRequest is a validated request, reduced to what generation needs.
type inferenceRequest struct {
	kind         endpointKind
	model        string
	stream       bool
	includeUsage bool
	// promptText seeds the output walk and is tokenized for prompt_tokens.
	promptText string
	// promptTokenIDs is the token count of a token-id prompt (completions
	// "prompt": [1,2,3]); -1 when the prompt is text.
	promptTokenIDs int
	// maxTokens is 0 when the request set no cap.
	maxTokens       int
	minTokens       int
	ignoreEOS       bool
	reasoningEffort string
}

// badRequestError is a client error reported as HTTP 400.
type badRequestError struct {
	msg string
}

func (e *badRequestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &badRequestError{msg: fmt.Sprintf(format, args...)}
}

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body buffer kept for reuse: one huge prompt
// must not pin its buffer for the server's lifetime.
const maxPooledBody = 1 << 20

// readRequest reads a request body (capped at maxBodyBytes, into a pooled
// buffer) and decodes it with decode, for every API the mock speaks. decode
// must not keep the slice it is given: the buffer is reused.
func readRequest[T any](w http.ResponseWriter, r *http.Request, decode func([]byte) (T, error)) (T, error) {
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBody {
			bodyPool.Put(buf)
		}
	}()
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBodyBytes)); err != nil {
		var zero T
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return zero, badRequest("request body exceeds %d bytes", maxBodyBytes)
		}
		return zero, badRequest("reading request body: %v", err)
	}
	return decode(buf.Bytes())
}

// admit reads and validates an OpenAI-style request. It answers 400 for a
// bad request and an injected 500 (--error-rate) itself, returning ok=false then.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, decode func([]byte) (*inferenceRequest, error)) (*inferenceRequest, bool) {
	return admitAs(s, w, r, writeAPIError, decode)
}

// admitAs is admit for any decoded request type and error body shape.
func admitAs[T any](s *Server, w http.ResponseWriter, r *http.Request, writeErr errorWriter, decode func([]byte) (T, error)) (T, bool) {
	req, err := readRequest(w, r, decode)
	if err != nil {
		s.metrics.badRequests.Inc()
		writeErr(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		var zero T
		return zero, false
	}
	// Only valid requests count toward the error rate: a 400 wins.
	if s.errs.fail() {
		s.metrics.injectedErrors.Inc()
		writeErr(w, http.StatusInternalServerError, "server_error", "simulated server error (mock server --error-rate)")
		var zero T
		return zero, false
	}
	return req, true
}

// decodeRequest validates a JSON body for the given endpoint.
func decodeRequest(body []byte, kind endpointKind) (*inferenceRequest, error) {
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	if wr.Model == "" {
		return nil, badRequest("missing required field \"model\"")
	}
	req := &inferenceRequest{
		kind:            kind,
		model:           wr.Model,
		stream:          wr.Stream,
		includeUsage:    wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage,
		ignoreEOS:       wr.IgnoreEOS,
		reasoningEffort: wr.ReasoningEffort,
		promptTokenIDs:  -1,
	}
	var err error
	switch kind {
	case kindChat:
		req.promptText, err = chatPromptText(wr.Messages)
	default:
		req.promptText, req.promptTokenIDs, err = completionPrompt(wr.Prompt)
	}
	if err != nil {
		return nil, err
	}
	if err := req.setLimits(wr); err != nil {
		return nil, err
	}
	return req, nil
}

// setLimits resolves max_completion_tokens (preferred, the newer name) or
// max_tokens, and min_tokens.
func (req *inferenceRequest) setLimits(wr wireRequest) error {
	field, limit := "max_tokens", wr.MaxTokens
	if wr.MaxCompletionTokens != nil {
		field, limit = "max_completion_tokens", wr.MaxCompletionTokens
	}
	if limit != nil {
		if *limit < 1 {
			return badRequest("%q must be >= 1, got %d", field, *limit)
		}
		req.maxTokens = *limit
	}
	if wr.MinTokens != nil {
		if *wr.MinTokens < 0 {
			return badRequest("\"min_tokens\" must be >= 0, got %d", *wr.MinTokens)
		}
		if req.maxTokens > 0 && *wr.MinTokens > req.maxTokens {
			return badRequest("\"min_tokens\" (%d) must not exceed %q (%d)", *wr.MinTokens, field, req.maxTokens)
		}
		req.minTokens = *wr.MinTokens
	}
	return nil
}

// chatPromptText joins the text of every message with newlines; content may
// be a string, null, or a list of parts of which the "text" parts count.
func chatPromptText(msgs []wireMessage) (string, error) {
	if len(msgs) == 0 {
		return "", badRequest("missing required field \"messages\" (a non-empty array)")
	}
	if len(msgs) == 1 {
		return messageText(msgs[0].Content, 0)
	}
	var sb strings.Builder
	for i, m := range msgs {
		text, err := messageText(m.Content, i)
		if err != nil {
			return "", err
		}
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(text)
	}
	return sb.String(), nil
}

func messageText(raw json.RawMessage, idx int) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", badRequest("messages[%d].content: %v", idx, err)
		}
		return s, nil
	case '[':
		var parts []wirePart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", badRequest("messages[%d].content must be a string or an array of content parts: %v", idx, err)
		}
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				sb.WriteString(p.Text)
			}
		}
		return sb.String(), nil
	}
	return "", badRequest("messages[%d].content must be a string or an array of content parts", idx)
}

// completionPrompt accepts the prompt shapes of the completions API: a string,
// a list of strings (joined by newlines), a token-id list, or a list of
// token-id lists. Token-id prompts return their raw JSON as the seed text.
func completionPrompt(raw json.RawMessage) (text string, tokenIDs int, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", -1, badRequest("missing required field \"prompt\"")
	}
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", -1, badRequest("prompt: %v", err)
		}
		return text, -1, nil
	}
	if raw[0] != '[' {
		return "", -1, badRequest("prompt must be a string, an array of strings or an array of token ids")
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil {
		if len(texts) == 0 {
			return "", -1, badRequest("prompt must not be an empty array")
		}
		return strings.Join(texts, "\n"), -1, nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil {
		if len(ids) == 0 {
			return "", -1, badRequest("prompt must not be an empty array")
		}
		return string(raw), len(ids), nil
	}
	var batches [][]int
	if json.Unmarshal(raw, &batches) == nil && len(batches) > 0 {
		n := 0
		for _, b := range batches {
			n += len(b)
		}
		return string(raw), n, nil
	}
	return "", -1, badRequest("prompt must be a string, an array of strings or an array of token ids")
}
