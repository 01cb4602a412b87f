//go:build !hf

package hf

import (
	"context"
	"errors"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestLoadWithoutHFTagExplainsHowToBuild(t *testing.T) {
	tok, err := New().Load(context.Background(), sdk.TokenizerSource{Name: "Qwen/Qwen3-0.6B"})
	if tok != nil {
		t.Fatalf("Load returned a tokenizer %v without hf support", tok)
	}
	want := `tokenizer "Qwen/Qwen3-0.6B": this aiperf was built without Hugging Face tokenizer support; ` +
		`build it with "make build" (needs cargo) or "go build -tags hf" with CGO_LDFLAGS=-L<dir of libtokenizers.a>; ` +
		`or use --tokenizer builtin`
	if err == nil || err.Error() != want {
		t.Fatalf("Load error = %v\nwant %s", err, want)
	}
	if !errors.Is(err, ErrNotBuilt) {
		t.Errorf("error %v does not wrap ErrNotBuilt", err)
	}
	if Supported {
		t.Error("Supported is true in a build without the hf tag")
	}
}
