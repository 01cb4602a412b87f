package responses

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
)

var errVideo = errors.New("the Responses API does not support video input; use --endpoint-type chat for video turns, or remove the video content")

// FormatPayload implements sdk.Endpoint. The body is, in AIPerf's key order:
// input (the history and the turn as message items), model, stream,
// instructions (a leading "system" history entry), max_output_tokens
// (omitted without Turn.MaxTokens), then --extra-inputs and Turn.Extra
// merged over it, then stream_options.include_usage=true only when
// streaming with server token counts (RequestInfo.IncludeUsage): unlike
// chat, AIPerf does not force it on every stream.
func (*Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	model := req.Turn.Model
	if model == "" {
		model = req.Model
	}
	if model == "" {
		return nil, errors.New("responses: format payload: no model (RequestInfo.Model and Turn.Model are empty)")
	}
	if err := checkMedia(&req.Turn); err != nil {
		return nil, fmt.Errorf("responses: format payload: %w", err)
	}
	items := &inputItems{userContext: req.UserContextMessage, turn: &req.Turn}
	instructions := req.SystemMessage
	if len(req.Turn.RawMessages) > 0 {
		raw, err := replayableItems(req.Turn.RawMessages)
		if err != nil {
			return nil, fmt.Errorf("responses: format payload: %w", err)
		}
		items.raw = raw
	} else {
		instructions, items.history = openai.SystemField(instructions, req.History)
	}

	body := openai.NewObject(7 + len(req.ExtraInputs) + len(req.Turn.Extra))
	body.Set("input", items)
	body.Set("model", model)
	body.Set("stream", req.Streaming)
	if instructions != "" {
		body.Set("instructions", instructions)
	}
	if req.Turn.MaxTokens != nil {
		body.Set("max_output_tokens", *req.Turn.MaxTokens)
	}
	if len(req.Turn.RawTools) > 0 {
		body.Set("tools", req.Turn.RawTools)
	}
	openai.ApplyExtras(body, req.ExtraInputs, req.Turn.Extra)
	// Decided on the run's settings, not the merged body (AIPerf's
	// _maybe_enable_usage_stream_options).
	if req.Streaming && req.IncludeUsage {
		ensureIncludeUsage(body)
	}

	out, err := body.AppendJSON(make([]byte, 0, sizeHint(req)))
	if err != nil {
		return nil, fmt.Errorf("responses: format payload: %w", err)
	}
	return out, nil
}

// replayUnsafe are the output item types the Responses API refuses as input
// without their tool configuration or encrypted reasoning: AIPerf drops them
// from a replayed message array.
var replayUnsafe = map[string]bool{
	"web_search_call": true, "file_search_call": true, "image_generation_call": true,
	"code_interpreter_call": true, "computer_call": true, "reasoning": true,
}

// replayableItems splits a verbatim message array into the input items
// AIPerf sends: every item but the replay-unsafe output types.
func replayableItems(raw []byte) ([]json.RawMessage, error) {
	all, err := openai.SplitMessages(raw)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(all))
	for _, it := range all {
		var typed struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(it, &typed)
		if !replayUnsafe[typed.Type] {
			out = append(out, it)
		}
	}
	return out, nil
}

// ensureIncludeUsage is AIPerf's rule: a stream_options that is not an
// object is replaced by {"include_usage":true}; an object gains
// include_usage unless the author set it.
func ensureIncludeUsage(body *openai.Object) {
	if cur, ok := body.Get("stream_options"); ok {
		switch cur.(type) {
		case map[string]any, *openai.Object:
		default:
			body.Set("stream_options", nil)
		}
	}
	openai.EnsureIncludeUsage(body)
}

// checkMedia rejects what the API cannot take before anything is written:
// video parts, and audio that is neither "<format>,<base64>" nor a data URI.
func checkMedia(t *sdk.Turn) error {
	for _, v := range t.Videos {
		if v != "" {
			return errVideo
		}
	}
	for _, a := range t.Audios {
		if a != "" && !strings.Contains(a, ",") {
			return fmt.Errorf("audio content must be \"<format>,<base64>\" or a data:audio/<format>;base64,<base64> URI (got %q, length %d)", head(a, 40), len(a))
		}
	}
	return nil
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// sizeHint estimates the body size so it is built in one allocation.
func sizeHint(req sdk.RequestInfo) int {
	n := 192 + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra) + len(req.SystemMessage) + len(req.UserContextMessage) +
		len(req.Turn.RawMessages) + len(req.Turn.RawTools)
	for _, h := range req.History {
		n += len(h.Text) + 56
	}
	for _, group := range [][]string{req.Turn.Texts, req.Turn.Images, req.Turn.Audios} {
		for _, s := range group {
			n += len(s) + 48
		}
	}
	return n + n/16
}

// inputItems writes the conversation's user context, then the turn's
// verbatim items or the history and the new turn as Responses message items,
// {"role","content","type":"message"}, straight into the body.
type inputItems struct {
	userContext string
	raw         []json.RawMessage
	history     []sdk.HistoryEntry
	turn        *sdk.Turn
}

var _ openai.Appender = (*inputItems)(nil)

func (in *inputItems) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	if in.userContext != "" {
		dst = appendItemStart(dst, defaultRole)
		dst = openai.AppendString(dst, in.userContext)
		dst = append(dst, `,"type":"message"},`...)
	}
	if in.raw != nil {
		return openai.CloseWithItems(dst, in.raw), nil
	}
	for _, h := range in.history {
		dst = appendItemStart(dst, h.Role)
		dst = openai.AppendString(dst, h.Text)
		dst = append(dst, `,"type":"message"},`...)
	}
	dst = appendItemStart(dst, in.turn.Role)
	dst = appendContent(dst, in.turn)
	return append(dst, `,"type":"message"}]`...), nil
}

func appendItemStart(dst []byte, role string) []byte {
	if role == "" {
		role = defaultRole
	}
	dst = append(dst, `{"role":`...)
	dst = openai.AppendString(dst, role)
	return append(dst, `,"content":`...)
}

// appendContent writes a bare text (see openai.BareText) as a plain string (some
// servers reject a parts list for one text), else the parts in AIPerf's
// order: texts, images, audios, each empty one skipped; no part at all
// degrades to "". checkMedia has already rejected video.
func appendContent(dst []byte, t *sdk.Turn) []byte {
	if s, ok := openai.BareText(t); ok {
		return openai.AppendString(dst, s)
	}
	start := len(dst)
	dst = append(dst, '[')
	parts := 0
	sep := func() {
		if parts > 0 {
			dst = append(dst, ',')
		}
		parts++
	}
	for s := range openai.TextContents(t) {
		if s != "" {
			sep()
			dst = append(dst, `{"type":"input_text","text":`...)
			dst = openai.AppendString(dst, s)
			dst = append(dst, '}')
		}
	}
	for _, s := range t.Images {
		if s != "" {
			sep()
			// The Responses API takes image_url as a plain string.
			dst = append(dst, `{"type":"input_image","image_url":`...)
			dst = openai.AppendString(dst, s)
			dst = append(dst, '}')
		}
	}
	for _, s := range t.Audios {
		if s != "" {
			sep()
			dst = appendAudioPart(dst, s)
		}
	}
	if parts == 0 {
		return append(dst[:start], `""`...)
	}
	return append(dst, ']')
}

// appendAudioPart writes chat's input_audio part from "<format>,<base64>"
// or a data:audio/<format>;base64, URI (format "wav" when the URI names
// none).
func appendAudioPart(dst []byte, s string) []byte {
	var format, data string
	if rest, ok := strings.CutPrefix(s, "data:audio/"); ok {
		header, b64, _ := strings.Cut(rest, ",")
		format, _, _ = strings.Cut(header, ";")
		if format == "" {
			format = "wav"
		}
		data = b64
	} else {
		format, data, _ = strings.Cut(s, ",")
	}
	dst = append(dst, `{"type":"input_audio","input_audio":{"data":`...)
	dst = openai.AppendString(dst, data)
	dst = append(dst, `,"format":`...)
	dst = openai.AppendString(dst, format)
	return append(dst, "}}"...)
}
