package template

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/engine"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func intp(n int) *int { return &n }

// readJSONL decodes every line of a testdata file into a new T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row T
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no rows", name)
	}
	return out
}

type captureRow struct {
	Capture     string         `json:"capture"`
	Request     int            `json:"request"`
	Model       string         `json:"model"`
	Streaming   bool           `json:"streaming"`
	ExtraInputs map[string]any `json:"extra_inputs"`
	Turn        sdk.Turn       `json:"turn"`
	Body        string         `json:"body"`
}

// TestFormatPayloadMatchesCaptures renders the turns of AIPerf's template
// captures and compares the bodies byte for byte.
func TestFormatPayloadMatchesCaptures(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range readJSONL[captureRow](t, "captures.jsonl") {
		seen[row.Capture] = true
		t.Run(row.Capture, func(t *testing.T) {
			got, err := New().FormatPayload(sdk.RequestInfo{Model: row.Model, Streaming: row.Streaming,
				Turn: row.Turn, ExtraInputs: row.ExtraInputs})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != row.Body {
				t.Errorf("request %d\n got %s\nwant %s", row.Request, got, row.Body)
			}
		})
	}
	for _, c := range []string{"template_file", "template_dataset", "template_stream", "template_inline_jmespath", "template_named_nvembedqa"} {
		if !seen[c] {
			t.Errorf("captures.jsonl has no %s rows", c)
		}
	}
}

// goldenTurn is the turn testdata/jinja_golden.py renders with.
func goldenTurn() sdk.Turn {
	return sdk.Turn{
		Texts: []string{`a<b & "c" 'd'`},
		TextGroups: []sdk.TextGroup{
			{Name: sdk.TextGroupQuery, Contents: []string{"q1"}},
			{Name: sdk.TextGroupPassages, Contents: []string{"p1", "p2"}},
		},
		Images: []string{"img1"},
		Extra:  map[string]any{"n": nil, "x": 1.5},
	}
}

// TestRenderMatchesJinja2 compares bodies with what Jinja2 (autoescape on)
// and orjson produce for the same variables: HTML escaping of {{ }} versus
// tojson, None/True/float/list printing, filters, loops, macros,
// conditionals and number re-serialisation.
func TestRenderMatchesJinja2(t *testing.T) {
	type golden struct {
		Template string `json:"template"`
		Body     string `json:"body"`
	}
	for i, g := range readJSONL[golden](t, "jinja_golden.jsonl") {
		got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Streaming: true, Turn: goldenTurn(),
			ExtraInputs: map[string]any{KeyPayloadTemplate: g.Template}})
		if err != nil {
			t.Errorf("template %d %s: %v", i, g.Template, err)
			continue
		}
		if string(got) != g.Body {
			t.Errorf("template %d %s\n got %s\nwant %s", i, g.Template, got, g.Body)
		}
	}
}

func TestHTMLEscapingVersusToJSON(t *testing.T) {
	tmpl := `{"raw": "{{ text }}", "json": {{ text|tojson }}, "none": "{{ query }}", "safe": "{{ model|safe }}"}`
	got, err := New().FormatPayload(sdk.RequestInfo{Model: "m&m", Turn: sdk.Turn{Texts: []string{`<b>AI</b> & "ML" 'x'`}},
		ExtraInputs: map[string]any{KeyPayloadTemplate: tmpl}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"raw":"&lt;b&gt;AI&lt;/b&gt; &amp; &#34;ML&#34; &#39;x&#39;","json":"<b>AI</b> & \"ML\" 'x'","none":"None","safe":"m&m"}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestNamedTemplate(t *testing.T) {
	got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"a", "b<"}},
		ExtraInputs: map[string]any{KeyPayloadTemplate: "nv-embedqa"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"text":["a","b<"]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestMissingTemplate(t *testing.T) {
	for name, extra := range map[string]map[string]any{
		"no extra inputs":  nil,
		"other keys only":  {"temperature": 0.2, KeyResponseField: "a.b"},
		"empty template":   {KeyPayloadTemplate: ""},
		"null template":    {KeyPayloadTemplate: nil},
		"non-string value": {KeyPayloadTemplate: 5},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}}, ExtraInputs: extra})
			if err == nil {
				t.Fatal("no error")
			}
			want := "template is required when endpoint type is 'template'"
			if name == "non-string value" {
				want = "payload_template must be a string"
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		})
	}
}

func TestTemplateSyntaxErrorNamesTemplateAndLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.j2")
	if err := os.WriteFile(file, []byte("{\n  \"a\": 1,\n  \"b\": {{ text | }}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, template string
		want           []string
	}{
		{"file", file, []string{"file " + file, "line 3", "filter name must be an identifier"}},
		{"inline", `{"q": {{ text|tojson }`, []string{"inline template", "line 1"}},
		{"unclosed block", "{% if text %}\n{\"a\": 1}\n", []string{"inline template", "line 2", "Unexpected EOF"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
				ExtraInputs: map[string]any{KeyPayloadTemplate: c.template}})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestInvalidJSONRenderNamesLine(t *testing.T) {
	tmpl := "{\n  \"model\": {{ model|tojson }},\n  \"prompt\": {{ text }}\n}"
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"hello"}},
		ExtraInputs: map[string]any{KeyPayloadTemplate: tmpl}})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"Template did not render valid JSON", "inline template", "line 3 column 13", `"prompt": hello`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func TestRenderErrorNamesLine(t *testing.T) {
	tmpl := "{\n\"a\": {{ nothing|tojson }}\n}"
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
		ExtraInputs: map[string]any{KeyPayloadTemplate: tmpl}})
	if err == nil {
		t.Fatal("undefined|tojson rendered; Jinja2 raises")
	}
	for _, w := range []string{"line 2", "Undefined is not JSON serializable"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func TestInvalidResponseFieldIsAnError(t *testing.T) {
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
		ExtraInputs: map[string]any{KeyPayloadTemplate: `{}`, KeyResponseField: "a[?"}})
	if err == nil || !strings.Contains(err.Error(), "response_field") {
		t.Fatalf("error = %v, want one about response_field", err)
	}
}

func TestExtrasMerge(t *testing.T) {
	cases := []struct {
		name  string
		tmpl  string
		extra map[string]any
		turn  map[string]any
		want  string
	}{
		{
			name:  "override in place, new keys appended sorted, template keys dropped",
			tmpl:  `{"model": {{ model|tojson }}, "prompt": {{ text|tojson }}, "max_tokens": 4}`,
			extra: map[string]any{"max_tokens": 8, "top_p": 0.9, "ignore_eos": true, KeyResponseField: "text"},
			want:  `{"model":"m","prompt":"hi","max_tokens":8,"ignore_eos":true,"top_p":0.9}`,
		},
		{
			name:  "turn extra after extra inputs",
			tmpl:  `{"prompt": {{ text|tojson }}}`,
			extra: map[string]any{"temperature": 0.5, "seed": 1},
			turn:  map[string]any{"temperature": 0.0, "stop": []any{"\n"}},
			want:  `{"prompt":"hi","seed":1,"temperature":0,"stop":["\n"]}`,
		},
		{
			name: "array payload without extras is sent as is",
			tmpl: `[{{ text|tojson }}, 1.0]`,
			want: `["hi",1.0]`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			extra := map[string]any{KeyPayloadTemplate: c.tmpl}
			for k, v := range c.extra {
				extra[k] = v
			}
			got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"hi"}, Extra: c.turn}, ExtraInputs: extra})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestArrayPayloadWithExtrasIsAnError(t *testing.T) {
	_, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"hi"}},
		ExtraInputs: map[string]any{KeyPayloadTemplate: `[1]`, "temperature": 0.1}})
	if err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Fatalf("error = %v, want one saying the payload is not an object", err)
	}
}

// TestReserialisation checks orjson's reading and writing of the rendered
// JSON: key order kept, a repeated key keeps its first place and last value,
// integers stay integers up to 64 bits, floats are written as orjson does.
func TestReserialisation(t *testing.T) {
	cases := []struct{ rendered, want string }{
		{`{"b": 1, "a": 2, "b": 3}`, `{"b":3,"a":2}`},
		{`{"x": 1.0, "y": 1e5, "z": 2.50}`, `{"x":1.0,"y":100000.0,"z":2.5}`},
		{`[0.00001, 0.000001, 1e15, 1e16, -0.0, -0, 1E-7, 123.456e10]`, `[0.00001,1e-6,1000000000000000.0,1e+16,-0.0,0,1e-7,1234560000000.0]`},
		{`[18446744073709551615, 18446744073709551616, -9223372036854775808, -9223372036854775809]`,
			`[18446744073709551615,1.8446744073709552e+19,-9223372036854775808,-9.223372036854776e+18]`},
		{` {"s": "<&>\u00e9\n", "n": null, "t": true, "o": {}, "l": []} `, `{"s":"<&>é\n","n":null,"t":true,"o":{},"l":[]}`},
	}
	for _, c := range cases {
		got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
			ExtraInputs: map[string]any{KeyPayloadTemplate: c.rendered}})
		if err != nil {
			t.Errorf("%s: %v", c.rendered, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.rendered, got, c.want)
		}
	}
	for _, bad := range []string{`{"a": 1} x`, `{"a": 1e400}`, `{"a": 01}`, `NaN`, ``, `{"a": }`} {
		if _, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
			ExtraInputs: map[string]any{KeyPayloadTemplate: bad + " "}}); err == nil {
			t.Errorf("%q rendered without error; orjson rejects it", bad)
		}
	}
}

func TestTemplateVariables(t *testing.T) {
	tmpl := `{"texts": {{ texts|tojson }}, "queries": {{ queries|tojson }}, "passage": {{ passage|tojson }},` +
		` "image": {{ image|tojson }}, "audios": {{ audios_by_name|tojson }}, "videos": {{ videos|tojson }},` +
		` "role": {{ role|tojson }}, "max_tokens": {{ max_tokens|tojson }}, "stream": {{ stream|tojson }},` +
		` "model": {{ model|tojson }}, "turns": {{ turns|length }}, "roles": [{% for t in turns %}{{ t.role|tojson }}{% if not loop.last %},{% endif %}{% endfor %}]}`
	req := sdk.RequestInfo{Model: "run-model", Streaming: true,
		History: []sdk.HistoryEntry{{Role: "user", Text: "first"}, {Role: "assistant", Text: "answer"}},
		Turn: sdk.Turn{Texts: []string{"t1"}, TextGroups: []sdk.TextGroup{{Name: "passage", Contents: []string{"only"}}, {Name: "", Contents: []string{"anon"}}},
			Images: []string{"data:image/png;base64,AA"}, Audios: []string{"wav,UklG"}, Videos: []string{"v.mp4"},
			Role: "user", Model: "turn-model", MaxTokens: intp(7)},
		ExtraInputs: map[string]any{KeyPayloadTemplate: tmpl}}
	got, err := New().FormatPayload(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"texts":["t1","only","anon"],"queries":[],"passage":"only","image":"data:image/png;base64,AA",` +
		`"audios":{"input_audio":["wav,UklG"]},"videos":["v.mp4"],"role":"user","max_tokens":7,"stream":true,` +
		`"model":"turn-model","turns":3,"roles":["user","assistant","user"]}`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestTemplateFileResolution(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.j2")
	if err := os.WriteFile(file, []byte("{\"from\": \"file\"}\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.j2")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "named.txt")
	if err := os.WriteFile(named, []byte("nv-embedqa"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ value, want string }{
		{file, `{"from":"file"}`},
		{named, `{"text":["x"]}`}, // a file holding a template's name: AIPerf looks the name up
		{dir, ""},                 // a directory is not a template file
		{link, ""},                // symlinks are never followed
	}
	for _, c := range cases {
		got, err := New().FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}},
			ExtraInputs: map[string]any{KeyPayloadTemplate: c.value}})
		if c.want == "" {
			// Used as the template text itself, which is not JSON.
			if err == nil || !strings.Contains(err.Error(), "Template did not render valid JSON") {
				t.Errorf("%s: err = %v, want the path rendered literally", c.value, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.value, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s: got %s, want %s", c.value, got, c.want)
		}
	}
}

// TestPrepareStopsOnTemplateError checks that a template error fails the
// run's payload preparation, before any request exists to send.
func TestPrepareStopsOnTemplateError(t *testing.T) {
	convs := []sdk.Conversation{{SessionID: "s0", Turns: []sdk.Turn{{Texts: []string{"x"}}}}}
	for name, extra := range map[string]map[string]any{
		"missing template": nil,
		"syntax error":     {KeyPayloadTemplate: `{"a": {{ text | }}}`},
	} {
		reqs, _, err := engine.Prepare(New(), convs, engine.PrepareOptions{Models: []string{"m"}, ExtraInputs: extra})
		if err == nil || len(reqs) != 0 {
			t.Errorf("%s: Prepare = %d requests, err %v; want an error and none", name, len(reqs), err)
		}
	}
}

func TestConcurrentFormatPayload(t *testing.T) {
	ep := New()
	// Macros, loops and set write to the render's scope: each render must
	// have its own.
	tmpl := `{% macro q(x) %}{{ x|tojson }}{% endmacro %}{% set p = text %}` +
		`{"prompt": {{ q(p) }}, "l": [{% for t in texts %}{{ loop.index }}{% endfor %}]}`
	extra := map[string]any{KeyPayloadTemplate: tmpl}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			text := strings.Repeat("w", i)
			got, err := ep.FormatPayload(sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{text}}, ExtraInputs: extra})
			if err == nil && !strings.Contains(string(got), `"prompt":"`+text+`"`) {
				err = &mismatch{got: string(got)}
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(ep.cache); n != 1 {
		t.Errorf("template compiled %d times, want once", n)
	}
}

type mismatch struct{ got string }

func (m *mismatch) Error() string { return "wrong body: " + m.got }

func TestMetadata(t *testing.T) {
	md := New().Metadata()
	if md.EndpointPath != "" || md.StreamingPath != "" || md.ServiceKind != "openai" || md.MetricsTitle != "LLM Metrics" ||
		!md.SupportsStreaming || !md.ProducesTokens || !md.TokenizesInput ||
		!md.SupportsImages || !md.SupportsAudio || !md.SupportsVideos ||
		md.ProducesImages || md.ProducesVideos || md.RequiresPolling || md.RequiresFormData {
		t.Errorf("metadata %+v differs from AIPerf's template entry", md)
	}
}
