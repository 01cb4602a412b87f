package template

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Media group names of a turn's unnamed contents (AIPerf's synthetic
// data names them so).
const (
	groupText  = "text"
	groupImage = "image_url"
	groupAudio = "input_audio"
	groupVideo = "video_url"
)

type group struct {
	name     string
	contents []string
}

// textGroups are the turn's texts as AIPerf's Turn.texts: Texts (the group
// "text"), then the named TextGroups.
func textGroups(t *sdk.Turn) []group {
	gs := make([]group, 0, 1+len(t.TextGroups))
	if len(t.Texts) > 0 {
		gs = append(gs, group{groupText, t.Texts})
	}
	for _, g := range t.TextGroups {
		gs = append(gs, group{g.Name, g.Contents})
	}
	return gs
}

func mediaGroup(name string, contents []string) []group {
	if len(contents) == 0 {
		return nil
	}
	return []group{{name, contents}}
}

// namedContents is AIPerf's extract_named_contents: every content in order,
// and the contents by group name (groups without contents or name skipped).
func namedContents(gs []group) (all []any, byName map[string]any) {
	all = []any{}
	byName = map[string]any{}
	for _, g := range gs {
		if len(g.contents) == 0 {
			continue
		}
		for _, c := range g.contents {
			all = append(all, c)
		}
		if g.name == "" {
			continue
		}
		list, _ := byName[g.name].([]any)
		for _, c := range g.contents {
			list = append(list, c)
		}
		byName[g.name] = list
	}
	return all, byName
}

// templateVars are the variables AIPerf renders the template with: the
// contents of the last turn, plain and by name, and the turn itself.
func templateVars(req sdk.RequestInfo) map[string]any {
	t := &req.Turn
	texts, textsBy := namedContents(textGroups(t))
	images, imagesBy := namedContents(mediaGroup(groupImage, t.Images))
	audios, audiosBy := namedContents(mediaGroup(groupAudio, t.Audios))
	videos, videosBy := namedContents(mediaGroup(groupVideo, t.Videos))

	queries, _ := textsBy["query"].([]any)
	passages, _ := textsBy["passages"].([]any)
	if len(passages) == 0 {
		passages, _ = textsBy["passage"].([]any)
	}

	model := t.Model
	if model == "" {
		model = req.Model
	}
	turn := turnVars(t)
	turns := make([]any, 0, len(req.History)+1)
	for _, h := range req.History {
		turns = append(turns, historyTurnVars(h))
	}
	turns = append(turns, turn)

	return map[string]any{
		"texts":          texts,
		"images":         images,
		"audios":         audios,
		"videos":         videos,
		"text":           first(texts),
		"image":          first(images),
		"audio":          first(audios),
		"video":          first(videos),
		"queries":        orEmpty(queries),
		"passages":       orEmpty(passages),
		"query":          first(queries),
		"passage":        first(passages),
		"texts_by_name":  textsBy,
		"images_by_name": imagesBy,
		"audios_by_name": audiosBy,
		"videos_by_name": videosBy,
		"model":          model,
		"max_tokens":     intOrNone(t.MaxTokens),
		"role":           stringOrNone(t.Role),
		"turn":           turn,
		"turns":          turns,
		"request_info":   map[string]any{"turns": turns},
		"stream":         req.Streaming,
	}
}

// turnVars is a turn as the template sees AIPerf's Turn model (the fields
// it can carry here).
func turnVars(t *sdk.Turn) map[string]any {
	return map[string]any{
		"model":      stringOrNone(t.Model),
		"role":       stringOrNone(t.Role),
		"max_tokens": intOrNone(t.MaxTokens),
		"texts":      mediaList(textGroups(t)),
		"images":     mediaList(mediaGroup(groupImage, t.Images)),
		"audios":     mediaList(mediaGroup(groupAudio, t.Audios)),
		"videos":     mediaList(mediaGroup(groupVideo, t.Videos)),
		"extra_body": extraVars(t.Extra),
		"delay":      floatOrNone(t.DelayMs),
		"timestamp":  floatOrNone(t.TimestampMs),
	}
}

// historyTurnVars is an earlier turn of the conversation: its text, and the
// role; AIPerf's stored assistant turns have an unnamed text.
func historyTurnVars(h sdk.HistoryEntry) map[string]any {
	name := groupText
	if h.Role == "assistant" {
		name = ""
	}
	return map[string]any{
		"model":      pyNone,
		"role":       stringOrNone(h.Role),
		"max_tokens": pyNone,
		"texts":      mediaList([]group{{name, []string{h.Text}}}),
		"images":     []any{},
		"audios":     []any{},
		"videos":     []any{},
		"extra_body": pyNone,
		"delay":      pyNone,
		"timestamp":  pyNone,
	}
}

// mediaList is a list of AIPerf Media objects: {"name", "contents"}.
func mediaList(gs []group) []any {
	out := make([]any, 0, len(gs))
	for _, g := range gs {
		contents := make([]any, len(g.contents))
		for i, c := range g.contents {
			contents[i] = c
		}
		out = append(out, map[string]any{"name": g.name, "contents": contents})
	}
	return out
}

// extraVars is the turn's extra body with JSON nulls as None.
func extraVars(extra map[string]any) any {
	if len(extra) == 0 {
		return pyNone
	}
	return withNone(extra)
}

func withNone(x any) any {
	switch t := x.(type) {
	case nil:
		return pyNone
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, v := range t {
			out[k] = withNone(v)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = withNone(v)
		}
		return out
	}
	return x
}

func first(list []any) any {
	if len(list) == 0 {
		return pyNone
	}
	return list[0]
}

func orEmpty(list []any) []any {
	if list == nil {
		return []any{}
	}
	return list
}

func stringOrNone(s string) any {
	if s == "" {
		return pyNone
	}
	return s
}

func intOrNone(n *int) any {
	if n == nil {
		return pyNone
	}
	return *n
}

func floatOrNone(f *float64) any {
	if f == nil {
		return pyNone
	}
	return *f
}
