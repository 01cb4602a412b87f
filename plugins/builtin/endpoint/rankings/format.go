package rankings

import (
	"errors"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// Errors of FormatPayload, AIPerf's ValueErrors.
var (
	ErrMultiTurn = errors.New("rankings endpoint only supports one turn")
	ErrNoQuery   = errors.New("rankings request requires a text with name 'query' or 'queries'. " +
		"Provide a Text object with name='query' or name='queries' containing the search query")
)

// builder is what the API-specific body builders work with.
type builder struct {
	body     *openai.Object
	model    string
	query    string
	passages []string
}

// FormatPayload implements sdk.Endpoint. The query is the first content of
// the turn's "query"/"queries" groups and the passages every content of its
// "passages" groups, empty ones included, as in AIPerf; Texts and other
// groups are ignored (AIPerf only warns). No query is ErrNoQuery. The API's
// body gets --extra-inputs and then Turn.Extra merged over it; MaxTokens and
// Streaming are ignored.
func (e *Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	if len(req.History) > 0 {
		return nil, fmt.Errorf("%s: format payload: %w", e.name, ErrMultiTurn)
	}
	var queries, passages []string
	for _, g := range req.Turn.TextGroups {
		switch g.Name {
		case sdk.TextGroupPassages:
			passages = append(passages, g.Contents...)
		case sdk.TextGroupQuery, "queries":
			queries = append(queries, g.Contents...)
		}
	}
	if len(queries) == 0 {
		return nil, fmt.Errorf("%s: format payload: %w", e.name, ErrNoQuery)
	}
	if passages == nil {
		passages = []string{} // sent as []
	}
	b := builder{body: openai.NewObject(3 + len(req.ExtraInputs) + len(req.Turn.Extra)),
		model: openai.TurnModel(&req), query: queries[0], passages: passages}
	if e.sendsModel && b.model == "" {
		return nil, fmt.Errorf("%s: format payload: no model (RequestInfo.Model and Turn.Model are empty)", e.name)
	}
	e.build(&b)
	openai.ApplyExtras(b.body, req.ExtraInputs, req.Turn.Extra)
	size := 128 + len(b.query) + 64*len(req.ExtraInputs) + 64*len(req.Turn.Extra)
	for _, p := range passages {
		size += len(p) + 16
	}
	out, err := b.body.AppendJSON(make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: format payload: %w", e.name, err)
	}
	return out, nil
}

func buildNIM(b *builder) {
	b.body.Set("model", b.model)
	b.body.Set("query", textObject(b.query))
	b.body.Set("passages", textObjects(b.passages))
}

func buildHFTEI(b *builder) {
	b.body.Set("query", b.query)
	b.body.Set("texts", b.passages)
}

func buildCohere(b *builder) {
	b.body.Set("model", b.model)
	b.body.Set("query", b.query)
	b.body.Set("documents", b.passages)
}

// textObject is NIM's {"text":...} query.
type textObject string

func (t textObject) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"text":`...)
	dst = openai.AppendString(dst, string(t))
	return append(dst, '}'), nil
}

// textObjects is NIM's passages, a list of {"text":...}.
type textObjects []string

func (t textObjects) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, '[')
	for i, s := range t {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, _ = textObject(s).AppendJSON(dst)
	}
	return append(dst, ']'), nil
}
