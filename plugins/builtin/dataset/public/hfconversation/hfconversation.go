// Package hfconversation is the public dataset loader of Hugging Face hub
// datasets whose rows hold a conversation, a list of messages (AIPerf
// 0.13's HFConversationDatasetLoader): by default one single-turn
// conversation per row from its first user (or human) message, with the
// row's image; with multi_turn, one turn per user->assistant (or
// human->gpt) pair, filtered by length like ShareGPT. VisionArena's
// list-of-lists messages are unwrapped and LLaVA's "<image>" placeholders
// stripped. Registered as vision_arena and llava_onevision.
package hfconversation

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/base"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfmedia"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/hfsource"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// Config is the loader's settings (AIPerf's plugin metadata names).
type Config struct {
	base.Settings
	ConversationColumn string `json:"conversation_column,omitempty"`
	// MessageContentKey is the key of a message's text ("content" when
	// empty; "value" for ShareGPT-style messages).
	MessageContentKey string `json:"message_content_key,omitempty"`
	ImageColumn       string `json:"image_column,omitempty"`
	MultiTurn         bool   `json:"multi_turn,omitempty"`
}

// Loader reads one conversation dataset.
type Loader struct {
	cfg Config
	// Hub replaces the environment's hub options (tests); nil reads them.
	Hub *hfhub.Options
}

var (
	_ sdk.PublicDatasetLoader = (*Loader)(nil)
	_ sdk.Configurable        = (*Loader)(nil)
	_ sdk.Validator           = (*Loader)(nil)
)

// New returns a loader; its dataset comes from its settings.
func New() *Loader { return &Loader{} }

// PluginConfig implements sdk.Configurable.
func (l *Loader) PluginConfig() any { return &l.cfg }

// Validate implements sdk.Validator.
func (l *Loader) Validate() error {
	if err := hfsource.CheckSettings(l.cfg.Settings); err != nil {
		return err
	}
	if l.cfg.ConversationColumn == "" {
		return errors.New("setting conversation_column is empty: it names the column holding the messages")
	}
	return nil
}

func (l *Loader) contentKey() string {
	if l.cfg.MessageContentKey == "" {
		return "content"
	}
	return l.cfg.MessageContentKey
}

// LoadPublic implements sdk.PublicDatasetLoader.
func (l *Loader) LoadPublic(ctx context.Context, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if l.cfg.MultiTurn && opts.Tokenizer == nil {
		return nil, errors.New("multi_turn needs the run's tokenizer to filter pairs by length")
	}
	convs, _, err := hfsource.Load(ctx, l.cfg.Settings, l.Hub, opts.RandomSeed, func(row stream.Row) ([]sdk.Turn, error) {
		return l.turns(row, opts.Tokenizer), nil
	})
	return convs, err
}

func (l *Loader) turns(row stream.Row, tok sdk.Tokenizer) []sdk.Turn {
	msgs := l.normalize(row[l.cfg.ConversationColumn])
	var images []string
	if l.cfg.ImageColumn != "" {
		images = hfmedia.Images(row[l.cfg.ImageColumn])
	}
	if !l.cfg.MultiTurn {
		prompt := firstUserText(msgs)
		if prompt == "" {
			return nil
		}
		return []sdk.Turn{{Texts: []string{prompt}, Images: images}}
	}
	pairs := pairsOf(msgs)
	if len(pairs) == 0 {
		return nil
	}
	turns := make([]sdk.Turn, 0, len(pairs))
	for i, p := range pairs {
		pl, cl := tok.Count(p.Prompt), tok.Count(p.Completion)
		// AIPerf 0.13 skips the minimum completion check only with an OSL
		// mean on the dataset, which a public dataset never carries.
		if !base.IsValidSequence(pl, cl, false) {
			return nil
		}
		t := sdk.Turn{Texts: []string{p.Prompt}, MaxTokens: &cl}
		if i == 0 {
			t.Images = images
		}
		turns = append(turns, t)
	}
	return turns
}

// normalize is AIPerf's _normalize_messages: a list-of-lists item stands
// for its first element; only non-empty objects are messages. Each
// message's text is its content key's string with "<image>" removed and
// surrounding space trimmed (missing when empty or not a string).
func (l *Loader) normalize(v any) []base.Message {
	items, _ := v.([]any)
	out := make([]base.Message, 0, len(items))
	for _, it := range items {
		if inner, ok := it.([]any); ok && len(inner) > 0 {
			it = inner[0]
		}
		m, ok := it.(map[string]any)
		if !ok || len(m) == 0 {
			continue
		}
		msg := base.Message{}
		msg.From, _ = m["from"].(string)
		msg.Role, _ = m["role"].(string)
		if s, ok := m[l.contentKey()].(string); ok {
			msg.Text = strings.TrimSpace(strings.ReplaceAll(s, "<image>", ""))
		}
		out = append(out, msg)
	}
	return out
}

// firstUserText is AIPerf's _extract_first_message: the first message
// whose role (or from) is user or human, else the first message.
func firstUserText(msgs []base.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	for _, m := range msgs {
		role := m.Role
		if role == "" {
			role = m.From
		}
		if r := strings.ToLower(role); r == "user" || r == "human" {
			return m.Text
		}
	}
	return msgs[0].Text
}

// pairsOf is AIPerf's _prompt_completion_pairs: ShareGPT from-roles when
// they give any pair, else consecutive user->assistant messages (system
// messages dropped).
func pairsOf(msgs []base.Message) []base.Pair {
	if len(msgs) < 2 {
		return nil
	}
	if sg, _ := base.ShareGPTPairs(msgs); len(sg) > 0 {
		return sg
	}
	var chat []base.Message
	for _, m := range msgs {
		if strings.ToLower(m.Role) != "system" {
			chat = append(chat, m)
		}
	}
	var pairs []base.Pair
	for i := 0; i < len(chat)-1; {
		if strings.ToLower(chat[i].Role) == "user" && strings.ToLower(chat[i+1].Role) == "assistant" {
			if chat[i].Text != "" && chat[i+1].Text != "" {
				pairs = append(pairs, base.Pair{Prompt: chat[i].Text, Completion: chat[i+1].Text})
			}
			i += 2
		} else {
			i++
		}
	}
	return pairs
}
