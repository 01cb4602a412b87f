// Package singleturn is the "single_turn" custom dataset loader: one JSON
// object per line, each a one-turn request (text|texts, image|images,
// audio|audios, video|videos, plus timestamp|delay, output_length, role,
// extra and session_id; see turnfields for the plural and media forms).
// Lines sharing a session_id become the turns of one conversation, in file
// order; lines without one each get their own conversation with a seeded
// UUID session id.
package singleturn

import (
	"context"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/sessions"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/turnfields"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// Name is the loader's registry name (--custom-dataset-type single_turn).
const Name = "single_turn"

// Loader reads single_turn files. It is stateless and safe for concurrent use.
type Loader struct{}

var _ sdk.CustomDatasetLoader = (*Loader)(nil)

// New returns a single_turn loader.
func New() *Loader { return &Loader{} }

// CanLoad reports whether the first record declares "type": "single_turn",
// or is an object with a text or media field and no "turns".
func (*Loader) CanLoad(path string) bool {
	obj, ok := jsonl.FirstObject(path)
	if !ok {
		return false
	}
	if t, declared := jsonl.DeclaredType(obj); declared {
		return t == Name
	}
	if jsonl.Present(obj, "turns") {
		return false
	}
	for _, k := range []string{"text", "texts", "image", "images", "audio", "audios", "video", "videos"} {
		if jsonl.Present(obj, k) {
			return true
		}
	}
	return false
}

// Load reads every line of path. Errors name the file and line.
func (*Loader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	g := sessions.New(opts.RandomSeed)
	err := jsonl.Scan(ctx, path, func(_ int, data []byte) error {
		var f turnfields.Fields
		if err := jsonl.Decode(data, &f); err != nil {
			return err
		}
		turn, err := f.Turn()
		if err != nil {
			return err
		}
		sid := ""
		if f.SessionID != nil {
			sid = *f.SessionID
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
	return convs, nil
}
