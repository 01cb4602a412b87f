package rawexport

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aiperf-go/aiperf/core/redact"
	"github.com/aiperf-go/aiperf/internal/jsonenc"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Redacted replaces the value of a credential-carrying request header.
const Redacted = redact.Marker

// scratch is a reusable per-call encoding buffer, pooled so steady-state
// WriteRecord calls allocate next to nothing.
type scratch struct {
	buf  []byte
	hdrs []header
	// meta and enc encode the metadata block with encoding/json (HTML
	// escaping off, as Python writes it), so it follows sdk.RecordMetadata's
	// fields and order exactly as profile_export.jsonl does.
	meta bytes.Buffer
	enc  *json.Encoder
	// names caches each header name's rank and redaction: a run sends the
	// same few names on every request.
	names map[string]header
}

// header is one request header name, its place in AIPerf's order
// (headerRank) and whether its value is redacted (SensitiveHeader).
type header struct {
	name      string
	rank      int
	sensitive bool
}

func newScratch() *scratch {
	s := &scratch{buf: make([]byte, 0, 8<<10), names: map[string]header{}}
	s.enc = json.NewEncoder(&s.meta)
	s.enc.SetEscapeHTML(false)
	return s
}

// appendRaw appends one compact JSON line (with its trailing newline) in
// AIPerf 0.13's RawRecordInfo layout, keys in its order:
//
//	{"metadata":{…},"start_perf_ns":N,"request_headers":{…},"status":N,
//	 "responses":[…],"error":{…},"payload":{…}}
//
// "status" is absent when no response arrived, "error" on successful
// requests, and "payload" when nothing was sent.
func appendRaw(s *scratch, rec *sdk.RecordInfo) ([]byte, error) {
	r := rec.Request
	s.meta.Reset()
	if err := s.enc.Encode(&rec.Metadata); err != nil {
		return nil, err
	}
	b := append(s.buf[:0], `{"metadata":`...)
	b = append(b, bytes.TrimSuffix(s.meta.Bytes(), []byte{'\n'})...)
	b = append(b, `,"start_perf_ns":`...)
	b = strconv.AppendInt(b, r.StartPerfNs, 10)
	b = append(b, `,"request_headers":`...)
	b = s.appendHeaders(b, r.RequestHeaders)
	if r.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
	}
	b = append(b, `,"responses":[`...)
	for i := range r.Responses {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendResponse(b, &r.Responses[i], r.Streaming)
	}
	b = append(b, ']')
	// The error of the request record, as profile_export.jsonl writes the
	// record's (a parse failure the pipeline found is there too).
	if e := rec.Error; e != nil {
		b = appendError(b, e)
	} else if e := r.Error; e != nil {
		b = appendError(b, e)
	}
	if r.RequestBody != nil {
		b = append(b, `,"payload":`...)
		b = appendPayload(b, r.RequestBody)
	}
	b = append(b, "}\n"...)
	s.buf = b
	return b, nil
}

// appendHeaders writes the headers sent in AIPerf's order (headerRank),
// each credential-carrying value replaced by Redacted.
func (s *scratch) appendHeaders(b []byte, h map[string]string) []byte {
	s.hdrs = s.hdrs[:0]
	for k := range h {
		s.hdrs = append(s.hdrs, s.header(k))
	}
	slices.SortFunc(s.hdrs, func(x, y header) int {
		if x.rank != y.rank {
			return x.rank - y.rank
		}
		return strings.Compare(x.name, y.name)
	})
	b = append(b, '{')
	for i, hd := range s.hdrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, hd.name)
		b = append(b, ':')
		if hd.sensitive {
			b = jsonenc.AppendString(b, Redacted)
		} else {
			b = jsonenc.AppendString(b, h[hd.name])
		}
	}
	return append(b, '}')
}

func (s *scratch) header(name string) header {
	hd, ok := s.names[name]
	if !ok {
		hd = header{name: name, rank: headerRank(name), sensitive: SensitiveHeader(name)}
		if len(s.names) < 256 {
			s.names[name] = hd
		}
	}
	return hd
}

// headerRank orders request headers as AIPerf 0.13's transport builds them:
// User-Agent, X-Request-ID, X-Correlation-ID, the endpoint headers (the -H
// headers, then Authorization from --api-key), then Accept and
// Content-Type, then the session-affinity headers. The -H headers come by
// name: the run keeps them in a map, so their command-line order is gone.
func headerRank(name string) int {
	switch {
	case strings.EqualFold(name, "User-Agent"):
		return 0
	case strings.EqualFold(name, "X-Request-ID"):
		return 1
	case strings.EqualFold(name, "X-Correlation-ID"):
		return 2
	case strings.EqualFold(name, "Authorization"):
		return 4
	case strings.EqualFold(name, "Accept"):
		return 5
	case strings.EqualFold(name, "Content-Type"):
		return 6
	case strings.EqualFold(name, "X-Session-ID"), strings.EqualFold(name, "X-Session-Affinity"),
		strings.EqualFold(name, "X-SMG-Routing-Key"):
		return 7
	}
	return 3
}

// appendResponse writes one response unit. A streamed unit is AIPerf's
// SSEMessage: its perf_ns and its fields as packets, the event type first
// when the event named one, then one "data" packet per data line (the
// transport joined them with "\n"), values trimmed as AIPerf trims them.
// Comment, id and retry lines are not kept by the transport, so they do
// not appear. A whole body is AIPerf's TextResponse: perf_ns and text (the
// response's content_type is not recorded, so it is omitted).
func appendResponse(b []byte, r *sdk.Response, streaming bool) []byte {
	b = append(b, `{"perf_ns":`...)
	b = strconv.AppendInt(b, r.PerfNs, 10)
	if !streaming {
		b = append(b, `,"text":`...)
		b = appendBytesString(b, r.Data)
		return append(b, '}')
	}
	b = append(b, `,"packets":[`...)
	n := 0
	if r.Event != "" {
		b = appendPacket(b, "event", []byte(strings.TrimSpace(r.Event)))
		n++
	}
	if len(r.Data) > 0 || n == 0 {
		data := r.Data
		for {
			line, rest, more := bytes.Cut(data, []byte{'\n'})
			if n > 0 {
				b = append(b, ',')
			}
			b = appendPacket(b, "data", bytes.TrimSpace(line))
			n++
			if !more {
				break
			}
			data = rest
		}
	}
	return append(b, "]}"...)
}

func appendPacket(b []byte, name string, value []byte) []byte {
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, name)
	b = append(b, `,"value":`...)
	b = appendBytesString(b, value)
	return append(b, '}')
}

// appendBytesString writes p as a JSON string without copying it to a
// string first (invalid UTF-8 becomes U+FFFD).
func appendBytesString(b, p []byte) []byte {
	if len(p) == 0 {
		return append(b, `""`...)
	}
	// jsonenc only reads the string during the call, and p is not modified
	// meanwhile: the view saves a copy of every response.
	return jsonenc.AppendString(b, unsafe.String(unsafe.SliceData(p), len(p)))
}

func appendError(b []byte, e *sdk.ErrorDetails) []byte {
	b = append(b, `,"error":{`...)
	if e.Code != 0 {
		b = append(b, `"code":`...)
		b = strconv.AppendInt(b, int64(e.Code), 10)
		b = append(b, ',')
	}
	b = append(b, `"type":`...)
	b = jsonenc.AppendString(b, e.Type)
	b = append(b, `,"message":`...)
	b = jsonenc.AppendString(b, e.Message)
	if e.RetryAfter != "" {
		b = append(b, `,"retry_after":`...)
		b = jsonenc.AppendString(b, e.RetryAfter)
	}
	return append(b, '}')
}

// appendPayload writes the request body as sent. A JSON body (every
// built-in endpoint's) is spliced verbatim, as AIPerf splices its payload
// bytes, and like AIPerf without re-parsing it on every record: only its
// first and last bytes are checked. A body with line breaks is compacted
// (which validates it) so the line stays one line; a body that is not JSON
// is written as a string so the line stays valid.
func appendPayload(b, body []byte) []byte {
	if !looksJSON(body) {
		return appendBytesString(b, body)
	}
	if bytes.IndexByte(body, '\n') < 0 && bytes.IndexByte(body, '\r') < 0 {
		return append(b, body...)
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, body); err != nil {
		return appendBytesString(b, body)
	}
	return buf.Bytes()
}

// looksJSON reports whether body is a JSON object or array at its ends.
func looksJSON(body []byte) bool {
	t := bytes.TrimSpace(body)
	if len(t) < 2 {
		return false
	}
	first, last := t[0], t[len(t)-1]
	return first == '{' && last == '}' || first == '[' && last == ']'
}

// SensitiveHeader reports whether a request header's value is a credential,
// to be written as Redacted: core/redact.Header, the union of AIPerf 0.13's
// is_sensitive_header_name and core/config's credential-name rule.
func SensitiveHeader(name string) bool { return redact.Header(name) }
