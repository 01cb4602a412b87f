package rankings

import (
	"encoding/json"
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

// unit is a decoded response unit with the endpoint's name for errors.
type unit struct {
	openai.Unit
	name string
	data []byte
}

// ParseResponse implements sdk.Endpoint: the ranked items of the API's
// response make one rankings result; an empty or missing list carries
// nothing (AIPerf's "no content" error for the request). Server usage is not
// read, as in AIPerf.
func (e *Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	u, ok, err := openai.DecodeUnit(e.name, data)
	if err != nil || !ok {
		return sdk.ParsedResponse{}, err
	}
	n, err := e.count(&unit{Unit: u, name: e.name, data: data})
	if err != nil || n == 0 {
		return sdk.ParsedResponse{}, err
	}
	return sdk.ParsedResponse{Result: &sdk.Result{Kind: sdk.ResultRankings, Count: n}}, nil
}

// countNIM reads "rankings".
func countNIM(u *unit) (int, error) {
	if u.Object == nil {
		return 0, u.notObject()
	}
	return countList(u.Object["rankings"]), nil
}

// countHFTEI reads a top-level list, else "results".
func countHFTEI(u *unit) (int, error) {
	switch {
	case u.Array != nil:
		return len(u.Array), nil
	case u.Object == nil:
		return 0, u.notObject()
	}
	return countList(u.Object["results"]), nil
}

// countCohere reads "results", whose items AIPerf maps to
// {"index","score"}: each must be an object.
func countCohere(u *unit) (int, error) {
	if u.Object == nil {
		return 0, u.notObject()
	}
	raw := u.Object["results"]
	if openai.JSONFalsy(raw) {
		return 0, nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return 0, fmt.Errorf(`%s: "results" is not a list: %q`, u.name, openai.ErrorHead(u.data))
	}
	for i, it := range items {
		if it[0] != '{' {
			return 0, fmt.Errorf("%s: results[%d] is not an object: %q", u.name, i, openai.ErrorHead(u.data))
		}
	}
	return len(items), nil
}

// countList counts a list of ranked items. AIPerf keeps any other truthy
// value as the rankings, unchecked, so it counts as one item of content.
func countList(raw json.RawMessage) int {
	if openai.JSONFalsy(raw) {
		return 0
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return 1
	}
	return len(items)
}

func (u *unit) notObject() error {
	return fmt.Errorf("%s: response is not a JSON object: %q", u.name, openai.ErrorHead(u.data))
}
