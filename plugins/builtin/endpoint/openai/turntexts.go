package openai

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// TurnTexts returns every non-empty text content of the turn: Texts, then
// each TextGroup's contents in order. It is AIPerf's
// `[c for text in turn.texts for c in text.contents if c]`, which reads
// texts of every name (embeddings, TGI, Solido).
func TurnTexts(t *sdk.Turn) []string {
	n := len(t.Texts)
	for _, g := range t.TextGroups {
		n += len(g.Contents)
	}
	out := make([]string, 0, n)
	for _, s := range t.Texts {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, g := range t.TextGroups {
		for _, s := range g.Contents {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// TurnModel returns the turn's model, else the run's.
func TurnModel(req *sdk.RequestInfo) string {
	if req.Turn.Model != "" {
		return req.Turn.Model
	}
	return req.Model
}

// BareText returns the text sent as a plain string: the turn's only text,
// holding one content, and no media. Texts is one text of AIPerf's, each
// TextGroup another (as the chat endpoint reads them).
func BareText(t *sdk.Turn) (string, bool) {
	if len(t.Images) > 0 || len(t.Audios) > 0 || len(t.Videos) > 0 {
		return "", false
	}
	switch {
	case len(t.TextGroups) == 0 && len(t.Texts) == 1:
		return t.Texts[0], true
	case len(t.Texts) == 0 && len(t.TextGroups) == 1 && len(t.TextGroups[0].Contents) == 1:
		return t.TextGroups[0].Contents[0], true
	}
	return "", false
}

// TextContents are the turn's text contents in AIPerf's order: Texts, then each
// TextGroup's.
func TextContents(t *sdk.Turn) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for _, s := range t.Texts {
			if !yield(s) {
				return
			}
		}
		for _, g := range t.TextGroups {
			for _, s := range g.Contents {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// FirstText is the turn's first text content (AIPerf's
// turn.texts[0].contents[0]), the one prompt of an image or video request.
func FirstText(t *sdk.Turn) (string, bool) {
	if len(t.Texts) > 0 {
		return t.Texts[0], true
	}
	if len(t.TextGroups) > 0 && len(t.TextGroups[0].Contents) > 0 {
		return t.TextGroups[0].Contents[0], true
	}
	return "", false
}
