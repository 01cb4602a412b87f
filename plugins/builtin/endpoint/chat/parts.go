package chat

import (
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// audioPart is one audio clip as an input_audio part carries it.
type audioPart struct {
	data, format string
}

const dataAudioPrefix = "data:audio/"

// parseAudios splits the turn's audio clips into format and base64 data,
// skipping empty ones as AIPerf does. A clip is "<format>,<b64>" (AIPerf's
// internal form) or a data:audio/<format>;base64,<b64> URI, whose format
// defaults to wav; anything without a comma is AIPerf's ValueError.
func parseAudios(audios []string) ([]audioPart, error) {
	if len(audios) == 0 {
		return nil, nil
	}
	out := make([]audioPart, 0, len(audios))
	for i, a := range audios {
		if a == "" {
			continue
		}
		header, data, ok := strings.Cut(a, ",")
		if !ok {
			return nil, fmt.Errorf("audio %d: audio content must be in the format 'format,b64_audio' (got %q, length=%d); "+
				"pass either 'wav,<b64>' or a 'data:audio/<fmt>;base64,<b64>' URI", i, firstRunes(a, 40), len(a))
		}
		format := header
		if rest, isURI := strings.CutPrefix(header, dataAudioPrefix); isURI {
			format, _, _ = strings.Cut(rest, ";")
			if format == "" {
				format = "wav"
			}
		}
		out = append(out, audioPart{data: data, format: format})
	}
	return out, nil
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// content is what the new message's "content" is built from: the turn's
// texts and media, its audios already split.
type content struct {
	texts    []string
	groups   []sdk.TextGroup
	images   []string
	audios   []audioPart
	videos   []string
	hasMedia bool // the turn had media entries, even empty ones
}

func newContent(t *sdk.Turn) (content, error) {
	audios, err := parseAudios(t.Audios)
	if err != nil {
		return content{}, err
	}
	return content{texts: t.Texts, groups: t.TextGroups, images: t.Images, audios: audios, videos: t.Videos,
		hasMedia: len(t.Images) > 0 || len(t.Audios) > 0 || len(t.Videos) > 0}, nil
}

// bareText returns the text that goes out as a plain string: one text
// holding one content and no media (some servers reject a parts list for a
// single text). Texts is one text of AIPerf's; each group another.
func (c *content) bareText() (string, bool) {
	if c.hasMedia {
		return "", false
	}
	switch {
	case len(c.groups) == 0 && len(c.texts) == 1:
		return c.texts[0], true
	case len(c.texts) == 0 && len(c.groups) == 1 && len(c.groups[0].Contents) == 1:
		return c.groups[0].Contents[0], true
	}
	return "", false
}

// appendJSON writes the content: a bare string (see bareText), or parts in
// AIPerf's order: texts (Texts, then each group), images, audios, videos,
// skipping empty strings. No part at all degrades to "" as in AIPerf, since
// servers reject an empty parts list.
func (c *content) appendJSON(dst []byte) []byte {
	if s, ok := c.bareText(); ok {
		return openai.AppendString(dst, s)
	}
	start := len(dst)
	dst = append(dst, '[')
	parts := 0
	next := func() {
		if parts > 0 {
			dst = append(dst, ',')
		}
		parts++
	}
	text := func(s string) {
		if s == "" {
			return
		}
		next()
		dst = append(dst, `{"type":"text","text":`...)
		dst = openai.AppendString(dst, s)
		dst = append(dst, '}')
	}
	for _, s := range c.texts {
		text(s)
	}
	for _, g := range c.groups {
		for _, s := range g.Contents {
			text(s)
		}
	}
	for _, s := range c.images {
		if s != "" {
			next()
			dst = appendURLPart(dst, "image_url", s)
		}
	}
	for _, a := range c.audios {
		next()
		dst = append(dst, `{"type":"input_audio","input_audio":{"data":`...)
		dst = openai.AppendString(dst, a.data)
		dst = append(dst, `,"format":`...)
		dst = openai.AppendString(dst, a.format)
		dst = append(dst, "}}"...)
	}
	for _, s := range c.videos {
		if s != "" {
			next()
			dst = appendURLPart(dst, "video_url", s)
		}
	}
	if parts == 0 {
		return append(dst[:start], `""`...)
	}
	return append(dst, ']')
}

// appendURLPart writes {"type":kind,kind:{"url":url}}.
func appendURLPart(dst []byte, kind, url string) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, kind...)
	dst = append(dst, `","`...)
	dst = append(dst, kind...)
	dst = append(dst, `":{"url":`...)
	dst = openai.AppendString(dst, url)
	return append(dst, "}}"...)
}
