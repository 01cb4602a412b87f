package mooncaketrace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// record is one trace line. Pointers and raw messages tell absent fields
// from zero values; unknown fields are ignored, as AIPerf does.
type record struct {
	Timestamp    *float64        `json:"timestamp"`
	Delay        *float64        `json:"delay"`
	InputLength  *int            `json:"input_length"`
	TextInput    *string         `json:"text_input"`
	Messages     json.RawMessage `json:"messages"`
	Payload      json.RawMessage `json:"payload"`
	Tools        json.RawMessage `json:"tools"`
	OutputLength *int            `json:"output_length"`
	HashIDs      []int           `json:"hash_ids"`
	SessionID    *string         `json:"session_id"`
	Extra        map[string]any  `json:"extra"`
}

// check applies AIPerf's MooncakeTrace rules: exactly one input mode, and
// hash_ids only with input_length. Modes this port cannot send yet are
// rejected by name. Errors name the field; the caller adds file:line.
func (r *record) check() error {
	modes := 0
	for _, set := range []bool{r.InputLength != nil, r.TextInput != nil, present(r.Messages), present(r.Payload)} {
		if set {
			modes++
		}
	}
	switch {
	case modes == 0:
		return errors.New("no input: exactly one of input_length, text_input, messages or payload is required")
	case modes > 1:
		return errors.New("input_length, text_input, messages and payload are mutually exclusive: use only one")
	case present(r.Messages):
		return errors.New("messages: pre-built message arrays are not supported yet (use input_length or text_input)")
	case present(r.Payload):
		return errors.New("payload: verbatim request payloads are not supported yet (use input_length or text_input)")
	case present(r.Tools):
		return errors.New("tools: only allowed with messages, which are not supported yet")
	case r.HashIDs != nil && r.InputLength == nil:
		return errors.New("hash_ids: only allowed together with input_length")
	case r.InputLength != nil && *r.InputLength < 1:
		return fmt.Errorf("input_length: %d, must be at least 1", *r.InputLength)
	case r.TextInput != nil && *r.TextInput == "":
		return errors.New("text_input: empty")
	case r.OutputLength != nil && *r.OutputLength < 0:
		return fmt.Errorf("output_length: %d, must not be negative", *r.OutputLength)
	case r.Delay != nil && *r.Delay < 0:
		return fmt.Errorf("delay: %v ms, must not be negative", *r.Delay)
	}
	return nil
}

func present(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}
