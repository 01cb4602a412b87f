package transport

import (
	"bytes"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// utf8BOM is stripped from the start of a stream, as WHATWG requires.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// minSlab is the first data slab of a stream. Event payloads are built in
// slabs so a stream costs a handful of allocations, not one per event.
const minSlab = 4096

// SSEParser is an incremental WHATWG Server-Sent Events parser that works on
// raw bytes. Feed it each Read() of a body in order with the time of that
// read; it appends one sdk.Response per dispatched event.
//
// Semantics (WHATWG "parsing an event stream", plus AIPerf's EOF rule):
//   - lines end in LF, CRLF or CR, also when a CRLF is split across reads;
//   - a blank line dispatches the event; data: lines join with "\n";
//   - one space after the colon is stripped; a line without a colon is a
//     field with an empty value; unknown fields (id, retry, …) are ignored;
//   - ":" lines are comments; a block with no data field is not an event,
//     except an "event: error" block, which is dispatched so the transport
//     can fail the request;
//   - a leading UTF-8 BOM is stripped;
//   - Finish dispatches a final event that lacks its blank line, as AIPerf's
//     AsyncSSEStreamReader does with the buffer left at EOF (WHATWG would
//     drop it; servers that forget the last blank line are common);
//   - "data: [DONE]" is kept as an ordinary event: the endpoint parser maps
//     it to an empty response, and the raw export keeps the stream verbatim.
//
// An event's PerfNs is the time of the read that delivered its first byte.
// Bytes are never decoded, so multi-byte UTF-8 split across reads stays
// intact. The zero value is ready to use; an SSEParser is not safe for
// concurrent use.
type SSEParser struct {
	partial   []byte // incomplete line carried across reads
	partialNs int64  // time of the read that delivered partial's first byte
	pendingCR bool   // previous read ended in CR: a leading LF is its pair
	started   bool   // the stream's first line has been seen (BOM check)

	inEvent  bool // a non-blank line of the current block was seen
	eventNs  int64
	dataAt   int // where the open event's payload starts in slab
	hasData  bool
	evType   []byte
	comment  []byte
	hasComm  bool
	lastType string // last event type string, reused to avoid allocations

	slab []byte // where dispatched payloads live; never reused after Reset

	errComment    string
	hasErrComment bool
	sawError      bool
}

// Reset prepares the parser for a new stream. Scratch buffers are kept;
// payloads already handed out stay valid because the slab is dropped.
func (p *SSEParser) Reset() {
	*p = SSEParser{
		partial:  p.partial[:0],
		evType:   p.evType[:0],
		comment:  p.comment[:0],
		lastType: p.lastType,
	}
}

// ErrorComment returns the first comment line of the first "event: error"
// block, which AIPerf prefers over the data as the error message.
func (p *SSEParser) ErrorComment() (string, bool) { return p.errComment, p.hasErrComment }

// Feed parses one read of the stream, received at perfNs, and returns dst
// with the events it completed appended.
func (p *SSEParser) Feed(dst []sdk.Response, chunk []byte, perfNs int64) []sdk.Response {
	if p.pendingCR && len(chunk) > 0 {
		p.pendingCR = false
		if chunk[0] == '\n' {
			chunk = chunk[1:]
		}
	}
	pos := 0
	crAt := -2 // next CR at or after pos; -2 unknown, -1 none in chunk
	for pos < len(chunk) {
		lf := bytes.IndexByte(chunk[pos:], '\n')
		end := len(chunk)
		if lf >= 0 {
			end = pos + lf
		}
		if crAt != -1 && crAt < pos {
			crAt = bytes.IndexByte(chunk[pos:], '\r')
			if crAt >= 0 {
				crAt += pos
			}
		}
		next := end + 1 // skip an LF terminator
		if crAt >= 0 && crAt < end {
			end = crAt
			switch {
			case end+1 == len(chunk):
				p.pendingCR = true
				next = end + 1
			case chunk[end+1] == '\n':
				next = end + 2
			default:
				next = end + 1
			}
		} else if lf < 0 {
			// No terminator: keep the rest for the next read.
			if len(p.partial) == 0 {
				p.partialNs = perfNs
			}
			p.partial = append(p.partial, chunk[pos:]...)
			return dst
		}
		line, lineNs := chunk[pos:end], perfNs
		if len(p.partial) > 0 {
			p.partial = append(p.partial, line...)
			line, lineNs = p.partial, p.partialNs
		}
		dst = p.line(dst, line, lineNs)
		p.partial = p.partial[:0]
		pos = next
	}
	return dst
}

// Finish ends the stream: an unterminated last line is processed and an
// event still open is dispatched.
func (p *SSEParser) Finish(dst []sdk.Response) []sdk.Response {
	if len(p.partial) > 0 {
		dst = p.line(dst, p.partial, p.partialNs)
		p.partial = p.partial[:0]
	}
	return p.dispatch(dst)
}

// line handles one complete line (terminator removed) whose first byte
// arrived at lineNs.
func (p *SSEParser) line(dst []sdk.Response, line []byte, lineNs int64) []sdk.Response {
	if !p.started {
		p.started = true
		line = bytes.TrimPrefix(line, utf8BOM)
	}
	if len(line) == 0 {
		return p.dispatch(dst)
	}
	if !p.inEvent {
		p.inEvent = true
		p.eventNs = lineNs
	}
	field, value := line, line[:0]
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) { // no allocation: the compiler compares in place
	case "data":
		p.appendData(value)
	case "event":
		p.evType = append(p.evType[:0], value...)
	case "":
		if !p.hasComm {
			p.comment = append(p.comment[:0], value...)
			p.hasComm = true
		}
	}
	return dst
}

// dispatch emits the open event, if it is one, and resets the block state.
func (p *SSEParser) dispatch(dst []sdk.Response) []sdk.Response {
	isErr := isErrorType(p.evType)
	if p.hasData || isErr {
		if isErr && !p.sawError {
			p.sawError = true
			if p.hasComm {
				p.errComment, p.hasErrComment = string(p.comment), true
			}
		}
		dst = append(dst, sdk.Response{
			PerfNs: p.eventNs,
			Event:  p.typeString(),
			Data:   p.payload(),
		})
	}
	p.inEvent, p.hasData, p.hasComm = false, false, false
	p.evType, p.comment = p.evType[:0], p.comment[:0]
	return dst
}

// typeString returns the event type, allocating only when it changes.
func (p *SSEParser) typeString() string {
	if len(p.evType) == 0 {
		return "" // the default "message" type
	}
	if string(p.evType) != p.lastType {
		p.lastType = string(p.evType)
	}
	return p.lastType
}

// appendData adds one data line to the open event's payload, which grows
// in place at the slab's tail: each payload byte is copied once.
func (p *SSEParser) appendData(value []byte) {
	need := len(value)
	if p.hasData {
		need++
	} else {
		p.dataAt = len(p.slab)
	}
	if cap(p.slab)-len(p.slab) < need {
		// Start a new slab and carry the open payload over; earlier
		// payloads keep the old one alive.
		open := p.slab[p.dataAt:]
		next := make([]byte, 0, max(minSlab, 2*cap(p.slab), len(open)+need))
		p.slab, p.dataAt = append(next, open...), 0
	}
	if p.hasData {
		p.slab = append(p.slab, '\n')
	}
	p.slab = append(p.slab, value...)
	p.hasData = true
}

// payload returns the open event's data, capacity-capped so a consumer
// appending to one payload cannot overwrite the next.
func (p *SSEParser) payload() []byte {
	if !p.hasData {
		return []byte{}
	}
	end := len(p.slab)
	return p.slab[p.dataAt:end:end]
}

// isErrorType reports whether an event type names an error event; AIPerf
// compares case-insensitively.
func isErrorType(t []byte) bool { return bytes.EqualFold(t, errorType) }

var errorType = []byte("error")
