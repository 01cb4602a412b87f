// Package records turns finished requests into processed records: parse the
// responses with the endpoint, count tokens, compute metrics, then feed the
// accumulators and stream to the record sinks. It runs off the timed path,
// in parallel, so tokenization never caps the request rate.
package records

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/core/engine"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// TokenSource says where a record's token counts come from.
type TokenSource int

const (
	// ClientTokenizer counts with the run's tokenizer (AIPerf's default).
	ClientTokenizer TokenSource = iota
	// ServerUsage takes the counts from the server's usage fields
	// (--use-server-token-count); absent usage leaves them absent.
	ServerUsage
)

// Parse parses a finished request's responses and counts its tokens.
//
// Output tokens are one encode over the concatenated answer text, reasoning
// tokens one encode over the concatenated reasoning text (never a chunk
// count). A valid record with reasoning but no answer text has 0 output
// tokens; one with no generated text at all has none (absent). A response
// unit the endpoint cannot parse turns the record into an error, because
// its token counts would otherwise be silently wrong, and a 2xx record
// without any content unit is AIPerf's InvalidInferenceResultError
// (markInvalid).
//
// The input is read from the body actually sent (for a later turn, the
// whole conversation it carried; engine.BodyInputs), as AIPerf counts it per
// record; a prepared body sent many times is tokenized once. With server
// usage it is counted only when the record has no responses, so no usage
// can replace the count.
func Parse(ep sdk.Endpoint, tok sdk.Tokenizer, c engine.Completed, src TokenSource) *sdk.ParsedRecord {
	rec := c.Record
	count := (src == ClientTokenizer || len(rec.Responses) == 0) && ep.Metadata().TokenizesInput
	inText, tokens, in := c.Request.Inputs(ep, tok, rec.RequestBody, count)
	pr := &sdk.ParsedRecord{Record: rec, InputText: inText, InputTokens: tokens,
		InputImages: in.Images, InputAudios: in.Audios, InputVideos: in.Videos,
		AudioDurationS: c.Request.TurnInfo().AudioDurationS}
	if len(rec.Responses) == 0 {
		if rec.Error == nil {
			markInvalid(pr, noResponsesNote)
		}
		return pr
	}
	pr.Responses = make([]sdk.ParsedResponse, 0, len(rec.Responses))
	parse := unitParser(ep, rec.Responses)
	var text, reasoning strings.Builder
	content := false
	for i, raw := range rec.Responses {
		p, err := parse(i)
		if err != nil {
			if rec.Error == nil {
				// The engine may still read the record it handed over
				// (multi-turn history): mark a copy, never its record.
				failed := *rec
				failed.Error = &sdk.ErrorDetails{Type: "ResponseParseError", Message: fmt.Sprintf("response %d: %v", i, err)}
				rec, pr.Record = &failed, &failed
			}
			continue
		}
		p.PerfNs = raw.PerfNs
		if p.Usage != nil {
			pr.Usage = p.Usage // the last non-empty usage wins
		}
		if !p.HasContent() && p.Usage == nil {
			continue
		}
		content = content || p.HasContent()
		text.WriteString(p.Text)
		reasoning.WriteString(p.Reasoning)
		pr.Responses = append(pr.Responses, p)
	}
	if src == ServerUsage {
		applyServerUsage(pr)
	}
	if rec.Error == nil && !content {
		markInvalid(pr, noContentNote)
		return pr
	}
	if src == ServerUsage {
		return pr
	}
	if !rec.Valid() || tok == nil {
		return pr
	}
	if reasoning.Len() > 0 {
		n := tok.Count(reasoning.String())
		pr.ReasoningTokens = &n
	}
	if text.Len() > 0 || reasoning.Len() > 0 {
		n := 0
		if text.Len() > 0 {
			n = tok.Count(text.String())
		}
		pr.OutputTokens = &n
	}
	return pr
}

// ErrTypeInvalidResult is the error type of a 2xx record without content,
// AIPerf's InvalidInferenceResultError.
const ErrTypeInvalidResult = "InvalidInferenceResultError"

// AIPerf's notes on an invalid result (RequestRecord and
// ParsedResponseRecord.create_error_from_invalid), joined to its message.
const (
	noResponsesNote = "No responses were received"
	noContentNote   = "No responses with actual content were received from the server (only usage/metadata, null/empty data, or [DONE] markers)"
)

// markInvalid turns a record that succeeded on the wire but carried no
// content (an empty body or stream, `choices: []`, only usage or [DONE])
// into an error, as AIPerf does for every endpoint: non-text endpoints
// count as content through their Result. The message is AIPerf's
// repr(exception) with its note. Like AIPerf's error records, it keeps
// only the input counts.
func markInvalid(pr *sdk.ParsedRecord, note string) {
	failed := *pr.Record // the engine may still read its record (multi-turn)
	failed.Error = &sdk.ErrorDetails{Type: ErrTypeInvalidResult,
		Message: ErrTypeInvalidResult + "('Invalid inference result: " + note + "')"}
	pr.Record = &failed
	pr.Responses, pr.Usage, pr.OutputTokens, pr.ReasoningTokens = nil, nil, nil, nil
}

// applyServerUsage replaces the counts with the server's last usage: ISL is
// prompt_tokens, reasoning is reasoning_tokens, and output is
// completion_tokens minus reasoning (so OSL = completion_tokens). The
// tokenizer is never called; fields the server did not report stay absent.
func applyServerUsage(pr *sdk.ParsedRecord) {
	pr.InputTokens, pr.OutputTokens, pr.ReasoningTokens = nil, nil, nil
	u := pr.Usage
	if u == nil {
		return
	}
	pr.InputTokens = u.PromptTokens
	pr.ReasoningTokens = u.ReasoningTokens
	if u.CompletionTokens != nil {
		out := *u.CompletionTokens
		if u.ReasoningTokens != nil {
			out -= *u.ReasoningTokens
		}
		pr.OutputTokens = &out
	}
}

// unitParser returns a parser for the record's units: one ParseRecord call
// for the whole record when the endpoint offers it (external plugins: one
// call per record, never per chunk), else ParseResponse per unit.
func unitParser(ep sdk.Endpoint, units []sdk.Response) func(i int) (sdk.ParsedResponse, error) {
	rp, ok := ep.(sdk.RecordParser)
	if !ok {
		return func(i int) (sdk.ParsedResponse, error) { return ep.ParseResponse(units[i].Data) }
	}
	parsed, err := rp.ParseRecord(units)
	if err == nil && len(parsed) != len(units) {
		err = fmt.Errorf("endpoint returned %d parsed responses for %d units", len(parsed), len(units))
	}
	return func(i int) (sdk.ParsedResponse, error) {
		if err != nil {
			return sdk.ParsedResponse{}, err
		}
		return parsed[i], nil
	}
}
