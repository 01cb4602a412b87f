package mockserver

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
)

// renderer appends pre-rendered response fragments. The per-request head
// (id, object, created, model) is rendered once; each token event is then
// head + fixed prefix + the pre-rendered word + fixed suffix, with no JSON
// marshalling on the per-token path. Renderers are pooled with their buffers.
type renderer struct {
	kind    endpointKind
	created int64
	// idJSON, modelJSON and chunkHead are sub-slices of scratch.
	scratch   []byte
	idJSON    []byte
	modelJSON []byte
	// chunkHead is `{"id":…,"object":…,"created":…,"model":…,"choices":`.
	chunkHead []byte
	// contentPre and reasoningPre are whole token-event prefixes,
	// `data: ` + chunkHead + the delta/text opening, so a token event is
	// three copies: prefix, word, tokenSuffix.
	contentPre   []byte
	reasoningPre []byte
	tokenSuffix  string
}

const (
	chatChunkObject      = "chat.completion.chunk"
	chatObject           = "chat.completion"
	completionObject     = "text_completion"
	sseDone              = "data: [DONE]\n\n"
	chatContentPrefix    = `[{"index":0,"delta":{"content":"`
	chatReasoningPrefix  = `[{"index":0,"delta":{"reasoning_content":"`
	chatTokenSuffix      = `"},"finish_reason":null}]}` + "\n\n"
	chatRoleChoices      = `[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"
	completionTextPrefix = `[{"index":0,"text":"`
	completionTextSuffix = `","logprobs":null,"finish_reason":null}]}` + "\n\n"
)

// reset prepares r for one response. The id is `<idPrefix><seq>`.
func (r *renderer) reset(kind endpointKind, idPrefix string, seq uint64, created int64, model string) {
	r.kind, r.created = kind, created
	b := r.scratch[:0]
	b = append(b, '"')
	b = append(b, idPrefix...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '"')
	idEnd := len(b)
	b = appendJSONString(b, model)
	modelEnd := len(b)
	r.idJSON, r.modelJSON = b[:idEnd], b[idEnd:modelEnd]
	object := chatChunkObject
	if kind == kindCompletions {
		object = completionObject
	}
	b = r.appendHead(b, object)
	headEnd := len(b)
	contentPrefix := chatContentPrefix
	r.tokenSuffix = chatTokenSuffix
	if kind == kindCompletions {
		contentPrefix, r.tokenSuffix = completionTextPrefix, completionTextSuffix
	}
	b = append(b, "data: "...)
	b = append(b, b[modelEnd:headEnd]...)
	b = append(b, contentPrefix...)
	contentEnd := len(b)
	b = append(b, "data: "...)
	b = append(b, b[modelEnd:headEnd]...)
	b = append(b, chatReasoningPrefix...)
	r.scratch = b
	// Re-slice at the end: appends may have moved the backing array.
	r.idJSON, r.modelJSON, r.chunkHead = b[:idEnd], b[idEnd:modelEnd], b[modelEnd:headEnd]
	r.contentPre, r.reasoningPre = b[headEnd:contentEnd], b[contentEnd:]
}

// appendHead writes `{"id":…,"object":…,"created":…,"model":…,"choices":`.
func (r *renderer) appendHead(dst []byte, object string) []byte {
	dst = append(dst, `{"id":`...)
	dst = append(dst, r.idJSON...)
	dst = append(dst, `,"object":"`...)
	dst = append(dst, object...)
	dst = append(dst, `","created":`...)
	dst = strconv.AppendInt(dst, r.created, 10)
	dst = append(dst, `,"model":`...)
	dst = append(dst, r.modelJSON...)
	return append(dst, `,"choices":`...)
}

func (r *renderer) appendChunkHead(dst []byte) []byte {
	dst = append(dst, "data: "...)
	return append(dst, r.chunkHead...)
}

// appendRole writes the opening assistant-role delta (chat only).
func (r *renderer) appendRole(dst []byte) []byte {
	dst = r.appendChunkHead(dst)
	return append(dst, chatRoleChoices...)
}

// appendToken writes one token event; word is pre-escaped JSON string content.
// reasoning is only ever true for chat (planOutput guarantees it).
func (r *renderer) appendToken(dst, word []byte, reasoning bool) []byte {
	if reasoning {
		dst = append(dst, r.reasoningPre...)
	} else {
		dst = append(dst, r.contentPre...)
	}
	dst = append(dst, word...)
	return append(dst, r.tokenSuffix...)
}

// appendFinish writes the chunk that carries finish_reason.
func (r *renderer) appendFinish(dst []byte, finish string) []byte {
	dst = r.appendChunkHead(dst)
	if r.kind == kindCompletions {
		dst = append(dst, `[{"index":0,"text":"","logprobs":null,"finish_reason":"`...)
	} else {
		dst = append(dst, `[{"index":0,"delta":{},"finish_reason":"`...)
	}
	dst = append(dst, finish...)
	return append(dst, "\"}]}\n\n"...)
}

// appendUsageChunk writes the stream_options.include_usage chunk.
func (r *renderer) appendUsageChunk(dst []byte, u usage) []byte {
	dst = r.appendChunkHead(dst)
	dst = append(dst, `[],"usage":`...)
	dst = u.appendJSON(dst)
	return append(dst, "}\n\n"...)
}

// appendBody writes a complete non-streaming response.
func (r *renderer) appendBody(dst []byte, v *vocabulary, p outputPlan, u usage) []byte {
	if r.kind == kindCompletions {
		dst = r.appendHead(dst, completionObject)
		dst = append(dst, `[{"index":0,"text":"`...)
		dst = appendWords(dst, v, p.seed, saltContent, p.content)
		dst = append(dst, `","logprobs":null,"finish_reason":"`...)
	} else {
		dst = r.appendHead(dst, chatObject)
		dst = append(dst, `[{"index":0,"message":{"role":"assistant","content":"`...)
		dst = appendWords(dst, v, p.seed, saltContent, p.content)
		dst = append(dst, '"')
		if p.reasoning > 0 {
			dst = append(dst, `,"reasoning_content":"`...)
			dst = appendWords(dst, v, p.seed, saltReasoning, p.reasoning)
			dst = append(dst, '"')
		}
		dst = append(dst, `},"finish_reason":"`...)
	}
	dst = append(dst, p.finish...)
	dst = append(dst, `"}],"usage":`...)
	dst = u.appendJSON(dst)
	return append(dst, "}\n"...)
}

// appendWords writes n words of the walk (seed, salt).
func appendWords(dst []byte, v *vocabulary, seed, salt uint64, n int) []byte {
	w := newWalk(seed, salt)
	for range n {
		dst = append(dst, v.word(w.next())...)
	}
	return dst
}

// usage is the token accounting of one response.
type usage struct {
	prompt, completion, reasoning int
}

func (u usage) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.prompt), 10)
	dst = append(dst, `,"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.completion), 10)
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.prompt+u.completion), 10)
	dst = append(dst, `,"completion_tokens_details":{"reasoning_tokens":`...)
	dst = strconv.AppendInt(dst, int64(u.reasoning), 10)
	return append(dst, "}}"...)
}

// appendJSONString appends s as a JSON string literal (invalid UTF-8
// becomes U+FFFD, like encoding/json).
func appendJSONString(dst []byte, s string) []byte { return jsonenc.AppendString(dst, s) }
