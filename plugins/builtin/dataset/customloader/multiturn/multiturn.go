// Package multiturn is the "multi_turn" custom dataset loader: one JSON
// object per line, {"session_id": "...", "turns": [...]}, each turn with the
// single_turn fields (text|texts, image|images, audio|audios,
// video|videos, timestamp|delay, output_length, role, extra). Lines with
// the same session_id are merged into one conversation in file order
// (AIPerf does the same); a line without one gets a seeded UUID.
//
// AIPerf hoists a leading text-only "system" turn into a conversation-level
// system message; the contract has no such field, so it stays a turn with
// Role "system".
package multiturn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/sessions"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/turnfields"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// Name is the loader's registry name (--custom-dataset-type multi_turn).
const Name = "multi_turn"

// Loader reads multi_turn files. It is stateless and safe for concurrent use.
type Loader struct{}

var _ sdk.CustomDatasetLoader = (*Loader)(nil)

// New returns a multi_turn loader.
func New() *Loader { return &Loader{} }

type record struct {
	SessionID *string             `json:"session_id"`
	Turns     []turnfields.Fields `json:"turns"`
}

// CanLoad reports whether the first record declares "type": "multi_turn" or
// is an object with a "turns" list.
func (*Loader) CanLoad(path string) bool {
	obj, ok := jsonl.FirstObject(path)
	if !ok {
		return false
	}
	if t, declared := jsonl.DeclaredType(obj); declared {
		return t == Name
	}
	var turns []json.RawMessage
	return jsonl.Present(obj, "turns") && json.Unmarshal(obj["turns"], &turns) == nil
}

// Load reads every line of path. Errors name the file, the line and the
// turn index.
func (*Loader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	g := sessions.New(opts.RandomSeed)
	err := jsonl.Scan(ctx, path, func(_ int, data []byte) error {
		var r record
		if err := jsonl.Decode(data, &r); err != nil {
			return err
		}
		if len(r.Turns) == 0 {
			return errors.New(`turns: at least one turn is required`)
		}
		turns := make([]sdk.Turn, len(r.Turns))
		for i := range r.Turns {
			t, err := r.Turns[i].Turn()
			if err != nil {
				return fmt.Errorf("turns[%d]: %w", i, err)
			}
			turns[i] = t
		}
		sid := ""
		if r.SessionID != nil {
			sid = *r.SessionID
		}
		g.Add(sid, turns...)
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
