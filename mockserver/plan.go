package mockserver

import (
	"encoding/binary"
	"strings"
)

// Reasoning budgets per reasoning_effort, as in AIPerf's mock server.
const (
	reasoningLow    = 100
	reasoningMedium = 250
	reasoningHigh   = 500
)

// minNaturalTokens is the floor of the uncapped output length.
const minNaturalTokens = 16

// Salts separate the independent deterministic streams derived from one prompt.
const (
	saltLength    = 0x6c656e677468 // "length"
	saltContent   = 0x636f6e74656e // "conten"
	saltReasoning = 0x726561736f6e // "reason"
)

// promptSeed is the stable seed of the output walk: identical prompts give
// identical outputs across runs and processes (unlike maphash, which is
// randomly seeded per process). It mixes 8 bytes at a time without copying.
func promptSeed(text string) uint64 {
	h := uint64(len(text)) * golden
	i := 0
	for ; i+8 <= len(text); i += 8 {
		h = mix64(h ^ binary.LittleEndian.Uint64([]byte(text[i:i+8])))
	}
	var tail uint64
	for j := len(text) - 1; j >= i; j-- {
		tail = tail<<8 | uint64(text[j])
	}
	return mix64(h ^ tail ^ golden)
}

// outputPlan is how many tokens of each kind a request produces.
type outputPlan struct {
	seed      uint64
	reasoning int
	content   int
	finish    string // "stop" or "length"
}

func (p outputPlan) total() int { return p.reasoning + p.content }

// isReasoningModel matches AIPerf's rule: "qwen" or "gpt-oss" in the name.
func isReasoningModel(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "qwen") || strings.Contains(m, "gpt-oss")
}

func reasoningBudget(effort string) int {
	switch effort {
	case "low":
		return reasoningLow
	case "high":
		return reasoningHigh
	default: // "medium", absent or unknown, as AIPerf does
		return reasoningMedium
	}
}

// naturalLength is the length the "model" would stop at on its own:
// 0.8–1.2× the prompt, at least minNaturalTokens, chosen by the prompt hash.
func naturalLength(promptTokens int, seed uint64) int {
	lo := max(promptTokens*8/10, minNaturalTokens)
	hi := max(promptTokens*12/10, minNaturalTokens)
	return lo + int(mix64(seed^saltLength)%uint64(hi-lo+1))
}

// planOutput decides the reasoning and content lengths of a request.
//
// max_tokens caps reasoning plus content together (as in OpenAI usage, where
// completion_tokens includes reasoning). Reasoning takes its effort budget
// first, as in AIPerf's mock, but — unlike AIPerf, which can leave zero
// content tokens — it leaves at least one content token whenever
// max_tokens >= 2, so a capped reasoning request still has a first output
// token. With max_tokens == 1 the single token is reasoning, as in AIPerf.
// Without max_tokens reasoning gets its full budget and content its natural
// length. min_tokens raises the total; ignore_eos fills the cap exactly.
// Only chat requests reason: completions has no reasoning_content field.
func planOutput(req *inferenceRequest, promptTokens int, seed uint64) outputPlan {
	p := outputPlan{seed: seed, finish: "stop"}
	if req.kind == kindChat && isReasoningModel(req.model) {
		p.reasoning = reasoningBudget(req.reasoningEffort)
		switch {
		case req.maxTokens >= 2:
			p.reasoning = min(p.reasoning, req.maxTokens-1)
		case req.maxTokens == 1:
			p.reasoning = 1
		}
	}
	natural := naturalLength(promptTokens, p.seed)
	if req.maxTokens == 0 {
		p.content = max(natural, req.minTokens-p.reasoning)
		return p
	}
	room := req.maxTokens - p.reasoning
	switch {
	case req.ignoreEOS:
		p.content = room
	default:
		p.content = min(max(natural, req.minTokens-p.reasoning), room)
	}
	if p.total() == req.maxTokens {
		p.finish = "length"
	}
	return p
}
