package chat

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

const defaultRole = "user"

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's key order:
// messages, model, stream, max_completion_tokens (max_tokens with
// UseLegacyMaxTokens; omitted without Turn.MaxTokens), then --extra-inputs
// and Turn.Extra merged over it, then stream_options.include_usage=true when
// the merged "stream" is true. AIPerf (origin/main) forces include_usage on
// every streaming chat request, so RequestInfo.IncludeUsage is not consulted.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	return Format(Name, req)
}

// Format is FormatPayload with errors prefixed by endpoint, for the
// endpoints that send chat's body to another API (chat_embeddings).
func Format(endpoint string, req sdk.RequestInfo) ([]byte, error) {
	model := req.Turn.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		return nil, fmt.Errorf("%s: format payload: no model (RequestInfo.Model and Turn.Model are empty)", endpoint)
	}
	role := req.Turn.Role
	if role == "" {
		role = defaultRole
	}
	c, err := newContent(&req.Turn)
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", endpoint, err)
	}

	body := openai.NewObject(6 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("messages", &messages{history: req.History, role: role, content: c})
	body.Set("model", model)
	body.Set("stream", req.Streaming)
	if req.Turn.MaxTokens != nil {
		key := "max_completion_tokens"
		if req.UseLegacyMaxTokens {
			key = "max_tokens"
		}
		body.Set(key, *req.Turn.MaxTokens)
	}
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	// Decided on the merged body: servers reject stream_options when an
	// extra input turned streaming off.
	if stream, _ := body.Get("stream"); openai.Truthy(stream) {
		openai.EnsureIncludeUsage(body)
	}

	out, err := body.AppendJSON(make([]byte, 0, sizeHint(req)))
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", endpoint, err)
	}
	return out, nil
}

// sizeHint estimates the body size so it is built in one allocation.
func sizeHint(req sdk.RequestInfo) int {
	n := 192 + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra)
	for _, h := range req.History {
		n += len(h.Text) + 40
	}
	for _, t := range req.Turn.Texts {
		n += len(t) + 32
	}
	for _, g := range req.Turn.TextGroups {
		for _, t := range g.Contents {
			n += len(t) + 32
		}
	}
	return n + n/16 + mediaSize(req.Turn.Images) + mediaSize(req.Turn.Audios) + mediaSize(req.Turn.Videos)
}

func mediaSize(media []string) int {
	n := 0
	for _, m := range media {
		n += len(m) + 64
	}
	return n
}

// messages writes the chat history and the new user message directly into
// the body, so prompt text is escaped once with no intermediate tree.
type messages struct {
	history []sdk.HistoryEntry
	role    string
	content content
}

var _ openai.Appender = (*messages)(nil)

func (m *messages) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	for _, h := range m.history {
		role := h.Role
		if role == "" {
			role = defaultRole
		}
		dst = appendMessageStart(dst, role)
		dst = openai.AppendString(dst, h.Text)
		dst = append(dst, "},"...)
	}
	dst = appendMessageStart(dst, m.role)
	dst = m.content.appendJSON(dst)
	return append(dst, "}]"...), nil
}

func appendMessageStart(dst []byte, role string) []byte {
	dst = append(dst, `{"role":`...)
	dst = openai.AppendString(dst, role)
	return append(dst, `,"content":`...)
}
