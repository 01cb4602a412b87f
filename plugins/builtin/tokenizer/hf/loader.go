//go:build hf

package hf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
	"github.com/daulet/tokenizers"
)

// Supported reports whether this binary can load Hugging Face tokenizers.
const Supported = true

// Loader loads a tokenizer.json named by a local file, a directory holding
// one, or a Hugging Face hub repository id (category tokenizer).
type Loader struct {
	// getenv feeds hfhub.OptionsFromEnv (HF_HOME, HF_TOKEN, HF_ENDPOINT,
	// HF_HUB_OFFLINE, ...).
	getenv func(string) string
}

var _ sdk.TokenizerLoader = (*Loader)(nil)

// New returns a Loader that reads the huggingface_hub environment variables.
func New() *Loader { return &Loader{getenv: os.Getenv} }

// Load implements sdk.TokenizerLoader. hfhub.Resolve finds the file (local
// paths first, then the HF cache, then a download); its errors already say
// what was wrong and what to do, so they are returned as they are.
func (l *Loader) Load(ctx context.Context, src sdk.TokenizerSource) (sdk.Tokenizer, error) {
	getenv := l.getenv
	if getenv == nil { // zero Loader
		getenv = os.Getenv
	}
	opts := hfhub.OptionsFromEnv(getenv)
	opts.Revision = src.Revision
	path, err := hfhub.Resolve(ctx, src.Name, opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", src.Name, err)
	}
	tok, err := loadFile(src.Name, path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", src.Name, err)
	}
	return tok, nil
}

// loadFile parses path and checks the result works before handing it out.
func loadFile(name, path string) (*Tokenizer, error) {
	if err := checkLibrary(); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("parse %s: file is empty (want a Hugging Face tokenizer.json)", path)
	}
	rust, err := tokenizers.FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, diagnose(data, err))
	}
	tok := newTokenizer(name, rust)
	if err := smokeTest(tok); err != nil {
		_ = tok.Close()
		return nil, fmt.Errorf("check %s: %w", path, err)
	}
	return tok, nil
}

// diagnose explains a parse failure of valid JSON that is some other file
// (config.json, tokenizer_config.json), where serde's message points at a
// line and column and says nothing useful. It runs only after a failure.
func diagnose(data []byte, rustErr error) error {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) == nil {
		if m, ok := doc["model"]; !ok || len(m) == 0 || m[0] != '{' {
			return errors.New(`valid JSON without a top-level "model" object, so not a tokenizer.json`)
		}
	}
	// Not JSON, or a broken tokenizer.json: serde's line and column help most.
	return fmt.Errorf("%w (want a Hugging Face tokenizer.json)", rustErr)
}

// smokeTest encodes and decodes a known string, so a broken library or an
// unusable vocabulary fails at load with a message instead of producing
// zero token counts for a whole run.
func smokeTest(t *Tokenizer) error {
	const probe = "Hello, world!"
	if t.VocabSize() == 0 {
		return errors.New("the tokenizer has an empty vocabulary")
	}
	ids := t.Encode(probe)
	if len(ids) == 0 {
		return fmt.Errorf("encoding %q gave no tokens", probe)
	}
	if t.Decode(ids) == "" {
		return fmt.Errorf("decoding the ids %v of %q gave no text", ids, probe)
	}
	return nil
}
