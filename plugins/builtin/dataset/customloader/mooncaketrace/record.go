package mooncaketrace

import (
	"bytes"
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

// check applies AIPerf's MooncakeTrace rules (validate_input,
// validate_payload, validate_messages): exactly one input mode, hash_ids
// only with input_length, a non-empty payload object, tools only with
// messages and non-empty, messages a non-empty list of objects with a
// "role". Errors name the field; the caller adds file:line.
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
	case r.HashIDs != nil && r.InputLength == nil:
		return errors.New("hash_ids: only allowed together with input_length")
	}
	if err := checkRaw(r); err != nil {
		return err
	}
	switch {
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

// checkRaw validates the shapes of payload, tools and messages as AIPerf's
// model does (list[dict] / dict, non-empty, a "role" in every message).
func checkRaw(r *record) error {
	if present(r.Payload) {
		var p map[string]json.RawMessage
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return errors.New("payload: must be a JSON object")
		}
		if len(p) == 0 {
			return errors.New("payload: must be a non-empty object")
		}
	}
	if present(r.Tools) {
		if !present(r.Messages) {
			return errors.New("tools: only allowed when messages is provided")
		}
		var tools []map[string]json.RawMessage
		if err := json.Unmarshal(r.Tools, &tools); err != nil {
			return errors.New("tools: must be a list of objects")
		}
		if len(tools) == 0 {
			return errors.New("tools: must be a non-empty list")
		}
	}
	if present(r.Messages) {
		var msgs []json.RawMessage
		if err := json.Unmarshal(r.Messages, &msgs); err != nil {
			return errors.New("messages: must be a list of objects")
		}
		if len(msgs) == 0 {
			return errors.New("messages: must be a non-empty list")
		}
		for i, raw := range msgs {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil || m == nil {
				return fmt.Errorf("messages[%d]: must be an object with a \"role\" key", i)
			}
			if _, ok := m["role"]; !ok {
				return fmt.Errorf("messages[%d]: has no \"role\" key", i)
			}
		}
	}
	return nil
}

func present(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}

// compactJSON is raw without insignificant whitespace, as AIPerf re-encodes
// a record's messages, tools and payload before sending them.
func compactJSON(raw json.RawMessage) (json.RawMessage, error) {
	if !present(raw) {
		return nil, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
