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
