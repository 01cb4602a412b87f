// Package sessions groups loaded turns into conversations by session id, in
// order of first appearance (AIPerf's dict insertion order), giving records
// without a session id their own conversation with a seeded UUID.
package sessions

import (
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
	"math/rand/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Grouper accumulates conversations. The zero value is not usable; call New.
type Grouper struct {
	convs []sdk.Conversation
	index map[string]int
	ids   *rand.Rand
}

// New returns a grouper whose generated session ids derive from seed.
func New(seed int64) *Grouper {
	return &Grouper{index: map[string]int{}, ids: sample.NewStream(seed, "dataset.session_id")}
}

// Add appends turns to the conversation of sessionID, creating it on first
// sight; an empty sessionID always starts a new conversation.
func (g *Grouper) Add(sessionID string, turns ...sdk.Turn) {
	if sessionID == "" {
		// Random v4 UUIDs do not collide with each other or, in practice,
		// with named sessions, so they need no index entry.
		g.convs = append(g.convs, sdk.Conversation{SessionID: sample.NewUUID(g.ids), Turns: turns})
		return
	}
	if i, ok := g.index[sessionID]; ok {
		g.convs[i].Turns = append(g.convs[i].Turns, turns...)
		return
	}
	g.index[sessionID] = len(g.convs)
	g.convs = append(g.convs, sdk.Conversation{SessionID: sessionID, Turns: turns})
}

// Conversations returns the conversations in order of first appearance.
func (g *Grouper) Conversations() []sdk.Conversation { return g.convs }
