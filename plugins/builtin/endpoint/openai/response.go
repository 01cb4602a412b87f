package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// errorHeadBytes is how much of a bad response unit an error quotes.
const errorHeadBytes = 200

var doneSentinel = []byte("[DONE]")

// IsEmptyUnit reports whether a response unit carries nothing to parse: an
// empty SSE data field or the [DONE] sentinel.
func IsEmptyUnit(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) == 0 || bytes.Equal(t, doneSentinel)
}

// Unmarshal decodes one response unit into v. A field of the wrong type is
// skipped and left zero (AIPerf reads fields with dict lookups and ignores
// shapes it does not expect), but malformed JSON or a top level that is not an
// object is an error that names the endpoint and quotes the data's start.
func Unmarshal(endpoint string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return nil
	}
	return fmt.Errorf("%s: malformed response JSON (%v): %q", endpoint, err, head(data, errorHeadBytes))
}

func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
