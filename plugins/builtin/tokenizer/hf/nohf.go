//go:build !hf

package hf

import (
	"context"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Supported reports whether this binary can load Hugging Face tokenizers.
const Supported = false

// Loader is the stand-in of a binary built without the `hf` tag: every Load
// fails with instructions.
type Loader struct{}

var _ sdk.TokenizerLoader = (*Loader)(nil)

// New returns a Loader.
func New() *Loader { return &Loader{} }

// Load implements sdk.TokenizerLoader; it always fails with ErrNotBuilt.
func (*Loader) Load(_ context.Context, src sdk.TokenizerSource) (sdk.Tokenizer, error) {
	return nil, fmt.Errorf("tokenizer %q: %w; build it with \"make build\" (needs cargo) or \"go build -tags hf\" with CGO_LDFLAGS=-L<dir of libtokenizers.a>; or use --tokenizer builtin", src.Name, ErrNotBuilt)
}
