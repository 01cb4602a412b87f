package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/google/uuid"
)

// ErrTypeFormData is the error type of a body that cannot be sent as a
// form: AIPerf's _build_form_data raises ValueError.
const ErrTypeFormData = "ValueError"

// formRequest returns a copy of req whose body is req.Body, a JSON object,
// encoded as multipart/form-data, and whose Content-Type header (any
// spelling) is the form's. req itself is left alone: the caller's body is
// the JSON the record keeps.
func formRequest(req *sdk.TransportRequest) (*sdk.TransportRequest, error) {
	boundary := newBoundary()
	body, err := buildForm(req.Body, boundary)
	if err != nil {
		return nil, err
	}
	out := *req
	out.Body = body
	out.Headers = withoutContentType(req.Headers, 1)
	out.Headers["Content-Type"] = "multipart/form-data; boundary=" + boundary
	return &out, nil
}

// newBoundary is aiohttp's boundary: uuid4().hex, 32 hex digits.
func newBoundary() string {
	u := uuid.New()
	return hex.EncodeToString(u[:])
}

// withoutContentType copies headers without Content-Type, with room for
// extra more.
func withoutContentType(headers map[string]string, extra int) map[string]string {
	out := make(map[string]string, len(headers)+extra)
	for k, v := range headers {
		if !strings.EqualFold(k, "Content-Type") {
			out[k] = v
		}
	}
	return out
}

// buildForm encodes a JSON object as aiohttp encodes AIPerf's
// _build_form_data(payload): one part per key in order; null skipped;
// booleans as true/false; an object {"b64_data": <base64>, "filename",
// "content_type"} as a file part of the decoded bytes; anything else as
// Python's str() of the value (numbers as Python prints them, lists and
// objects as their repr). Part headers, in aiohttp's order:
//
//	Content-Type: text/plain; charset=utf-8
//	Content-Disposition: form-data; name="<key>"
func buildForm(jsonBody []byte, boundary string) ([]byte, error) {
	v, err := decodePy(jsonBody)
	if err != nil {
		return nil, fmt.Errorf("form data: the body is not JSON: %w", err)
	}
	fields, ok := v.(pyDict)
	if !ok {
		return nil, fmt.Errorf("form data: the body is a JSON %s, not an object", pyTypeName(v))
	}
	var b bytes.Buffer
	b.Grow(len(jsonBody) + len(fields)*(len(boundary)+96))
	for _, f := range fields {
		if f.val == nil {
			continue
		}
		name, err := formName(f.key)
		if err != nil {
			return nil, err
		}
		contentType, disposition, content := "text/plain; charset=utf-8", `form-data; name="`+name+`"`, []byte(nil)
		if file, ok := f.val.(pyDict); ok && isFileField(file) {
			if contentType, disposition, content, err = filePart(f.key, name, file); err != nil {
				return nil, err
			}
		} else {
			content = []byte(formText(f.val))
		}
		b.WriteString("--" + boundary + "\r\n")
		b.WriteString("Content-Type: " + contentType + "\r\n")
		b.WriteString("Content-Disposition: " + disposition + "\r\n\r\n")
		b.Write(content)
		b.WriteString("\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.Bytes(), nil
}

// formText is the text of a non-file field: str(value).lower() for a bool,
// str(value) otherwise.
func formText(v any) string {
	if x, ok := v.(bool); ok {
		if x {
			return "true"
		}
		return "false"
	}
	return pyStr(v)
}

func isFileField(d pyDict) bool {
	v, _ := d.get("b64_data")
	_, ok := v.(string)
	return ok
}

// filePart builds a file field: the decoded bytes, filename (the key when
// none) and content type (application/octet-stream when none).
func filePart(key, name string, file pyDict) (contentType, disposition string, content []byte, err error) {
	b64, _ := file.get("b64_data")
	content, err = base64.StdEncoding.DecodeString(b64.(string))
	if err != nil {
		return "", "", nil, fmt.Errorf("form data: field %s: 'b64_data' is not valid base64", pyQuote(key))
	}
	filename, err := fileOption(file, "filename", key)
	if err != nil {
		return "", "", nil, err
	}
	contentType, err = fileOption(file, "content_type", "application/octet-stream")
	if err != nil {
		return "", "", nil, err
	}
	return contentType, `form-data; name="` + name + `"; filename="` + percentEncode(filename) + `"`, content, nil
}

// fileOption reads a file field's string option: the fallback when it is
// absent or falsy; a non-string, or one that would split the header, is
// refused as aiohttp refuses it.
func fileOption(file pyDict, key, fallback string) (string, error) {
	v, _ := file.get(key)
	if !pyTruthy(v) {
		return fallback, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("form data: file %s must be a string, not %s", key, pyTypeName(v))
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", fmt.Errorf("form data: file %s %s contains a line break", key, pyQuote(s))
	}
	return s, nil
}

// formName quotes a field name as aiohttp's quoted_string does: printable
// ASCII only, with space, tab, '"' and '\' escaped by a backslash. aiohttp
// cannot send other names (it fails writing the form), so they are errors.
func formName(key string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == ' ' || c == '\t' || c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c > ' ' && c < 0x7f:
			b.WriteByte(c)
		default:
			return "", fmt.Errorf("form data: field name %s: only printable ASCII names can be sent as form fields", pyQuote(key))
		}
	}
	return b.String(), nil
}

// percentEncode is Python's urllib.parse.quote(s, safe=""): every UTF-8
// byte but letters, digits and _.-~ as %XX.
func percentEncode(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
