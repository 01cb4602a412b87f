package openai

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// RawUsage is the "usage" object as vendors send it, with the synonyms AIPerf
// normalizes (OpenAI chat/completions names and Responses/Anthropic names).
// Pointers keep "absent" apart from a reported 0.
type RawUsage struct {
	PromptTokens            *int          `json:"prompt_tokens"`
	InputTokens             *int          `json:"input_tokens"`
	CompletionTokens        *int          `json:"completion_tokens"`
	OutputTokens            *int          `json:"output_tokens"`
	TotalTokens             *int          `json:"total_tokens"`
	CompletionTokensDetails *TokenDetails `json:"completion_tokens_details"`
	OutputTokensDetails     *TokenDetails `json:"output_tokens_details"`
}

// TokenDetails is a *_tokens_details object.
type TokenDetails struct {
	ReasoningTokens *int `json:"reasoning_tokens"`
}

// Normalize maps the vendor fields onto sdk.Usage. It returns nil when no
// known field was present (AIPerf treats an empty usage as none). The total
// is never synthesized.
func (u *RawUsage) Normalize() *sdk.Usage {
	if u == nil {
		return nil
	}
	out := sdk.Usage{
		PromptTokens:     firstSet(u.PromptTokens, u.InputTokens),
		CompletionTokens: firstSet(u.CompletionTokens, u.OutputTokens),
		TotalTokens:      u.TotalTokens,
	}
	if u.CompletionTokensDetails != nil {
		out.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	}
	if out.ReasoningTokens == nil && u.OutputTokensDetails != nil {
		out.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
	}
	if out.PromptTokens == nil && out.CompletionTokens == nil && out.TotalTokens == nil && out.ReasoningTokens == nil {
		return nil
	}
	return &out
}

func firstSet(a, b *int) *int {
	if a != nil {
		return a
	}
	return b
}
