package messages

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

const (
	defaultRole = "user"
	// defaultMaxTokens is sent without a requested output length: the API
	// requires max_tokens (AIPerf's default).
	defaultMaxTokens = 1024
	// defaultImageType is the media type of a data URI that names none.
	defaultImageType = "image/png"
)

var (
	errAudio = errors.New("the Anthropic Messages API does not support audio input; use another endpoint, or remove the audio content")
	errVideo = errors.New("the Anthropic Messages API does not support video input; use another endpoint, or remove the video content")
)

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's key order:
// model, messages (the history and the turn), max_tokens (Turn.MaxTokens,
// else 1024), stream (only when streaming: real clients omit it
// otherwise), system (a leading "system" history entry), then
// --extra-inputs and Turn.Extra merged over it. There are no
// stream_options: Anthropic streams its usage anyway.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	model := req.Turn.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		return nil, errors.New("messages: format payload: no model (RequestInfo.Model and Turn.Model are empty)")
	}
	if err := checkMedia(&req.Turn); err != nil {
		return nil, fmt.Errorf("messages: format payload: %w", err)
	}
	list := &messageList{userContext: req.UserContextMessage, turn: &req.Turn}
	system := req.SystemMessage
	if len(req.Turn.RawMessages) > 0 {
		raw, err := openai.SplitMessages(req.Turn.RawMessages)
		if err != nil {
			return nil, fmt.Errorf("messages: format payload: %w", err)
		}
		list.raw = raw
	} else {
		system, list.history = openai.SystemField(system, req.History)
	}

	body := openai.NewObject(6 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("model", model)
	body.Set("messages", list)
	maxTokens := defaultMaxTokens
	if req.Turn.MaxTokens != nil {
		maxTokens = *req.Turn.MaxTokens
	}
	body.Set("max_tokens", maxTokens)
	if req.Streaming {
		body.Set("stream", true)
	}
	if system != "" {
		body.Set("system", system)
	}
	if len(req.Turn.RawTools) > 0 {
		body.Set("tools", req.Turn.RawTools)
	}
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)

	out, err := body.AppendJSON(make([]byte, 0, sizeHint(req)))
	if err != nil {
		return nil, fmt.Errorf("messages: format payload: %w", err)
	}
	return out, nil
}

// checkMedia rejects the media the API has no content block for. Empty
// entries are skipped like any empty part, as in AIPerf.
func checkMedia(t *sdk.Turn) error {
	for _, a := range t.Audios {
		if a != "" {
			return errAudio
		}
	}
	for _, v := range t.Videos {
		if v != "" {
			return errVideo
		}
	}
	return nil
}

// sizeHint estimates the body size so it is built in one allocation.
func sizeHint(req sdk.RequestInfo) int {
	n := 160 + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra) + len(req.SystemMessage) + len(req.UserContextMessage) +
		len(req.Turn.RawMessages) + len(req.Turn.RawTools)
	for _, h := range req.History {
		n += len(h.Text) + 40
	}
	for _, group := range [][]string{req.Turn.Texts, req.Turn.Images} {
		for _, s := range group {
			n += len(s) + 80
		}
	}
	return n + n/16
}

// messageList writes the conversation's user context, then the turn's
// verbatim messages or the history and the new turn as {"role","content"}
// messages, straight into the body.
type messageList struct {
	userContext string
	raw         []json.RawMessage
	history     []sdk.HistoryEntry
	turn        *sdk.Turn
}

var _ openai.Appender = (*messageList)(nil)

func (m *messageList) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	if m.userContext != "" {
		dst = appendMessageStart(dst, defaultRole)
		dst = openai.AppendString(dst, m.userContext)
		dst = append(dst, "},"...)
	}
	if m.raw != nil {
		return openai.CloseWithItems(dst, m.raw), nil
	}
	for _, h := range m.history {
		dst = appendMessageStart(dst, h.Role)
		dst = openai.AppendString(dst, h.Text)
		dst = append(dst, "},"...)
	}
	dst = appendMessageStart(dst, m.turn.Role)
	dst = appendContent(dst, m.turn)
	return append(dst, "}]"...), nil
}

func appendMessageStart(dst []byte, role string) []byte {
	if role == "" {
		role = defaultRole
	}
	dst = append(dst, `{"role":`...)
	dst = openai.AppendString(dst, role)
	return append(dst, `,"content":`...)
}

// appendContent writes a bare text (see openai.BareText) as a plain string, else
// text blocks then image blocks, each empty one skipped; no block at all
// degrades to "". checkMedia has already rejected audio and video.
func appendContent(dst []byte, t *sdk.Turn) []byte {
	if s, ok := openai.BareText(t); ok {
		return openai.AppendString(dst, s)
	}
	start := len(dst)
	dst = append(dst, '[')
	blocks := 0
	for s := range openai.TextContents(t) {
		if s == "" {
			continue
		}
		if blocks > 0 {
			dst = append(dst, ',')
		}
		blocks++
		dst = append(dst, `{"type":"text","text":`...)
		dst = openai.AppendString(dst, s)
		dst = append(dst, '}')
	}
	for _, s := range t.Images {
		if s == "" {
			continue
		}
		if blocks > 0 {
			dst = append(dst, ',')
		}
		blocks++
		dst = appendImageBlock(dst, s)
	}
	if blocks == 0 {
		return append(dst[:start], `""`...)
	}
	return append(dst, ']')
}

// appendImageBlock writes a data URI as a base64 source with its media type
// and anything else as a url source.
func appendImageBlock(dst []byte, s string) []byte {
	rest, isData := strings.CutPrefix(s, "data:")
	if !isData {
		dst = append(dst, `{"type":"image","source":{"type":"url","url":`...)
		dst = openai.AppendString(dst, s)
		return append(dst, "}}"...)
	}
	header, b64, _ := strings.Cut(rest, ",")
	mediaType, _, _ := strings.Cut(header, ";")
	if mediaType == "" {
		mediaType = defaultImageType
	}
	dst = append(dst, `{"type":"image","source":{"type":"base64","media_type":`...)
	dst = openai.AppendString(dst, mediaType)
	dst = append(dst, `,"data":`...)
	dst = openai.AppendString(dst, b64)
	return append(dst, "}}"...)
}
