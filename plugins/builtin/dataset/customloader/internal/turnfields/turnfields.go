// Package turnfields parses the per-turn fields that AIPerf's single_turn
// records and multi_turn "turns" entries share (dataset/loader/models.py
// SingleTurn), with AIPerf's validation: text/texts, image/images,
// audio/audios, video/videos and timestamp/delay are mutually exclusive (by
// truthiness, as in AIPerf), a turn needs at least one of the text or media
// fields, and output_length must be positive.
//
// Plural fields hold plain strings or {"name", "contents"} objects. Texts
// without a name (or named "text") are Turn.Texts; named ones are
// Turn.TextGroups (rankings' "query" and "passages", template names), one
// group per name in order of first appearance. Media strings go through
// the media package's Encode functions (MediaConversionMixin): data URIs,
// "wav,<base64>" audio and URLs pass through, local files are read and
// encoded, and errors name the media file.
//
// Choices where AIPerf differs, on purpose:
//   - Media given as {"name", "contents"} objects are encoded like plain
//     strings; AIPerf sends their contents as written, so a local path
//     would reach the server as a path. Their names are dropped (a turn's
//     media are not named).
//   - image_uuids (a vLLM extension) is refused: a turn has no field for
//     image cache ids.
//   - Empty strings in texts are dropped, as before (they would become
//     empty messages).
package turnfields

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/media"
)

// Fields is one turn as written in the file. Plural fields are kept raw:
// each may be a list of strings or of named objects.
type Fields struct {
	Text         *string         `json:"text"`
	Texts        json.RawMessage `json:"texts"`
	Image        *string         `json:"image"`
	Images       json.RawMessage `json:"images"`
	ImageUUIDs   json.RawMessage `json:"image_uuids"`
	Audio        *string         `json:"audio"`
	Audios       json.RawMessage `json:"audios"`
	Video        *string         `json:"video"`
	Videos       json.RawMessage `json:"videos"`
	Timestamp    *float64        `json:"timestamp"`
	Delay        *float64        `json:"delay"`
	Role         *string         `json:"role"`
	SessionID    *string         `json:"session_id"`
	OutputLength *int            `json:"output_length"`
	Extra        map[string]any  `json:"extra"`
}

// named is AIPerf's {"name": ..., "contents": [...]} form of a plural field
// (its Text, Image, Audio and Video models).
type named struct {
	Name     string   `json:"name"`
	Contents []string `json:"contents"`
}

// Turn validates the fields, encodes the media and returns the turn.
// Errors name the field (and a media file) but not the location; callers
// add file:line.
func (f *Fields) Turn() (sdk.Turn, error) {
	if err := f.check(); err != nil {
		return sdk.Turn{}, err
	}
	texts, groups, err := f.texts()
	if err != nil {
		return sdk.Turn{}, err
	}
	t := sdk.Turn{
		Texts:       texts,
		TextGroups:  groups,
		MaxTokens:   f.OutputLength,
		Extra:       f.Extra,
		DelayMs:     f.Delay,
		TimestampMs: f.Timestamp,
	}
	if t.Images, err = mediaList("image", "images", f.Image, f.Images, media.EncodeImage); err != nil {
		return sdk.Turn{}, err
	}
	// AIPerf's file loaders leave the audio duration unset (only synthetic
	// audio and ASR datasets report it), so it is not read here either.
	encodeAudio := func(ref string) (string, error) {
		s, _, err := media.EncodeAudio(ref)
		return s, err
	}
	if t.Audios, err = mediaList("audio", "audios", f.Audio, f.Audios, encodeAudio); err != nil {
		return sdk.Turn{}, err
	}
	if t.Videos, err = mediaList("video", "videos", f.Video, f.Videos, media.EncodeVideo); err != nil {
		return sdk.Turn{}, err
	}
	if f.Role != nil {
		t.Role = *f.Role
	}
	return t, nil
}

// check applies AIPerf's model validators, in its order.
func (f *Fields) check() error {
	for _, p := range []struct {
		one, many string
		hasOne    bool
		plural    json.RawMessage
	}{
		{"text", "texts", truthy(f.Text), f.Texts},
		{"image", "images", truthy(f.Image), f.Images},
		{"audio", "audios", truthy(f.Audio), f.Audios},
		{"video", "videos", truthy(f.Video), f.Videos},
	} {
		if p.hasOne && present(p.plural) {
			return fmt.Errorf("%s and %s cannot be set together", p.one, p.many)
		}
	}
	if f.Timestamp != nil && f.Delay != nil && *f.Timestamp != 0 && *f.Delay != 0 {
		return errors.New("timestamp and delay cannot be set together")
	}
	if present(f.ImageUUIDs) {
		return errors.New("image_uuids: image cache ids are not supported (remove the field to send the images without them)")
	}
	if !truthy(f.Text) && !present(f.Texts) && !truthy(f.Image) && !present(f.Images) &&
		!truthy(f.Audio) && !present(f.Audios) && !truthy(f.Video) && !present(f.Videos) {
		return errors.New("no input: set at least one of text, texts, image, images, audio, audios, video, videos")
	}
	if f.OutputLength != nil && *f.OutputLength < 1 {
		return fmt.Errorf("output_length: %d, must be greater than 0", *f.OutputLength)
	}
	return nil
}

// texts returns the turn's unnamed texts (text, plain texts, or texts named
// "" or "text") and its named text groups.
func (f *Fields) texts() ([]string, []sdk.TextGroup, error) {
	if truthy(f.Text) {
		return []string{*f.Text}, nil, nil
	}
	if !present(f.Texts) {
		return nil, nil, nil
	}
	groups, err := parsePlural("texts", f.Texts)
	if err != nil {
		return nil, nil, err
	}
	var plain []string
	var named []sdk.TextGroup
	for _, g := range groups {
		contents := nonEmpty(g.Contents)
		if g.Name == "" || g.Name == "text" {
			plain = append(plain, contents...)
			continue
		}
		i := indexOf(named, g.Name)
		if i < 0 {
			named = append(named, sdk.TextGroup{Name: g.Name})
			i = len(named) - 1
		}
		named[i].Contents = append(named[i].Contents, contents...)
	}
	return plain, named, nil
}

func indexOf(groups []sdk.TextGroup, name string) int {
	for i, g := range groups {
		if g.Name == name {
			return i
		}
	}
	return -1
}

// mediaList encodes the singular field, or every entry of the plural one.
func mediaList(one, many string, single *string, plural json.RawMessage, encode func(string) (string, error)) ([]string, error) {
	var refs []string
	field := one
	switch {
	case truthy(single):
		refs = []string{*single}
	case present(plural):
		groups, err := parsePlural(many, plural)
		if err != nil {
			return nil, err
		}
		field = many
		for _, g := range groups {
			refs = append(refs, g.Contents...)
		}
	}
	if len(refs) == 0 {
		return nil, nil
	}
	out := make([]string, len(refs))
	for i, ref := range refs {
		s, err := encode(ref)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		out[i] = s
	}
	return out, nil
}

// parsePlural reads a plural field: a list of strings (one unnamed group)
// or a list of {"name", "contents"} objects.
func parsePlural(field string, raw json.RawMessage) ([]named, error) {
	var plain []string
	if json.Unmarshal(raw, &plain) == nil {
		return []named{{Contents: plain}}, nil
	}
	var groups []named
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, fmt.Errorf(`%s: want a list of strings or of {"name", "contents"} objects`, field)
	}
	return groups, nil
}

// nonEmpty drops empty strings, which would become empty messages.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// truthy is Python's truthiness of an optional string.
func truthy(s *string) bool { return s != nil && *s != "" }

// present reports a field that carries something: AIPerf tests fields by
// truthiness, so null, "" and [] count as absent.
func present(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", `""`, "[]":
		return false
	}
	return true
}
