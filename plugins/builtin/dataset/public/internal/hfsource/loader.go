package hfsource

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Convert builds one conversation's turns from a row; nil turns skip the
// row. An error stops the load.
type Convert func(row stream.Row) ([]sdk.Turn, error)

// Load streams the rows of the dataset s names and converts each into a
// conversation with a session id drawn from seed, stopping at the
// settings' cap (streamed datasets). It returns the conversations and how
// many rows were skipped.
func Load(ctx context.Context, s base.Settings, hub *hfhub.Options, seed int64, convert Convert) ([]sdk.Conversation, int, error) {
	if err := CheckSettings(s); err != nil {
		return nil, 0, err
	}
	split := Split{Dataset: s.HFDatasetName, Config: s.Config(), Split: s.Split()}
	ids := base.SessionIDs(seed)
	var convs []sdk.Conversation
	skipped := 0
	err := Rows(ctx, split, HubOptions(hub), s.Streaming, func(row stream.Row) error {
		turns, err := convert(row)
		if err != nil {
			return err
		}
		if len(turns) == 0 {
			skipped++
			return nil
		}
		convs = append(convs, sdk.Conversation{SessionID: ids(), Turns: turns})
		if s.Full(len(convs)) {
			return stream.ErrStop // before the next row: it may need another download
		}
		return nil
	})
	if err != nil {
		return nil, skipped, err
	}
	return convs, skipped, nil
}

// CheckSettings refuses settings that cannot name a hub split.
func CheckSettings(s base.Settings) error {
	if s.HFDatasetName == "" {
		return errors.New("setting hf_dataset_name is empty: it names the hub dataset to read")
	}
	if s.MaxConversations < 0 {
		return fmt.Errorf("setting max_conversations is %d, must be >= 0", s.MaxConversations)
	}
	return nil
}
