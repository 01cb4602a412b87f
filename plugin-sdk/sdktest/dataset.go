package sdktest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// garbage is content no dataset format accepts: binary bytes, broken JSON.
var garbage = []byte("\x00\x01\xfe\xff sdktest garbage {\"unterminated\n\x7f\x00")

// DatasetLoader checks an sdk.CustomDatasetLoader in process against
// sampleFile, a small file in the loader's format.
func DatasetLoader(t testing.TB, l sdk.CustomDatasetLoader, sampleFile string) {
	t.Helper()
	if l == nil {
		t.Fatalf("sdktest: DatasetLoader: the loader is nil")
	}
	if _, err := os.Stat(sampleFile); err != nil {
		t.Fatalf("sdktest: DatasetLoader: sample file: %v", err)
	}
	if cfg, ok := l.(sdk.Configurable); ok {
		checkConfigurable(t, cfg)
	}
	dir := t.TempDir()
	garbageFile := filepath.Join(dir, "garbage.bin")
	if err := os.WriteFile(garbageFile, garbage, 0o600); err != nil {
		t.Fatalf("sdktest: DatasetLoader: writing the garbage file: %v", err)
	}
	missing := filepath.Join(dir, "does-not-exist.jsonl")

	if ok, done := callNoErr(t, "CanLoad(sample)", func() bool { return l.CanLoad(sampleFile) }); done && !ok {
		t.Errorf("sdktest: CanLoad(%s) = false for the sample file", sampleFile)
	}
	for what, path := range map[string]string{"a missing file": missing, "a directory": dir, "a garbage file": garbageFile} {
		if ok, done := callNoErr(t, "CanLoad("+what+")", func() bool { return l.CanLoad(path) }); done && ok {
			t.Errorf("sdktest: CanLoad(%s) = true for %s", path, what)
		}
	}

	convs, ok, err := load(t, l, "Load(sample)", sampleFile)
	switch {
	case !ok:
	case err != nil:
		t.Errorf("sdktest: Load(%s) returned error: %v", sampleFile, err)
	case len(convs) == 0:
		t.Errorf("sdktest: Load(%s) returned no conversations", sampleFile)
	default:
		checkConversations(t, convs)
	}
	for what, path := range map[string]string{"a missing file": missing, "a garbage file": garbageFile} {
		convs, ok, err := load(t, l, "Load("+what+")", path)
		if ok && err == nil {
			t.Errorf("sdktest: Load(%s) = %d conversations with no error for %s: return an error", path, len(convs), what)
		}
	}
}

func load(t testing.TB, l sdk.CustomDatasetLoader, what, path string) ([]sdk.Conversation, bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	opts := sdk.DatasetOptions{Models: []string{"sdktest-model"}, RandomSeed: 42, InputFile: path, Tokenizer: byteTokenizer{}}
	return call(t, what, func() ([]sdk.Conversation, error) { return l.Load(ctx, path, opts) })
}

// checkConversations: every conversation has turns, every turn something
// to send: a text (in Texts or a named text group) or a medium.
func checkConversations(t testing.TB, convs []sdk.Conversation) {
	t.Helper()
	for i, c := range convs {
		where := fmt.Sprintf("conversation %d (session %q)", i, c.SessionID)
		if len(c.Turns) == 0 {
			t.Errorf("sdktest: Load: %s has no turns", where)
			continue
		}
		for j, turn := range c.Turns {
			if !hasInput(turn) {
				t.Errorf("sdktest: Load: %s turn %d has no non-empty text and no media: %+v", where, j, turn)
			}
			if turn.MaxTokens != nil && *turn.MaxTokens < 0 {
				t.Errorf("sdktest: Load: %s turn %d has negative MaxTokens %d", where, j, *turn.MaxTokens)
			}
		}
	}
}

func hasText(texts []string) bool {
	for _, s := range texts {
		if s != "" {
			return true
		}
	}
	return false
}

// byteTokenizer is a stand-in tokenizer (one token per byte) for loaders
// that build prompts of a token length; aiperf passes the real one. Ids
// outside printable ASCII decode to letters, so generated text stays text.
type byteTokenizer struct{}

var _ sdk.Tokenizer = byteTokenizer{}

func (byteTokenizer) Name() string { return "sdktest-bytes" }

func (byteTokenizer) Encode(text string) []int {
	ids := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		ids[i] = int(text[i])
	}
	return ids
}

func (byteTokenizer) Decode(ids []int) string {
	b := make([]byte, len(ids))
	for i, id := range ids {
		if id >= ' ' && id <= '~' {
			b[i] = byte(id)
		} else {
			b[i] = byte('a' + (id%26+26)%26)
		}
	}
	return string(b)
}

func (byteTokenizer) Count(text string) int { return len(text) }

// hasInput reports whether a turn carries anything to send.
func hasInput(turn sdk.Turn) bool {
	if hasText(turn.Texts) || len(turn.Images) > 0 || len(turn.Audios) > 0 || len(turn.Videos) > 0 {
		return true
	}
	for _, g := range turn.TextGroups {
		if hasText(g.Contents) {
			return true
		}
	}
	return false
}
