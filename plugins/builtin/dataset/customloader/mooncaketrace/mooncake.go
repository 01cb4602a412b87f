// Package mooncaketrace is the "mooncake_trace" custom dataset loader: JSONL
// traces of {"timestamp": ms, "input_length": n, "output_length": m,
// "hash_ids": [...]} (plus AIPerf's newer "text_input", "delay",
// "session_id" and "extra"), read as a stream so traces of any size load in
// one pass.
//
// Prompts follow AIPerf: each hash id is one block of BlockSize tokens (512
// unless the loader's block_size setting says otherwise) sampled from the corpus
// token stream, the same hash id gives the same block text across the whole
// file (that is what makes prefix-cache hits), and the prompt is the
// concatenation. When input_length is less than len(hash_ids)·BlockSize the
// final block holds the remaining input_length − (len(hash_ids)−1)·BlockSize
// tokens; when it is more, the hash ids cover a prefix and a fresh window
// of the rest follows (AIPerf 0.13's "prefix only" layout). Unlike AIPerf,
// the prompt re-encodes to exactly input_length tokens (see alignment).
// Without hash_ids the prompt is a fresh window of exactly input_length
// tokens. PromptBuilder exposes this to the other hash-id trace loaders.
//
// AIPerf 0.13's "messages" (with optional "tools") and "payload" records
// are validated as AIPerf does and then refused by name: they replay a
// request body verbatim, which sdk.Turn has no field for.
//
// Lines with a session_id are grouped into one multi-turn conversation in
// file order; other lines are single-turn conversations with seeded UUID
// session ids. timestamp → Turn.TimestampMs, delay → Turn.DelayMs,
// output_length → Turn.MaxTokens.
//
// The block size is the loader's own setting (Config, key block_size, set by
// the core from --isl-block-size), not a dataset option. So are AIPerf's
// --synthesis-* options (Config.Synthesis, synthesis.go): with any of them
// the whole file is read and transformed first, as AIPerf's trace loaders
// do; without them records stream through untouched.
package mooncaketrace

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aiperf-go/aiperf/core/tracesynth"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/sessions"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// Name is the loader's registry name (--custom-dataset-type mooncake_trace).
const Name = "mooncake_trace"

// DefaultBlockSize is the hash-id block size when Config.BlockSize is 0
// (AIPerf's default for mooncake traces).
const DefaultBlockSize = 512

// Config is the loader's own settings (custom_dataset_loader.mooncake_trace).
type Config struct {
	// BlockSize is the number of tokens of one hash-id block
	// (--isl-block-size); 0 means DefaultBlockSize.
	BlockSize int `json:"block_size"`
	// Synthesis is AIPerf's --synthesis-* options under its
	// SynthesisConfig keys (speedup_ratio, prefix_len_multiplier,
	// prefix_root_multiplier, prompt_len_multiplier, output_len_multiplier,
	// max_isl, max_osl); none set leaves the trace as it is.
	Synthesis tracesynth.Options `json:"synthesis"`
}

// Loader reads mooncake traces. It is safe for concurrent use once
// configured: every Load has its own block cache.
type Loader struct {
	// Warn, when set, is told about each prompt that could not be made to
	// re-encode to its exact length (the closest text is sent instead).
	Warn func(msg string)
	// Info, when set, is told what the --synthesis-* limits dropped and
	// capped (AIPerf's info log lines).
	Info func(msg string)
	// Config is the loader's own settings.
	Config Config
}

var (
	_ sdk.CustomDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
	_ sdk.Validator           = (*Loader)(nil)
)

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.Config }

// Validate implements sdk.Validator: the block size must not be negative
// and the synthesis options must be within AIPerf's bounds.
func (l *Loader) Validate() error {
	if bs := l.Config.BlockSize; bs < 0 {
		return fmt.Errorf("%s: block size %d (block_size, --isl-block-size), want at least 1", Name, bs)
	}
	if _, err := l.Config.Synthesis.Params(l.blockSize()); err != nil {
		return fmt.Errorf("%s: synthesis: %w", Name, err)
	}
	return nil
}

// blockSize is the configured block size, DefaultBlockSize when unset.
func (l *Loader) blockSize() int {
	if l.Config.BlockSize == 0 {
		return DefaultBlockSize
	}
	return l.Config.BlockSize
}

// New returns a mooncake_trace loader.
func New() *Loader { return &Loader{} }

// CanLoad reports whether the first record declares "type":
// "mooncake_trace", or is an object without a "type" field, with one of the
// trace input fields (hash_ids, input_length, text_input, messages,
// payload) and none of the single_turn/multi_turn ones.
func (*Loader) CanLoad(path string) bool {
	obj, ok := jsonl.FirstObject(path)
	if !ok {
		return false
	}
	if t, declared := jsonl.DeclaredType(obj); declared {
		return t == Name
	}
	// AIPerf's model types "type" as Literal["mooncake_trace"], so any other
	// value fails it: Bailian's request types ("type": "text") are not
	// mooncake records.
	if jsonl.Present(obj, "type") {
		return false
	}
	for _, k := range []string{"turns", "text", "texts"} {
		if jsonl.Present(obj, k) {
			return false
		}
	}
	for _, k := range []string{"hash_ids", "input_length", "text_input", "messages", "payload"} {
		if jsonl.Present(obj, k) {
			return true
		}
	}
	return false
}

// Load reads the trace at path. Errors name the file, the line and the
// field.
func (l *Loader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil { // for callers that skip the lifecycle
		return nil, err
	}
	pb := NewPromptBuilder(opts, l.blockSize(), l.Warn)
	g := sessions.New(opts.RandomSeed)
	err := l.scan(ctx, path, opts.RandomSeed, func(_ int, data []byte) error {
		var r record
		if err := jsonl.Decode(data, &r); err != nil {
			return err
		}
		if err := r.check(); err != nil {
			return err
		}
		turn := sdk.Turn{TimestampMs: r.Timestamp, DelayMs: r.Delay, MaxTokens: r.OutputLength, Extra: r.Extra}
		switch {
		case present(r.Messages):
			// Sent verbatim, self-contained (AIPerf's raw_messages and
			// raw_tools under message_array_with_responses).
			var err error
			if turn.RawMessages, err = compactJSON(r.Messages); err != nil {
				return fmt.Errorf("messages: %w", err)
			}
			if turn.RawTools, err = compactJSON(r.Tools); err != nil {
				return fmt.Errorf("tools: %w", err)
			}
		case present(r.Payload):
			// The whole request body, bypassing the endpoint (raw_payload).
			var err error
			if turn.RawPayload, err = compactJSON(r.Payload); err != nil {
				return fmt.Errorf("payload: %w", err)
			}
		case r.TextInput != nil:
			turn.Texts = []string{*r.TextInput}
		default:
			text, err := pb.Prompt(*r.InputLength, r.HashIDs)
			if err != nil {
				return err
			}
			turn.Texts = []string{text}
		}
		sid := ""
		if r.SessionID != nil {
			sid = *r.SessionID
		}
		g.Add(sid, turn)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	convs := g.Conversations()
	if len(convs) == 0 {
		return nil, fmt.Errorf("%s: %s: no records", Name, path)
	}
	for _, c := range convs {
		if err := checkSessionModes(c); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", Name, path, err)
		}
	}
	return convs, nil
}

// checkSessionModes is AIPerf's _infer_context_mode: a session is either
// all self-contained turns of one kind (messages, or payload) or all
// synthesized/text turns; a self-contained turn carries its own context,
// so mixing the two kinds has no defined history.
func checkSessionModes(c sdk.Conversation) error {
	var messages, payloads int
	for _, t := range c.Turns {
		switch {
		case len(t.RawMessages) > 0:
			messages++
		case len(t.RawPayload) > 0:
			payloads++
		}
	}
	switch {
	case messages > 0 && payloads > 0:
		return fmt.Errorf("session %s mixes %d messages record(s) and %d payload record(s); each session must use exactly one mode: split the session or convert its records to one self-contained mode", c.SessionID, messages, payloads)
	case messages+payloads > 0 && messages+payloads < len(c.Turns):
		return fmt.Errorf("session %s mixes raw messages/payload records with synthesized prompts (input_length or text_input), which is unsupported", c.SessionID)
	}
	return nil
}

// prompt returns the prompt of a line with input_length n and optional
// hash ids.
func (pb *prompts) prompt(n int, ids []int) (string, error) {
	if len(ids) == 0 {
		return pb.plain(n), nil
	}
	text, err := pb.hashed(n, ids)
	if err != nil {
		return "", fmt.Errorf("hash_ids: %w", err)
	}
	return text, nil
}

var _ sdk.Logging = (*Loader)(nil)

// SetLogger implements sdk.Logging: notes go to the run's log.
func (l *Loader) SetLogger(log *slog.Logger) {
	l.Info = func(msg string) { log.Info(msg) }
	l.Warn = func(msg string) { log.Warn(msg) }
}
