package sdk

import (
	"context"
	"encoding/json"
)

// Turn is one user message of a conversation, before endpoint formatting.
type Turn struct {
	// Texts are the prompt texts of this turn, in order. Most turns have
	// one; a batch (--batch-size-text) has several.
	Texts []string `json:"texts"`
	// TextGroups are named texts beyond Texts (AIPerf's Text.name): a
	// rankings turn carries "query" and "passages"; dataset files may name
	// any group, which a template endpoint can address by name.
	TextGroups []TextGroup `json:"text_groups,omitempty"`
	// Images are the turn's images, each a data URI
	// (data:image/jpeg;base64,...) or a URL.
	Images []string `json:"images,omitempty"`
	// Audios are the turn's audio clips, each "<format>,<base64>" (AIPerf's
	// form: "wav,UklGR...") or a URL.
	Audios []string `json:"audios,omitempty"`
	// Videos are the turn's videos, each a data URI
	// (data:video/webm;base64,...) or a URL.
	Videos []string `json:"videos,omitempty"`
	// AudioDurationS is the length in seconds of the turn's first audio
	// clip (audio_duration and rtfx); nil when unknown.
	AudioDurationS *float64 `json:"audio_duration_s,omitempty"`
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
	// RawMessages is a complete message array (a JSON array of objects with
	// a "role") sent verbatim in place of this turn's rendered message and
	// of the conversation's history: the turn carries its own context
	// (mooncake "messages" records; AIPerf's raw_messages under
	// message_array_with_responses). Only endpoints with
	// EndpointMetadata.SendsRawMessages accept it.
	RawMessages json.RawMessage `json:"raw_messages,omitempty"`
	// RawTools is a JSON array of tool definitions sent as the body's
	// "tools" with RawMessages.
	RawTools json.RawMessage `json:"raw_tools,omitempty"`
	// RawPayload is a complete request body (a JSON object) sent as is,
	// bypassing the endpoint's formatting (mooncake "payload" records).
	RawPayload json.RawMessage `json:"raw_payload,omitempty"`
}

// TextGroup is a named list of texts of a turn.
type TextGroup struct {
	Name     string   `json:"name"`
	Contents []string `json:"contents"`
}

// Group returns the contents of the turn's text group name (nil if none).
func (t *Turn) Group(name string) []string {
	for _, g := range t.TextGroups {
		if g.Name == name {
			return g.Contents
		}
	}
	return nil
}

// Text group names AIPerf's rankings endpoints route by.
const (
	TextGroupQuery    = "query"
	TextGroupPassages = "passages"
)

// IsTrace reports whether a conversation carries trace timestamps.
func (c *Conversation) IsTrace() bool {
	return len(c.Turns) > 0 && c.Turns[0].TimestampMs != nil
}

// Conversation is one dataset entry: a session of one or more turns.
type Conversation struct {
	SessionID string `json:"session_id"`
	Turns     []Turn `json:"turns"`
	// SystemMessage and UserContextMessage reach every request of the
	// conversation through RequestInfo (AIPerf's Conversation fields of the
	// same names); "" for none.
	SystemMessage      string `json:"system_message,omitempty"`
	UserContextMessage string `json:"user_context_message,omitempty"`
}

// DatasetOptions are the dataset settings every composer and loader may
// use. Settings only one plugin reads are that plugin's own configuration
// (sdk.Configurable), not fields here: the synthetic composer's session
// shape (dataset_composer.synthetic: session_turns_mean, ...) and the
// mooncake_trace loader's hash-id block size
// (custom_dataset_loader.mooncake_trace: block_size).
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
	// TurnDelayRatio scales every turn delay, synthetic or read from a file
	// (--session-delay-ratio; 0 means 1).
	TurnDelayRatio float64
	// Custom datasets: --input-file and --custom-dataset-type.
	InputFile         string
	CustomDatasetType string
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

// NamedLoader is a custom_dataset_loader plugin with its registered name
// (the --custom-dataset-type value that selects it).
type NamedLoader struct {
	Name   string
	Loader CustomDatasetLoader
}

// LoaderUser is implemented by composers that read dataset files with the
// custom_dataset_loader plugins. Before Compose the core hands them a source
// of every registered loader, in declaration order (built-ins first,
// external plugins included), built and started only when called.
type LoaderUser interface {
	UseLoaders(source func() ([]NamedLoader, error))
}
