package genaiperf

import (
	"errors"
	"strings"
	"testing"
)

func TestTemplateTranslates(t *testing.T) {
	res, err := Translate("t.yaml", []byte(Template), Options{EndpointTypes: []string{"chat"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Command != "profile" {
		t.Errorf("command %q, want profile", res.Command)
	}
	if got := strings.Join(res.Argv(), " "); !strings.Contains(got, "--endpoint-type chat") || !strings.Contains(got, "--concurrency 1") {
		t.Errorf("argv %q lacks the template's endpoint type or stimulus", got)
	}
}

func TestErrorsNamePathAndLine(t *testing.T) {
	cases := []struct {
		yaml, path string
		line       int
	}{
		{"model_names: m\nendpoint:\n  type: chat\n  service_kind: openai\ninput:\n  image:\n    width_mean: -3\n", "input.image.width_mean", 7},
		{"endpoint:\n  type: nope\n  service_kind: openai\n", "endpoint.type", 2},
		{"analyze:\n  runtime_batch_size: {start: 1}\n", "analyze.runtime_batch_size", 2},
		{"endpoint:\n  streaming: yes please\n", "endpoint.streaming", 2},
		{"output:\n  profile_export_file: a/b.json\n", "output.profile_export_file", 2},
	}
	for _, tc := range cases {
		_, err := Translate("f.yaml", []byte(tc.yaml), Options{EndpointTypes: []string{"chat"}})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v, want *Error", tc.yaml, err)
			continue
		}
		if e.Path != tc.path || e.Line != tc.line || e.File != "f.yaml" {
			t.Errorf("%q: got %s:%d %s, want f.yaml:%d %s", tc.yaml, e.File, e.Line, e.Path, tc.line, tc.path)
		}
	}
}
