package mockserver

import "testing"

func TestPlanOutput(t *testing.T) {
	const seed = 12345
	cases := []struct {
		name   string
		req    inferenceRequest
		prompt int
		want   outputPlan
	}{
		{"no max: natural length, floor 16", inferenceRequest{model: "m"}, 10,
			outputPlan{content: 16, finish: "stop"}},
		{"empty prompt still answers 16", inferenceRequest{model: "m"}, 0,
			outputPlan{content: 16, finish: "stop"}},
		{"max below natural caps with length", inferenceRequest{model: "m", maxTokens: 10}, 10,
			outputPlan{content: 10, finish: "length"}},
		{"max above natural stops early", inferenceRequest{model: "m", maxTokens: 100}, 10,
			outputPlan{content: 16, finish: "stop"}},
		{"ignore_eos fills max", inferenceRequest{model: "m", maxTokens: 100, ignoreEOS: true}, 10,
			outputPlan{content: 100, finish: "length"}},
		{"min_tokens raises length", inferenceRequest{model: "m", maxTokens: 100, minTokens: 40}, 10,
			outputPlan{content: 40, finish: "stop"}},
		{"min_tokens equal to max", inferenceRequest{model: "m", maxTokens: 60, minTokens: 60}, 10,
			outputPlan{content: 60, finish: "length"}},
		{"min_tokens without max", inferenceRequest{model: "m", minTokens: 50}, 10,
			outputPlan{content: 50, finish: "stop"}},
		{"reasoning default effort, no max", inferenceRequest{model: "qwen3-8b"}, 10,
			outputPlan{reasoning: 250, content: 16, finish: "stop"}},
		{"reasoning name is case-insensitive", inferenceRequest{model: "Qwen/Qwen3-0.6B", reasoningEffort: "high"}, 10,
			outputPlan{reasoning: 500, content: 16, finish: "stop"}},
		{"reasoning low with ignore_eos", inferenceRequest{model: "openai/gpt-oss-20b", reasoningEffort: "low", maxTokens: 1000, ignoreEOS: true}, 10,
			outputPlan{reasoning: 100, content: 900, finish: "length"}},
		{"reasoning capped leaves one content token", inferenceRequest{model: "qwen", reasoningEffort: "high", maxTokens: 300}, 10,
			outputPlan{reasoning: 299, content: 1, finish: "length"}},
		{"max 2 splits one and one", inferenceRequest{model: "gpt-oss", maxTokens: 2}, 10,
			outputPlan{reasoning: 1, content: 1, finish: "length"}},
		{"max 1 is all reasoning", inferenceRequest{model: "gpt-oss", maxTokens: 1}, 10,
			outputPlan{reasoning: 1, content: 0, finish: "length"}},
		{"min_tokens counts reasoning", inferenceRequest{model: "qwen", reasoningEffort: "low", maxTokens: 1000, minTokens: 300}, 10,
			outputPlan{reasoning: 100, content: 200, finish: "stop"}},
		{"unknown effort is medium", inferenceRequest{model: "qwen", reasoningEffort: "extreme", maxTokens: 1000, ignoreEOS: true}, 10,
			outputPlan{reasoning: 250, content: 750, finish: "length"}},
		{"completions never reason", inferenceRequest{kind: kindCompletions, model: "qwen", maxTokens: 20, ignoreEOS: true}, 10,
			outputPlan{content: 20, finish: "length"}},
		{"plain model has no reasoning", inferenceRequest{model: "llama-3", maxTokens: 20, ignoreEOS: true}, 10,
			outputPlan{content: 20, finish: "length"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := planOutput(&tc.req, tc.prompt, seed)
			tc.want.seed = seed
			if got != tc.want {
				t.Fatalf("planOutput = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestNaturalLengthSpansPointEightToOnePointTwo(t *testing.T) {
	cases := []struct{ prompt, lo, hi int }{
		{100, 80, 120},
		{550, 440, 660},
		{15, 16, 18},
		{1, 16, 16},
	}
	for _, tc := range cases {
		seen := map[int]bool{}
		for s := range uint64(5000) {
			n := naturalLength(tc.prompt, promptSeed(string(rune('a'+s%26))+string(rune(s))))
			if n < tc.lo || n > tc.hi {
				t.Fatalf("prompt %d: natural length %d outside [%d, %d]", tc.prompt, n, tc.lo, tc.hi)
			}
			seen[n] = true
		}
		if !seen[tc.lo] || !seen[tc.hi] {
			t.Fatalf("prompt %d: range ends %d/%d never produced (saw %d values)", tc.prompt, tc.lo, tc.hi, len(seen))
		}
	}
}

func TestPromptSeedIsStableAndSensitive(t *testing.T) {
	cases := []struct {
		a, b string
		same bool
	}{
		{"hello", "hello", true},
		{"hello", "hellp", false},
		{"", "\x00", false},
		{"abcdefgh", "abcdefgh ", false},
		{"0123456789abcdef0123", "0123456789abcdef0123", true},
	}
	for _, tc := range cases {
		if got := promptSeed(tc.a) == promptSeed(tc.b); got != tc.same {
			t.Errorf("promptSeed(%q)==promptSeed(%q) is %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	// Pinned value: the output for a prompt must not change between builds
	// or processes (a randomly seeded hash would break this).
	if got, want := promptSeed("The quick brown fox"), uint64(0x67cfc8af44484614); got != want {
		t.Fatalf("promptSeed = %#x, want %#x", got, want)
	}
}
