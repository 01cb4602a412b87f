// Package bailiantrace is the "bailian_trace" custom dataset loader: the
// Alibaba Bailian (Qwen serving) usage traces of
// https://github.com/alibaba-edu/qwen-bailian-usagetraces-anon, read as
// AIPerf 0.13 does (dataset/loader/bailian_trace.py, models.BailianTrace).
//
// Each JSONL line is one request:
//
//	{"chat_id": 159, "parent_chat_id": -1, "timestamp": 61.114,
//	 "input_length": 521, "output_length": 132, "type": "text",
//	 "turn": 1, "hash_ids": [1089, 1090, 1091, 6326, 13148]}
//
// chat_id, timestamp, input_length and output_length are required;
// parent_chat_id defaults to -1 (a root), turn to 1, hash_ids to none and
// "type" (the request type: text/search/image/file) to "". timestamp is in
// seconds and becomes Turn.TimestampMs (×1000); output_length becomes
// Turn.MaxTokens.
//
// Sessions follow parent links: every line joins the session of the root of
// its chat_id chain (walking parent_chat_id until -1, a parent that is not
// in the file, a self-reference or a cycle), the session id is the root's
// chat_id, sessions appear in order of their first line and their turns are
// ordered by turn (stable). When a chat_id repeats, its last line decides
// its parent, as in AIPerf.
//
// Prompts are built like mooncake_trace's (mooncaketrace.PromptBuilder): one
// block per hash id of BlockSize tokens (16 by default: Bailian's salted
// SipHash blocks), shared across the file, with a fresh tail where
// input_length exceeds the hashed prefix (the usual case in Bailian
// traces), each prompt exactly input_length tokens under the run's
// tokenizer.
package bailiantrace

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// Name is the loader's registry name (--custom-dataset-type bailian_trace).
const Name = "bailian_trace"

// DefaultBlockSize is the hash-id block size when Config.BlockSize is 0
// (AIPerf's plugins.yaml default_block_size for bailian_trace).
const DefaultBlockSize = 16

// Config is the loader's own settings (custom_dataset_loader.bailian_trace).
type Config struct {
	// BlockSize is the number of tokens of one hash-id block
	// (--isl-block-size); 0 means DefaultBlockSize.
	BlockSize int `json:"block_size"`
}

// Loader reads Bailian traces. Safe for concurrent use once configured.
type Loader struct {
	// Warn, when set, is told about each prompt that could not be made to
	// re-encode to its exact length.
	Warn func(msg string)
	// Config is the loader's own settings.
	Config Config
}

var (
	_ sdk.CustomDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
	_ sdk.Validator           = (*Loader)(nil)
)

// New returns a bailian_trace loader.
func New() *Loader { return &Loader{} }

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.Config }

// Validate implements sdk.Validator: the block size must not be negative.
func (l *Loader) Validate() error {
	if bs := l.Config.BlockSize; bs < 0 {
		return fmt.Errorf("%s: block size %d (block_size, --isl-block-size), want at least 1", Name, bs)
	}
	return nil
}

func (l *Loader) blockSize() int {
	if l.Config.BlockSize == 0 {
		return DefaultBlockSize
	}
	return l.Config.BlockSize
}

// record is one trace line. Pointers tell absent required fields; unknown
// fields are ignored.
type record struct {
	ChatID       *int64   `json:"chat_id"`
	ParentChatID *int64   `json:"parent_chat_id"`
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	Type         *string  `json:"type"`
	Turn         *int     `json:"turn"`
	HashIDs      []int    `json:"hash_ids"`
}

// trace is a parsed line with its defaults applied.
type trace struct {
	line         int
	chatID       int64
	parent       int64
	timestampMs  float64
	inputLength  int
	outputLength int
	turn         int
	hashIDs      []int
}

// decode decodes one line and checks AIPerf's model: field types and the
// required fields. Errors name the field.
func decode(data []byte) (record, error) {
	var r record
	if err := jsonl.Decode(data, &r); err != nil {
		return r, err
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"chat_id", r.ChatID != nil}, {"timestamp", r.Timestamp != nil}, {"input_length", r.InputLength != nil}, {"output_length", r.OutputLength != nil}} {
		if !f.set {
			return r, fmt.Errorf("%s: required field missing", f.name)
		}
	}
	return r, nil
}

// parse decodes one line and applies the loader's own checks (lengths and
// timestamps that cannot make a request). Errors name the field.
func parse(data []byte) (trace, error) {
	r, err := decode(data)
	if err != nil {
		return trace{}, err
	}
	t := trace{chatID: *r.ChatID, parent: -1, timestampMs: *r.Timestamp * 1000, inputLength: *r.InputLength, outputLength: *r.OutputLength, turn: 1, hashIDs: r.HashIDs}
	if r.ParentChatID != nil {
		t.parent = *r.ParentChatID
	}
	if r.Turn != nil {
		t.turn = *r.Turn
	}
	switch {
	case t.inputLength < 1:
		return trace{}, fmt.Errorf("input_length: %d, must be at least 1", t.inputLength)
	case t.outputLength < 0:
		return trace{}, fmt.Errorf("output_length: %d, must not be negative", t.outputLength)
	case *r.Timestamp < 0:
		return trace{}, fmt.Errorf("timestamp: %v s, must not be negative", *r.Timestamp)
	}
	return t, nil
}

// CanLoad reports whether the first record declares "type":
// "bailian_trace" or validates as a Bailian record (AIPerf's can_load:
// BailianTrace.model_validate): an object with integer chat_id,
// input_length and output_length and a numeric timestamp.
func (*Loader) CanLoad(path string) bool {
	obj, ok := jsonl.FirstObject(path)
	if !ok {
		return false
	}
	if t, declared := jsonl.DeclaredType(obj); declared {
		return t == Name
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return false
	}
	_, err = decode(data)
	return err == nil
}

// Load reads the trace at path. Errors name the file, the line and the
// field.
func (l *Loader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	var traces []trace
	err := jsonl.Scan(ctx, path, func(line int, data []byte) error {
		t, err := parse(data)
		if err != nil {
			return err
		}
		t.line = line
		traces = append(traces, t)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if len(traces) == 0 {
		return nil, fmt.Errorf("%s: %s: no records", Name, path)
	}
	pb := mooncaketrace.NewPromptBuilder(opts, l.blockSize(), l.Warn)
	convs := make([]sdk.Conversation, 0)
	for _, s := range groupSessions(traces) {
		c := sdk.Conversation{SessionID: strconv.FormatInt(s.root, 10), Turns: make([]sdk.Turn, 0, len(s.traces))}
		for _, t := range s.traces {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			text, err := pb.Prompt(t.inputLength, t.hashIDs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", Name, &jsonl.Error{Path: path, Line: t.line, Err: err})
			}
			ts, maxTokens := t.timestampMs, t.outputLength
			c.Turns = append(c.Turns, sdk.Turn{Texts: []string{text}, TimestampMs: &ts, MaxTokens: &maxTokens})
		}
		convs = append(convs, c)
	}
	return convs, nil
}

type session struct {
	root   int64
	traces []trace
}

// groupSessions is AIPerf's _group_into_sessions: union by parent links,
// sessions in order of first appearance, each sorted by turn (stable).
func groupSessions(traces []trace) []session {
	byChat := make(map[int64]*trace, len(traces))
	for i := range traces {
		byChat[traces[i].chatID] = &traces[i] // the last line of a chat_id wins
	}
	rootOf := make(map[int64]int64, len(traces))
	findRoot := func(id int64) int64 {
		if r, ok := rootOf[id]; ok {
			return r
		}
		var path []int64
		seen := map[int64]bool{}
		cur := id
		for {
			t, ok := byChat[cur]
			if !ok || t.parent == -1 || seen[cur] {
				break
			}
			seen[cur] = true
			parent := t.parent
			if _, ok := byChat[parent]; parent == cur || !ok {
				break
			}
			path = append(path, cur)
			cur = parent
		}
		for _, n := range path {
			rootOf[n] = cur
		}
		rootOf[id] = cur
		return cur
	}
	var out []session
	index := map[int64]int{}
	for _, t := range traces {
		root := findRoot(t.chatID)
		i, ok := index[root]
		if !ok {
			i = len(out)
			index[root] = i
			out = append(out, session{root: root})
		}
		out[i].traces = append(out[i].traces, t)
	}
	for i := range out {
		slices.SortStableFunc(out[i].traces, func(a, b trace) int { return cmp.Compare(a.turn, b.turn) })
	}
	return out
}

var _ sdk.Logging = (*Loader)(nil)

// SetLogger implements sdk.Logging: notes go to the run's log.
func (l *Loader) SetLogger(log *slog.Logger) {
	l.Warn = func(msg string) { log.Warn(msg) }
}
