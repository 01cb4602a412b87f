// Package base holds what every public dataset loader shares: the settings
// AIPerf's plugins.yaml metadata gives each dataset, vLLM's sequence-length
// filter, ShareGPT-style prompt/completion pairing, seeded session ids and
// the conversation cap of streamed datasets.
package base

import (
	"math/rand/v2"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// Settings are the settings of every public dataset loader, by AIPerf's
// metadata names (plugins.yaml config:, --plugin-config
// public_dataset_loader.<name>.<key>=<value>). Families add their own
// columns next to them.
type Settings struct {
	// HFDatasetName is the hub dataset repo ("org/name").
	HFDatasetName string `json:"hf_dataset_name,omitempty"`
	// HFSplit is the split read ("train" when empty).
	HFSplit string `json:"hf_split,omitempty"`
	// HFSubset is the dataset config ("default" when empty); --hf-subset
	// overrides it.
	HFSubset string `json:"hf_subset,omitempty"`
	// Streaming: AIPerf streams these datasets and stops after
	// MaxConversations conversations.
	Streaming bool `json:"streaming,omitempty"`
	// MaxConversations is set by the core from the run's counts (the
	// request count, else the entry count); 0 means no cap. Only streamed
	// datasets honour it, as in AIPerf.
	MaxConversations int `json:"max_conversations,omitempty"`
}

// Split is the split read: HFSplit, or "train".
func (s Settings) Split() string {
	if s.HFSplit == "" {
		return "train"
	}
	return s.HFSplit
}

// Config is the hub dataset config read: HFSubset, or "default".
func (s Settings) Config() string {
	if s.HFSubset == "" {
		return "default"
	}
	return s.HFSubset
}

// Cap is how many conversations a loader builds at most (0: all): AIPerf's
// _max_conversations, which caps only streamed datasets.
func (s Settings) Cap() int {
	if !s.Streaming {
		return 0
	}
	return s.MaxConversations
}

// Full reports whether n conversations reach the cap.
func (s Settings) Full(n int) bool {
	c := s.Cap()
	return c > 0 && n >= c
}

// vLLM's benchmark filter (vllm/benchmarks/benchmark_dataset.py), as
// AIPerf's is_valid_sequence applies it.
const (
	MinSeqLen    = 4
	MaxPromptLen = 1024
	MaxTotalLen  = 2048
)

// IsValidSequence is AIPerf's is_valid_sequence with its defaults: the
// prompt has 4 to 1024 tokens, the completion at least 4 (unless
// skipMinOutput), and both together at most 2048.
func IsValidSequence(promptLen, outputLen int, skipMinOutput bool) bool {
	return promptLen >= MinSeqLen && promptLen <= MaxPromptLen &&
		(skipMinOutput || outputLen >= MinSeqLen) &&
		promptLen+outputLen <= MaxTotalLen
}

// SessionIDs returns a generator of session ids drawn from the run's seed,
// the same way the custom dataset loaders draw theirs.
func SessionIDs(seed int64) func() string {
	r := sample.NewStream(seed, "dataset.session_id")
	return func() string { return sample.NewUUID(r) }
}

// NewStream is sample.NewStream, for loaders outside the dataset tree's
// internal packages.
func NewStream(seed int64, name string) *rand.Rand { return sample.NewStream(seed, name) }
