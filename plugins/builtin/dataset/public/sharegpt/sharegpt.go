// Package sharegpt is the "sharegpt" public dataset loader: the ShareGPT
// Vicuna dataset AIPerf 0.13 and vLLM's benchmarks use
// (anon8231489123/ShareGPT_Vicuna_unfiltered,
// ShareGPT_V3_unfiltered_cleaned_split.json, about 670 MB), read as
// AIPerf's ShareGPTLoader does: every adjacent human->gpt pair of an entry
// is one turn whose max_tokens is the completion's token count, and an
// entry is dropped whole when any pair fails vLLM's length filter (prompt
// 4..1024 tokens, completion at least 4, both at most 2048, counted with
// the run's tokenizer).
//
// The file comes from AIPerf's own cache, .cache/aiperf/datasets/<file>
// under the working directory, when it is there (a drop-in for AIPerf
// users); else from the Hugging Face cache, downloaded into it once (the
// tokenizer's HF_TOKEN, HF_HUB_CACHE/HF_HOME, HF_ENDPOINT and
// HF_HUB_OFFLINE rules). It is read one entry at a time and the entries
// are tokenized on every core.
package sharegpt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Name is the dataset's --public-dataset name.
const Name = "sharegpt"

// Where AIPerf 0.13 downloads the file from (its ShareGPTLoader.url).
const (
	Repo     = "anon8231489123/ShareGPT_Vicuna_unfiltered"
	File     = "ShareGPT_V3_unfiltered_cleaned_split.json"
	Revision = "main"
)

// AIPerfCacheDir is AIPerf's dataset cache, relative to the working
// directory (base_public_dataset.py AIPERF_DATASET_CACHE_DIR).
const AIPerfCacheDir = ".cache/aiperf/datasets"

// batchSize is how many entries are tokenized together across the cores.
const batchSize = 512

// Loader reads the ShareGPT dataset. Its settings are the common ones
// (none change what it reads: the file is fixed, as in AIPerf).
type Loader struct {
	cfg base.Settings
	// Hub replaces the environment's hub options (tests); nil reads them.
	Hub *hfhub.Options
	// AIPerfCache is AIPerf's cache folder; "" means AIPerfCacheDir.
	AIPerfCache string
}

var (
	_ sdk.PublicDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
)

// New returns the loader.
func New() *Loader { return &Loader{} }

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.cfg }

// Path returns the local dataset file: AIPerf's cached copy when present,
// else the Hugging Face cache's, downloaded (streamed to disk, checked to
// be a whole JSON array) on a miss unless HF_HUB_OFFLINE is set.
func (l *Loader) Path(ctx context.Context) (string, error) {
	dir := l.AIPerfCache
	if dir == "" {
		dir = AIPerfCacheDir
	}
	aiperfCopy := filepath.Join(dir, File)
	if info, err := os.Stat(aiperfCopy); err == nil && info.Mode().IsRegular() {
		return aiperfCopy, nil
	}
	o := hfsource.HubOptions(l.Hub)
	o.Revision = Revision
	path, err := hfhub.Fetch(ctx, hfhub.DatasetRepo(Repo), File, o, hfhub.FileCheck{Verify: isJSONArray})
	if err != nil {
		if errors.Is(err, hfhub.ErrNotCached) {
			return "", fmt.Errorf("%w; fill the cache with: huggingface-cli download --repo-type dataset %s %s (or put AIPerf's copy at %s)",
				err, Repo, File, aiperfCopy)
		}
		return "", fmt.Errorf("%w (AIPerf's copy at %s is not there either)", err, aiperfCopy)
	}
	return path, nil
}

// LoadPublic implements sdk.PublicDatasetLoader.
func (l *Loader) LoadPublic(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if opts.Tokenizer == nil {
		return nil, errors.New("the run's tokenizer is needed to filter entries by length")
	}
	path, err := l.Path(ctx)
	if err != nil {
		return nil, err
	}
	return Read(ctx, path, opts.Tokenizer, opts.RandomSeed)
}

// Read converts a ShareGPT JSON file into conversations, AIPerf's
// convert_to_conversations. The minimum completion length always applies:
// AIPerf 0.13 skips it only when the dataset carries an OSL mean, which a
// public dataset's configuration never does.
func Read(ctx context.Context, path string, tok sdk.Tokenizer, seed int64) ([]sdk.Conversation, error) {
	ids := base.SessionIDs(seed)
	var convs []sdk.Conversation
	batch := make([][]base.Pair, 0, batchSize)
	flush := func() {
		for _, turns := range validate(batch, tok) {
			if turns != nil {
				convs = append(convs, sdk.Conversation{SessionID: ids(), Turns: turns})
			}
		}
		batch = batch[:0]
	}
	err := stream.JSONArray(ctx, path, func(_ int, raw json.RawMessage) error {
		batch = append(batch, entryPairs(raw))
		if len(batch) == batchSize {
			flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
	return convs, nil
}

// validate tokenizes a batch of entries on every core and returns each
// entry's turns, nil for a rejected entry (no pairs, or a pair out of
// bounds).
func validate(batch [][]base.Pair, tok sdk.Tokenizer) [][]sdk.Turn {
	out := make([][]sdk.Turn, len(batch))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(batch)) {
		wg.Go(func() {
			for i := range next {
				out[i] = entryTurns(batch[i], tok)
			}
		})
	}
	for i := range batch {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// entryTurns is one entry's turns, each with max_tokens the completion's
// length; nil when any pair fails is_valid_sequence.
func entryTurns(pairs []base.Pair, tok sdk.Tokenizer) []sdk.Turn {
	if len(pairs) == 0 {
		return nil
	}
	turns := make([]sdk.Turn, 0, len(pairs))
	for _, p := range pairs {
		pl := tok.Count(p.Prompt)
		if pl < base.MinSeqLen || pl > base.MaxPromptLen {
			return nil // rejected whatever the completion (saves its encode)
		}
		cl := tok.Count(p.Completion)
		if !base.IsValidSequence(pl, cl, false) {
			return nil
		}
		n := cl
		turns = append(turns, sdk.Turn{Texts: []string{p.Prompt}, MaxTokens: &n})
	}
	return turns
}

// message is one element of an entry's "conversations"; fields that are
// not strings count as missing.
type message struct {
	From  json.RawMessage `json:"from"`
	Value json.RawMessage `json:"value"`
}

// entryPairs is AIPerf's pairing of one entry: no pairs unless it has a
// "conversations" list of at least two objects; human->gpt pairs when any
// message has one of those roles, else the first two values.
func entryPairs(raw json.RawMessage) []base.Pair {
	var e struct {
		Conversations []json.RawMessage `json:"conversations"`
	}
	if json.Unmarshal(raw, &e) != nil || len(e.Conversations) < 2 {
		return nil
	}
	msgs := make([]base.Message, 0, len(e.Conversations))
	for _, c := range e.Conversations {
		var m message
		if json.Unmarshal(c, &m) != nil || !isObject(c) {
			continue // AIPerf keeps only dict messages
		}
		from, _ := jsonString(m.From)
		text, _ := jsonString(m.Value)
		msgs = append(msgs, base.Message{From: from, Text: text})
	}
	if len(msgs) < 2 {
		return nil
	}
	if pairs, usesRoles := base.ShareGPTPairs(msgs); usesRoles {
		return pairs
	}
	return base.FirstTwo(msgs)
}

func isObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && b[0] == '{'
}

func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isJSONArray is the download check: the file starts with '[' and ends
// with ']' (an HTML error page or a cut-off body does not).
func isJSONArray(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	head := make([]byte, min(info.Size(), 4096))
	if _, err := io.ReadFull(f, head); err != nil {
		return err
	}
	tail := make([]byte, min(info.Size(), 4096))
	if _, err := f.ReadAt(tail, info.Size()-int64(len(tail))); err != nil {
		return err
	}
	h, t := bytes.TrimSpace(head), bytes.TrimSpace(tail)
	if len(h) == 0 || h[0] != '[' || len(t) == 0 || t[len(t)-1] != ']' {
		return errors.New("not a JSON array (the file does not start with '[' and end with ']')")
	}
	return nil
}
