package transport

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// formPart is one part of a multipart body as mime/multipart reads it.
type formPart struct {
	header textproto.MIMEHeader
	name   string
	file   string
	data   string
}

func readForm(t *testing.T, body []byte, boundary string) []formPart {
	t.Helper()
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	var parts []formPart
	for {
		p, err := r.NextRawPart()
		if err == io.EOF {
			return parts
		}
		if err != nil {
			t.Fatalf("parse multipart body: %v", err)
		}
		data, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, formPart{header: p.Header, name: p.FormName(), file: p.FileName(), data: string(data)})
	}
}

func sameForms(t *testing.T, got, want []formPart) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d parts, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.name != w.name || g.file != w.file || g.data != w.data {
			t.Errorf("part %d = name %q file %q data %q, want name %q file %q data %q", i, g.name, g.file, g.data, w.name, w.file, w.data)
		}
		for _, h := range []string{"Content-Type", "Content-Disposition"} {
			if g.header.Get(h) != w.header.Get(h) {
				t.Errorf("part %d %s = %q, want %q", i, h, g.header.Get(h), w.header.Get(h))
			}
		}
	}
}

// buildForm writes the bytes aiohttp wrote for AIPerf: the captured video
// generation bodies and a payload with every kind of value, given the same
// boundary; mime/multipart reads the same fields back from both.
func TestBuildFormMatchesAIPerf(t *testing.T) {
	cases := []struct{ payload, body, boundary string }{
		{"video_generation.payload.json", "video_generation.multipart", "ccf9e2686a8f491286ab5f9924daa38a"},
		{"video_generation_download.payload.json", "video_generation_download.multipart", "e92a01972a9b4f408d294758b7d4e3ac"},
		{"aiohttp_rich.payload.json", "aiohttp_rich.multipart", "0123456789abcdef0123456789abcdef"},
	}
	for _, c := range cases {
		t.Run(c.body, func(t *testing.T) {
			want := readFixture(t, c.body)
			got, err := buildForm(readFixture(t, c.payload), c.boundary)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("body differs from AIPerf's:\n got %q\nwant %q", got, want)
			}
			sameForms(t, readForm(t, got, c.boundary), readForm(t, want, c.boundary))
		})
	}
}

func TestBuildFormFieldValues(t *testing.T) {
	parts := readForm(t, mustForm(t, `{"prompt":"p","seconds":4,"guidance_scale":7.5,"flag":true,"off":false,"skip":null,"seed":0}`), "b")
	want := [][2]string{{"prompt", "p"}, {"seconds", "4"}, {"guidance_scale", "7.5"}, {"flag", "true"}, {"off", "false"}, {"seed", "0"}}
	if len(parts) != len(want) {
		t.Fatalf("got %d parts %+v, want %d (null skipped)", len(parts), parts, len(want))
	}
	for i, w := range want {
		if parts[i].name != w[0] || parts[i].data != w[1] || parts[i].header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("part %d = %q=%q (%s), want %q=%q text/plain", i, parts[i].name, parts[i].data, parts[i].header.Get("Content-Type"), w[0], w[1])
		}
	}
}

func mustForm(t *testing.T, payload string) []byte {
	t.Helper()
	b, err := buildForm([]byte(payload), "b")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBuildFormRefusesWhatAIPerfCannotSend(t *testing.T) {
	cases := map[string]string{
		`[1,2]`:                              "not an object",
		`"text"`:                             "not an object",
		`{"a":`:                              "not JSON",
		`{"f":{"b64_data":"@@@"}}`:           "'b64_data' is not valid base64",
		`{"ké":"v"}`:                         "only printable ASCII names",
		`{"a\nb":"v"}`:                       "only printable ASCII names",
		`{"f":{"b64_data":"","filename":1}}`: "file filename must be a string",
		`{"f":{"b64_data":"","content_type":"a\r\nX: y"}}`: "contains a line break",
	}
	for in, want := range cases {
		if _, err := buildForm([]byte(in), "b"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("buildForm(%s) error = %v, want %q", in, err, want)
		}
	}
}

func TestFormRequestReplacesContentTypeOnly(t *testing.T) {
	req := &sdk.TransportRequest{URL: "http://x/v1/videos", Body: []byte(`{"prompt":"p"}`), FormData: true,
		Headers: map[string]string{"content-type": "application/json", "Accept": "application/json", "X-Request-ID": "r1"}}
	form, err := formRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if string(req.Body) != `{"prompt":"p"}` || req.Headers["content-type"] != "application/json" || len(req.Headers) != 3 {
		t.Errorf("the caller's request was changed: %+v", req)
	}
	mt, params, err := mime.ParseMediaType(form.Headers["Content-Type"])
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("Content-Type %q: %v", form.Headers["Content-Type"], err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(params["boundary"]) {
		t.Errorf("boundary %q is not 32 hex digits (uuid4().hex)", params["boundary"])
	}
	if _, dup := form.Headers["content-type"]; dup || form.Headers["Accept"] != "application/json" || form.Headers["X-Request-ID"] != "r1" {
		t.Errorf("headers %v: want the JSON content type gone and the others kept", form.Headers)
	}
	if parts := readForm(t, form.Body, params["boundary"]); len(parts) != 1 || parts[0].name != "prompt" || parts[0].data != "p" {
		t.Errorf("body parts %+v", parts)
	}
	if again, _ := formRequest(req); again.Headers["Content-Type"] == form.Headers["Content-Type"] {
		t.Error("two requests got the same boundary")
	}
}

// A FormData request goes out as multipart/form-data over a real
// connection; the trace counts the multipart body.
func TestSendFormData(t *testing.T) {
	var body []byte
	var contentType string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		contentType = r.Header.Get("Content-Type")
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	tr := newTransport(t, Options{})
	payload := readFixture(t, "video_generation.payload.json")
	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: srv.URL, Body: payload, FormData: true,
		Headers: map[string]string{"Content-Type": "application/json"}})
	mustNotFail(t, rec.Error)
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(contentType, "multipart/form-data; boundary=") {
		t.Fatalf("server saw Content-Type %q", contentType)
	}
	sameForms(t, readForm(t, body, params["boundary"]), readForm(t, readFixture(t, "video_generation.multipart"), "ccf9e2686a8f491286ab5f9924daa38a"))
	wantBytes := int64(len(readFixture(t, "video_generation.multipart"))) // same boundary length
	if rec.HTTPTrace == nil || rec.HTTPTrace.RequestBytes != wantBytes {
		t.Errorf("trace %+v, want %d request bytes (the multipart body)", rec.HTTPTrace, wantBytes)
	}
	if len(rec.Responses) != 1 || string(rec.Responses[0].Data) != `{"ok":true}` {
		t.Errorf("responses %+v", rec.Responses)
	}
}

func TestSendFormDataRefusesANonObjectBody(t *testing.T) {
	tr := newTransport(t, Options{})
	rec := send(t, tr, context.Background(), &sdk.TransportRequest{URL: "http://127.0.0.1:1/x", Body: []byte(`[1]`), FormData: true})
	if rec.Error == nil || rec.Error.Type != ErrTypeFormData || !strings.Contains(rec.Error.Message, "not an object") {
		t.Fatalf("error %+v, want a %s", rec.Error, ErrTypeFormData)
	}
	if rec.StartPerfNs == 0 || rec.EndPerfNs != rec.StartPerfNs {
		t.Errorf("start %d end %d: a request never sent starts and ends at once", rec.StartPerfNs, rec.EndPerfNs)
	}
}
