package completions

import (
	"bytes"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/openai"
)

var _ sdk.FirstTokenDetector = (*Endpoint)(nil)

// IsFirstToken implements sdk.FirstTokenDetector: it reports what
// ParseResponse(data).HasContent() would (choices[0].text non-empty) with
// the shared scanner, so [DONE], empty-text and usage chunks cost no
// allocation. Shapes the scanner does not handle go through the full
// parse; malformed data is not a first token.
func (e *Endpoint) IsFirstToken(data []byte) bool {
	if openai.IsEmptyUnit(data) {
		return false
	}
	if text, ok := scanFirstText(data); ok {
		return text
	}
	p, err := e.ParseResponse(data)
	return err == nil && p.HasContent()
}

// scanFirstText reports whether choices[0].text is a non-empty string; ok
// is false when the scanner could not read the document. encoding/json
// matches keys case-insensitively, so a key that differs only in case is
// left to it.
func scanFirstText(data []byte) (text, ok bool) {
	s := openai.NewScanner(data)
	s.Object(func(key []byte) {
		switch {
		case string(key) != "choices":
			if bytes.EqualFold(key, choicesKey) {
				s.Fail()
				return
			}
			s.Skip()
		case s.Null():
		default:
			s.Array(func(i int) {
				switch {
				case i > 0:
					s.Skip()
				case s.Peek() != '{':
					s.Fail()
				default:
					s.Object(func(key []byte) {
						switch {
						case string(key) == "text":
							text = s.NonEmptyString()
						case bytes.EqualFold(key, textKey):
							s.Fail()
						default:
							s.Skip()
						}
					})
				}
			})
		}
	})
	return text, s.End()
}

var choicesKey, textKey = []byte("choices"), []byte("text")
