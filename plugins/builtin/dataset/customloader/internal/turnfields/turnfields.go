// Package turnfields parses the per-turn fields that AIPerf's single_turn
// records and multi_turn "turns" entries share, with AIPerf's validation:
// text/texts and timestamp/delay are mutually exclusive (by truthiness, as
// in AIPerf), a turn needs some text, and output_length must be positive.
// Media fields are recognised but not supported yet.
package turnfields

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Fields is one turn as written in the file. Media fields are kept raw only
// to detect them.
type Fields struct {
	Text         *string         `json:"text"`
	Texts        json.RawMessage `json:"texts"`
	Timestamp    *float64        `json:"timestamp"`
	Delay        *float64        `json:"delay"`
	Role         *string         `json:"role"`
	SessionID    *string         `json:"session_id"`
	OutputLength *int            `json:"output_length"`
	Extra        map[string]any  `json:"extra"`

	Image      json.RawMessage `json:"image"`
	Images     json.RawMessage `json:"images"`
	ImageUUIDs json.RawMessage `json:"image_uuids"`
	Audio      json.RawMessage `json:"audio"`
	Audios     json.RawMessage `json:"audios"`
	Video      json.RawMessage `json:"video"`
	Videos     json.RawMessage `json:"videos"`
}

// namedTexts is AIPerf's {"name": ..., "contents": [...]} form of texts.
type namedTexts struct {
	Name     string   `json:"name"`
	Contents []string `json:"contents"`
}

// Turn validates the fields and returns the turn. Errors name the field but
// not the location; callers add file:line.
func (f *Fields) Turn() (sdk.Turn, error) {
	if err := f.rejectMedia(); err != nil {
		return sdk.Turn{}, err
	}
	texts, err := f.texts()
	if err != nil {
		return sdk.Turn{}, err
	}
	if f.Timestamp != nil && f.Delay != nil && *f.Timestamp != 0 && *f.Delay != 0 {
		return sdk.Turn{}, errors.New("timestamp and delay cannot be set together")
	}
	if f.OutputLength != nil && *f.OutputLength < 1 {
		return sdk.Turn{}, fmt.Errorf("output_length: %d, must be greater than 0", *f.OutputLength)
	}
	t := sdk.Turn{
		Texts:       texts,
		MaxTokens:   f.OutputLength,
		Extra:       f.Extra,
		DelayMs:     f.Delay,
		TimestampMs: f.Timestamp,
	}
	if f.Role != nil {
		t.Role = *f.Role
	}
	return t, nil
}

func (f *Fields) rejectMedia() error {
	media := []struct {
		name string
		raw  json.RawMessage
	}{
		{"image", f.Image}, {"images", f.Images}, {"image_uuids", f.ImageUUIDs},
		{"audio", f.Audio}, {"audios", f.Audios}, {"video", f.Video}, {"videos", f.Videos},
	}
	for _, m := range media {
		if present(m.raw) {
			return fmt.Errorf("%s: image, audio and video inputs are not supported yet", m.name)
		}
	}
	return nil
}

// texts returns the turn's texts: text, or texts as a list of strings or of
// {name, contents} objects (contents flattened in order).
func (f *Fields) texts() ([]string, error) {
	hasText := f.Text != nil && *f.Text != ""
	var list []string
	if present(f.Texts) {
		var err error
		if list, err = parseTexts(f.Texts); err != nil {
			return nil, err
		}
	}
	switch {
	case hasText && len(list) > 0:
		return nil, errors.New("text and texts cannot be set together")
	case hasText:
		return []string{*f.Text}, nil
	case len(list) > 0:
		return list, nil
	}
	return nil, errors.New(`no input: set "text" or "texts"`)
}

func parseTexts(raw json.RawMessage) ([]string, error) {
	var plain []string
	if json.Unmarshal(raw, &plain) == nil {
		return nonEmpty(plain), nil
	}
	var named []namedTexts
	if err := json.Unmarshal(raw, &named); err != nil {
		return nil, errors.New(`texts: want a list of strings or of {"name", "contents"} objects`)
	}
	var out []string
	for _, n := range named {
		out = append(out, n.Contents...)
	}
	return nonEmpty(out), nil
}

// nonEmpty drops empty strings, which would become empty messages.
func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// present reports a field that carries something: AIPerf tests fields by
// truthiness, so null, "" and [] count as absent.
func present(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", `""`, "[]":
		return false
	}
	return true
}
