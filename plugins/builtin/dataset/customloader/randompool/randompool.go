// Package randompool is the "random_pool" custom dataset loader (AIPerf's
// dataset/loader/random_pool.py). --input-file is one JSON Lines file or a
// directory of them; every line is a single_turn style record (text|texts,
// image|images, audio|audios, video|videos, output_length, extra; see
// turnfields) and each file is a pool sampled with replacement:
//
//   - A single file is one pool. The loader builds NumEntries conversations
//     (100 when unset), each of one turn drawn from the pool.
//   - A directory holds one pool per regular file (sorted by name;
//     subdirectories are skipped). Every pool is sampled NumEntries times
//     and the i-th draws of all pools are merged into the i-th
//     conversation's one turn, so queries.jsonl and passages.jsonl give
//     every request one query and one passage.
//
// Plain strings (text, or texts/images/... given as strings) are named
// after their file's stem, as in AIPerf: a text in queries.jsonl is the
// turn's text group "queries" (a text in text.jsonl is a plain text);
// texts given as {"name", "contents"} objects keep their names.
//
// Batching (the loader's prompt_batch_size, image_batch_size,
// audio_batch_size and video_batch_size settings: --prompt-batch-size /
// --batch-size-text, --image-batch-size, --audio-batch-size,
// --video-batch-size) follows AIPerf: when a modality present in the pool
// has a batch size other than 1, every modality is flattened into its own
// pool and each conversation's turn gets batch-size independent draws of
// each (0 leaves the modality out). Pairings between fields of one record
// are not kept, and batching is refused for several pools (a directory) or
// for records with named objects, whose names it would drop.
//
// Sampling is seeded by DatasetOptions.RandomSeed (stream
// "dataset.loader.random_pool"); session ids come from the shared seeded
// session-id stream. The same seed and files give the same dataset.
//
// Choices where AIPerf differs, on purpose:
//   - output_length and extra are honoured (AIPerf's RandomPool model
//     accepts but ignores them); when a directory's pools both set them,
//     later files win (extra is merged key by key). Batched turns carry
//     neither, since they mix records. timestamp, delay, role and
//     session_id are read and ignored, as in AIPerf.
//   - Every record is parsed and its media encoded at load time, so a bad
//     line or media file is reported with its file and line even if it
//     would not have been drawn; an empty pool (a file without records) or
//     a directory without files is an error, not an empty dataset.
//   - The random stream is Go's, so the draws differ from AIPerf's for the
//     same seed (the distribution is the same).
package randompool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/sessions"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/turnfields"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
)

// Name is the loader's registry name (--custom-dataset-type random_pool).
const Name = "random_pool"

// DefaultConversations is the number of conversations built when
// DatasetOptions.NumEntries is not positive (AIPerf's loader default).
const DefaultConversations = 100

// Config is the loader's own settings (custom_dataset_loader.random_pool).
// A nil batch size means 1.
type Config struct {
	// PromptBatchSize is texts per request (--prompt-batch-size,
	// --batch-size-text, -b).
	PromptBatchSize *int `json:"prompt_batch_size"`
	// ImageBatchSize is images per request (--image-batch-size).
	ImageBatchSize *int `json:"image_batch_size"`
	// AudioBatchSize is audio clips per request (--audio-batch-size).
	AudioBatchSize *int `json:"audio_batch_size"`
	// VideoBatchSize is videos per request (--video-batch-size).
	VideoBatchSize *int `json:"video_batch_size"`
}

// Loader reads random_pool files and directories. It is safe for
// concurrent use once configured.
type Loader struct {
	// Config is the loader's own settings.
	Config Config
}

var (
	_ sdk.CustomDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
	_ sdk.Validator           = (*Loader)(nil)
)

// New returns a random_pool loader with default settings (no batching).
func New() *Loader { return &Loader{} }

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.Config }

// modality indexes the four input kinds, in AIPerf's batching order of
// checks (text, image, audio, video).
type modality int

const (
	text modality = iota
	image
	audio
	video
	numModalities
)

var modalityNames = [numModalities]struct{ key, flag string }{
	{"prompt_batch_size", "--prompt-batch-size"},
	{"image_batch_size", "--image-batch-size"},
	{"audio_batch_size", "--audio-batch-size"},
	{"video_batch_size", "--video-batch-size"},
}

// batchSizes returns the configured batch sizes, 1 where unset.
func (l *Loader) batchSizes() [numModalities]int {
	var out [numModalities]int
	for i, p := range []*int{l.Config.PromptBatchSize, l.Config.ImageBatchSize, l.Config.AudioBatchSize, l.Config.VideoBatchSize} {
		out[i] = 1
		if p != nil {
			out[i] = *p
		}
	}
	return out
}

// Validate implements sdk.Validator: batch sizes must not be negative.
func (l *Loader) Validate() error {
	for i, n := range l.batchSizes() {
		if n < 0 {
			m := modalityNames[i]
			return fmt.Errorf("%s: batch size %d (%s, %s), want at least 0", Name, n, m.key, m.flag)
		}
	}
	return nil
}

// CanLoad mirrors AIPerf's detection: a directory whose files (searched
// recursively) all start with a valid random_pool record, at least one of
// them non-empty; or a file whose first record declares "type":
// "random_pool" and is valid. Other files are left to single_turn, whose
// records look the same.
func (*Loader) CanLoad(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.IsDir() {
		n, ok := validTree(path)
		return ok && n > 0
	}
	obj, ok := jsonl.FirstObject(path)
	if !ok {
		return false
	}
	if t, declared := jsonl.DeclaredType(obj); !declared || t != Name {
		return false
	}
	return validObject(obj)
}

// validTree is AIPerf's _validate_path: the number of files under path
// whose first non-blank line is a valid record, and false as soon as one
// is not.
func validTree(path string) (int, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, true // neither a file nor a directory: skipped
	}
	if st.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return 0, false
		}
		n := 0
		for _, e := range ents {
			c, ok := validTree(filepath.Join(path, e.Name()))
			if !ok {
				return 0, false
			}
			n += c
		}
		return n, true
	}
	if !st.Mode().IsRegular() {
		return 0, true
	}
	var first []byte
	errStop := errors.New("stop")
	err = jsonl.Scan(context.Background(), path, func(_ int, data []byte) error {
		first = bytes.Clone(data)
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return 0, false
	}
	if first == nil {
		return 0, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(first, &obj) != nil || obj == nil || !validObject(obj) {
		return 0, false
	}
	return 1, true
}

// validObject applies the RandomPool model's checks cheaply (no media is
// read): field types, the type literal, mutually exclusive singular and
// plural fields, and at least one modality.
func validObject(obj map[string]json.RawMessage) bool {
	data, err := json.Marshal(obj)
	if err != nil {
		return false
	}
	var r record
	if json.Unmarshal(data, &r) != nil || r.checkType() != nil {
		return false
	}
	has := false
	for _, p := range r.pairs() {
		one, many := p.one != nil && *p.one != "", present(p.many)
		if one && many {
			return false
		}
		if many && !pluralShape(p.many) {
			return false
		}
		has = has || one || many
	}
	return has
}

// record is one line: the shared single_turn fields plus the type tag.
type record struct {
	turnfields.Fields
	Type json.RawMessage `json:"type"`
}

type pair struct {
	one  *string
	many json.RawMessage
}

func (r *record) pairs() [numModalities]pair {
	return [numModalities]pair{
		{r.Text, r.Texts}, {r.Image, r.Images}, {r.Audio, r.Audios}, {r.Video, r.Videos},
	}
}

// checkType refuses a "type" other than "random_pool" (the model's
// literal).
func (r *record) checkType() error {
	if r.Type == nil {
		return nil
	}
	var t string
	if json.Unmarshal(r.Type, &t) != nil || t != Name {
		return fmt.Errorf("type: got %s, want %q", bytes.TrimSpace(r.Type), Name)
	}
	return nil
}

// plainStrings reports whether a plural field is a list of strings (as
// opposed to {"name", "contents"} objects).
func plainStrings(raw json.RawMessage) bool {
	var ss []string
	return json.Unmarshal(raw, &ss) == nil
}

// pluralShape reports whether a plural field is a list of strings or of
// objects.
func pluralShape(raw json.RawMessage) bool {
	if plainStrings(raw) {
		return true
	}
	var objs []struct {
		Name     string   `json:"name"`
		Contents []string `json:"contents"`
	}
	return json.Unmarshal(raw, &objs) == nil
}

// carriesNames reports whether a plural field holds objects with a name or
// (images) cache uuids: AIPerf's _pool_entries_carry_metadata.
func carriesNames(raw json.RawMessage) bool {
	if !present(raw) || plainStrings(raw) {
		return false
	}
	var objs []struct {
		Name  string          `json:"name"`
		UUIDs json.RawMessage `json:"uuids"`
	}
	if json.Unmarshal(raw, &objs) != nil {
		return false
	}
	for _, o := range objs {
		if o.Name != "" || present(o.UUIDs) {
			return true
		}
	}
	return false
}

// present is Python truthiness of an optional JSON value.
func present(raw json.RawMessage) bool {
	switch strings.TrimSpace(string(raw)) {
	case "", "null", `""`, "[]":
		return false
	}
	return true
}

// entry is one parsed record of a pool.
type entry struct {
	turn  sdk.Turn
	named bool // holds named objects (or image uuids)
}

// pool is the records of one file.
type pool struct {
	name    string // file base name
	entries []entry
}

// Load reads path (a file or a directory) and samples the conversations.
// Errors name the file and line.
func (l *Loader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	convs, err := l.load(ctx, path, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return convs, nil
}

func (l *Loader) load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	files, err := poolFiles(path)
	if err != nil {
		return nil, err
	}
	pools := make([]pool, 0, len(files))
	for _, f := range files {
		p, err := readPool(ctx, f)
		if err != nil {
			return nil, err
		}
		pools = append(pools, p)
	}
	n := opts.NumEntries
	if n <= 0 {
		n = DefaultConversations
	}
	rng := sample.NewStream(opts.RandomSeed, "dataset.loader.random_pool")
	var turns []sdk.Turn
	sizes := l.batchSizes()
	if batchingRequested(pools, sizes) {
		if turns, err = batched(pools, sizes, n, rng); err != nil {
			return nil, err
		}
	} else {
		turns = sampled(pools, n, rng)
	}
	g := sessions.New(opts.RandomSeed)
	for _, t := range turns {
		g.Add("", t)
	}
	return g.Conversations(), nil
}

// poolFiles returns path itself, or the regular files of the directory
// path sorted by name.
func poolFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("open dataset: %w", err)
	}
	var files []string
	for _, e := range ents {
		f := filepath.Join(path, e.Name())
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: directory holds no files (each file is one pool)", path)
	}
	return files, nil
}

// readPool parses every record of one file. Plain strings are named after
// the file's stem.
func readPool(ctx context.Context, path string) (pool, error) {
	base := filepath.Base(path)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	p := pool{name: base}
	err := jsonl.Scan(ctx, path, func(_ int, data []byte) error {
		var r record
		if err := jsonl.Decode(data, &r); err != nil {
			return err
		}
		if err := r.checkType(); err != nil {
			return err
		}
		turn, err := r.Turn()
		if err != nil {
			return err
		}
		// Not supported by random_pool (AIPerf reads and ignores them).
		turn.DelayMs, turn.TimestampMs, turn.Role = nil, nil, ""
		plain := (r.Text != nil && *r.Text != "") || (present(r.Texts) && plainStrings(r.Texts))
		if plain && stem != "" && stem != "text" && len(turn.Texts) > 0 {
			turn.TextGroups = append([]sdk.TextGroup{{Name: stem, Contents: turn.Texts}}, turn.TextGroups...)
			turn.Texts = nil
		}
		named := false
		for _, pr := range r.pairs() {
			named = named || carriesNames(pr.many)
		}
		p.entries = append(p.entries, entry{turn: turn, named: named})
		return nil
	})
	if err != nil {
		return pool{}, err
	}
	if len(p.entries) == 0 {
		return pool{}, fmt.Errorf("%s: no records (an empty pool cannot be sampled)", path)
	}
	return p, nil
}

// sampled draws n entries with replacement from every pool, in pool order,
// and merges the i-th draws into the i-th turn (AIPerf's
// convert_to_conversations).
func sampled(pools []pool, n int, rng *rand.Rand) []sdk.Turn {
	draws := make([][]int, len(pools))
	for i, p := range pools {
		draws[i] = make([]int, n)
		for j := range draws[i] {
			draws[i][j] = rng.IntN(len(p.entries))
		}
	}
	turns := make([]sdk.Turn, n)
	for j := range turns {
		var t sdk.Turn
		for i, p := range pools {
			merge(&t, &p.entries[draws[i][j]].turn)
		}
		turns[j] = t
	}
	return turns
}

// merge appends src's contents to dst (copying, so sampled entries share
// nothing): texts, text groups (by name), media; a later output_length and
// extra keys win.
func merge(dst, src *sdk.Turn) {
	dst.Texts = append(dst.Texts, src.Texts...)
	for _, g := range src.TextGroups {
		i := slices.IndexFunc(dst.TextGroups, func(d sdk.TextGroup) bool { return d.Name == g.Name })
		if i < 0 {
			dst.TextGroups = append(dst.TextGroups, sdk.TextGroup{Name: g.Name})
			i = len(dst.TextGroups) - 1
		}
		dst.TextGroups[i].Contents = append(dst.TextGroups[i].Contents, g.Contents...)
	}
	dst.Images = append(dst.Images, src.Images...)
	dst.Audios = append(dst.Audios, src.Audios...)
	dst.Videos = append(dst.Videos, src.Videos...)
	if src.MaxTokens != nil {
		v := *src.MaxTokens
		dst.MaxTokens = &v
	}
	if len(src.Extra) > 0 {
		if dst.Extra == nil {
			dst.Extra = make(map[string]any, len(src.Extra))
		}
		maps.Copy(dst.Extra, src.Extra)
	}
}

// contents returns the flat list of one modality's contents of a turn.
func contents(t *sdk.Turn, m modality) []string {
	switch m {
	case text:
		out := slices.Clone(t.Texts)
		for _, g := range t.TextGroups {
			out = append(out, g.Contents...)
		}
		return out
	case image:
		return t.Images
	case audio:
		return t.Audios
	default:
		return t.Videos
	}
}

// batchingRequested is AIPerf's _batching_requested: some modality present
// in the pools has a batch size other than 1.
func batchingRequested(pools []pool, sizes [numModalities]int) bool {
	for m := range numModalities {
		if sizes[m] == 1 {
			continue
		}
		for _, p := range pools {
			for i := range p.entries {
				if len(contents(&p.entries[i].turn, m)) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// batched is AIPerf's _convert_to_conversations_batched: one flat pool per
// modality, and per turn batch-size draws of each (text, image, audio,
// video order).
func batched(pools []pool, sizes [numModalities]int, n int, rng *rand.Rand) ([]sdk.Turn, error) {
	if len(pools) > 1 {
		names := make([]string, len(pools))
		for i, p := range pools {
			names[i] = p.name
		}
		return nil, fmt.Errorf("batch sizes other than 1 are not supported for named pools (found %d: %s); drop the batch-size flags or use a single file",
			len(pools), strings.Join(names, ", "))
	}
	var flat [numModalities][]string
	for _, p := range pools {
		for i := range p.entries {
			e := &p.entries[i]
			if e.named {
				return nil, fmt.Errorf("%s: batch sizes other than 1 are not supported when records carry named texts/images/audios/videos objects or image uuids; drop the batch-size flags, or strip the names if only the contents matter", p.name)
			}
			for m := range numModalities {
				flat[m] = append(flat[m], contents(&e.turn, m)...)
			}
		}
	}
	usable := false
	for m := range numModalities {
		usable = usable || (len(flat[m]) > 0 && sizes[m] > 0)
	}
	if !usable {
		return nil, fmt.Errorf("batch sizes produce turns with no content: every modality is absent from the pool or has batch size 0 (text=%d, image=%d, audio=%d, video=%d); set a batch size above 0 for a modality the pool has",
			sizes[text], sizes[image], sizes[audio], sizes[video])
	}
	draw := func(m modality) []string {
		if len(flat[m]) == 0 || sizes[m] <= 0 {
			return nil
		}
		out := make([]string, sizes[m])
		for i := range out {
			out[i] = flat[m][rng.IntN(len(flat[m]))]
		}
		return out
	}
	turns := make([]sdk.Turn, n)
	for j := range turns {
		// AIPerf draws images first, then texts, audios and videos.
		imgs := draw(image)
		turns[j] = sdk.Turn{Images: imgs, Texts: draw(text), Audios: draw(audio), Videos: draw(video)}
	}
	return turns, nil
}
