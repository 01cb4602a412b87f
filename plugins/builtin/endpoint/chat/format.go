package chat

import (
	"encoding/json"
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
	msgs, err := newMessages(&req)
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", endpoint, err)
	}

	body := openai.NewObject(7 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("messages", msgs)
	body.Set("model", model)
	body.Set("stream", req.Streaming)
	if len(req.Turn.RawTools) > 0 {
		// AIPerf puts the trace's tools right after stream.
		body.Set("tools", req.Turn.RawTools)
	}
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
	n := 192 + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra) + len(req.SystemMessage) + len(req.UserContextMessage) +
		len(req.Turn.RawMessages) + len(req.Turn.RawTools)
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

// messages writes the chat messages directly into the body, so prompt text
// is escaped once with no intermediate tree. In AIPerf's order: the
// conversation's system prompt, its user context, then either the turn's
// verbatim message array or the history and the new message. A system
// prompt meets a leading system message of the dataset by joining it
// (repeated system roles confuse many servers).
type messages struct {
	system      string
	userContext string
	// raw is the turn's verbatim message array, when it has one; mergedHead
	// replaces raw[0] when the system prompt was joined into it.
	raw        []json.RawMessage
	mergedHead *openai.Object
	history    []sdk.HistoryEntry
	role       string
	content    content
}

var _ openai.Appender = (*messages)(nil)

func newMessages(req *sdk.RequestInfo) (*messages, error) {
	m := &messages{system: req.SystemMessage, userContext: req.UserContextMessage}
	if len(req.Turn.RawMessages) > 0 {
		raw, err := openai.SplitMessages(req.Turn.RawMessages)
		if err != nil {
			return nil, err
		}
		m.raw = raw
		if m.system != "" && len(raw) > 0 && openai.MessageRole(raw[0]) == "system" {
			if m.mergedHead, err = openai.PrependSystemText(raw[0], m.system); err != nil {
				return nil, err
			}
			m.system = ""
		}
		return m, nil
	}
	m.role = req.Turn.Role
	if m.role == "" {
		m.role = defaultRole
	}
	c, err := newContent(&req.Turn)
	if err != nil {
		return nil, err
	}
	m.content = c
	m.history = req.History
	if m.system != "" && len(m.history) > 0 && m.history[0].Role == "system" {
		head := m.history[0]
		if head.Text != "" {
			head.Text = m.system + openai.SystemPromptJoin + head.Text
		} else {
			head.Text = m.system
		}
		m.history = append([]sdk.HistoryEntry{head}, m.history[1:]...)
		m.system = ""
	}
	return m, nil
}

func (m *messages) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	if m.system != "" {
		dst = appendMessageStart(dst, "system")
		dst = openai.AppendString(dst, m.system)
		dst = append(dst, "},"...)
	}
	if m.userContext != "" {
		dst = appendMessageStart(dst, defaultRole)
		dst = openai.AppendString(dst, m.userContext)
		dst = append(dst, "},"...)
	}
	if m.raw != nil {
		return m.appendRaw(dst)
	}
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

// appendRaw writes the verbatim messages (an empty array adds none), the
// first one joined with the system prompt when it was merged.
func (m *messages) appendRaw(dst []byte) ([]byte, error) {
	raw := m.raw
	if m.mergedHead != nil {
		var err error
		if dst, err = m.mergedHead.AppendJSON(dst); err != nil {
			return dst, err
		}
		dst = append(dst, ',')
		raw = raw[1:]
	}
	return openai.CloseWithItems(dst, raw), nil
}

func appendMessageStart(dst []byte, role string) []byte {
	dst = append(dst, `{"role":`...)
	dst = openai.AppendString(dst, role)
	return append(dst, `,"content":`...)
}
