package sdk

import "context"

// Turn is one user message of a conversation, before endpoint formatting.
type Turn struct {
	// Texts are the prompt texts of this turn, in order. Most turns have one.
	Texts []string `json:"texts"`
	// Role of the message author; "user" when empty.
	Role string `json:"role,omitempty"`
	// Model overrides the run's model for this turn (multi-model runs).
	Model string `json:"model,omitempty"`
	// MaxTokens is the requested output length; nil leaves it to the server.
	MaxTokens *int `json:"max_tokens,omitempty"`
	// Extra is merged into this turn's request payload after --extra-inputs.
	Extra map[string]any `json:"extra,omitempty"`
	// DelayMs is the delay before this turn relative to the previous one.
	DelayMs *float64 `json:"delay,omitempty"`
	// TimestampMs is an absolute send offset for trace replay.
	TimestampMs *float64 `json:"timestamp,omitempty"`
}

// IsTrace reports whether a conversation carries trace timestamps.
func (c *Conversation) IsTrace() bool {
	return len(c.Turns) > 0 && c.Turns[0].TimestampMs != nil
}

// Conversation is one dataset entry: a session of one or more turns.
type Conversation struct {
	SessionID string `json:"session_id"`
	Turns     []Turn `json:"turns"`
}

// DatasetOptions are the dataset-related settings a composer receives.
type DatasetOptions struct {
	Models            []string
	NumEntries        int
	InputTokensMean   int
	InputTokensStddev float64
	// OutputTokensMean is 0 when the user did not request an output length.
	OutputTokensMean   int
	OutputTokensStddev float64
	RandomSeed         int64
	Tokenizer          Tokenizer
	// Multi-turn synthetic sessions: turns per session (mean 0 or 1 means
	// single-turn) and the delay before each later turn, in ms. DelayRatio
	// scales every delay (--session-delay-ratio; 0 means 1).
	SessionTurnsMean   int
	SessionTurnsStddev float64
	TurnDelayMeanMs    float64
	TurnDelayStddevMs  float64
	TurnDelayRatio     float64
	// Custom datasets: --input-file, --custom-dataset-type and the hash-id
	// block size (--isl-block-size; 0 = the loader's default).
	InputFile         string
	CustomDatasetType string
	BlockSize         int
}

// CustomDatasetLoader reads a dataset file format (category
// custom_dataset_loader), e.g. mooncake_trace.
type CustomDatasetLoader interface {
	// CanLoad reports whether the file looks like this format, for
	// auto-detection when --custom-dataset-type is not given.
	CanLoad(path string) bool
	Load(ctx context.Context, path string, opts DatasetOptions) ([]Conversation, error)
}

// DatasetComposer builds the conversations a run sends (category dataset_composer).
type DatasetComposer interface {
	Compose(ctx context.Context, opts DatasetOptions) ([]Conversation, error)
}

// Tokenizer counts tokens for ISL/OSL metrics and builds exact-length prompts
// (category tokenizer). Encode never adds special tokens.
type Tokenizer interface {
	Name() string
	Encode(text string) []int
	Decode(ids []int) string
	// Count returns len(Encode(text)) without materializing the ids.
	Count(text string) int
}

// TokenizerSource names a tokenizer to load: a local tokenizer.json file, a
// directory holding one, or a Hugging Face hub repository id.
type TokenizerSource struct {
	// Name is what the user gave (--tokenizer, or the first --model).
	Name     string
	Revision string
	// TrustRemoteCode is accepted for AIPerf compatibility; a tokenizer.json
	// never needs remote code.
	TrustRemoteCode bool
}

// TokenizerLoader is implemented by tokenizer plugins that load a vocabulary
// named at run time (category tokenizer), as opposed to a fixed built-in one.
type TokenizerLoader interface {
	Load(ctx context.Context, src TokenizerSource) (Tokenizer, error)
}
