package textgen

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest"
)

func intp(v int) *int { return &v }

func TestFormatPayload(t *testing.T) {
	tests := []struct {
		name string
		req  sdk.RequestInfo
		want map[string]any
	}{
		{"streaming with max tokens",
			sdk.RequestInfo{Model: "m", Streaming: true, Turn: sdk.Turn{Texts: []string{"hello"}, MaxTokens: intp(64)}},
			map[string]any{"model": "m", "input": "hello", "stream": true, "max_new_tokens": float64(64)}},
		{"turn model and history",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"q2a", "q2b"}, Model: "other"},
				History: []sdk.HistoryEntry{{Role: "user", Text: "q1"}, {Role: "assistant", Text: "a1"}}},
			map[string]any{"model": "other", "input": "q1\na1\nq2a\nq2b", "stream": false}},
		{"extras override in order",
			sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, MaxTokens: intp(8), Extra: map[string]any{"max_new_tokens": 3}},
				ExtraInputs: map[string]any{"ignore_eos": true, "max_new_tokens": 5}},
			map[string]any{"model": "m", "input": "x", "stream": false, "ignore_eos": true, "max_new_tokens": float64(3)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := (&Endpoint{}).FormatPayload(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("payload %s is not JSON: %v", b, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("payload = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFormatPayloadUnencodableExtra(t *testing.T) {
	_, err := (&Endpoint{}).FormatPayload(sdk.RequestInfo{Model: "m", ExtraInputs: map[string]any{"bad": func() {}}})
	if err == nil || !strings.Contains(err.Error(), "encoding request body") {
		t.Fatalf("err = %v, want an encoding error", err)
	}
}

func TestParseRecord(t *testing.T) {
	units := []sdk.Response{
		{PerfNs: 10, Data: []byte(`{"delta":" alpha"}`)},
		{PerfNs: 20, Data: []byte(`{"delta":" beta"}`)},
		{PerfNs: 30, Data: []byte(`{"done":true,"usage":{"input_tokens":7,"output_tokens":2}}`)},
		{PerfNs: 40, Data: []byte(`  `)},
	}
	got, err := (&Endpoint{}).ParseRecord(units)
	if err != nil {
		t.Fatal(err)
	}
	want := []sdk.ParsedResponse{
		{PerfNs: 10, Text: " alpha"},
		{PerfNs: 20, Text: " beta"},
		{PerfNs: 30, Usage: &sdk.Usage{PromptTokens: intp(7), CompletionTokens: intp(2), TotalTokens: intp(9)}},
		{PerfNs: 40},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed = %+v, want %+v", got, want)
	}
}

func TestParseResponseWholeBody(t *testing.T) {
	p, err := (&Endpoint{}).ParseResponse([]byte(`{"output":" one two","usage":{"input_tokens":3,"output_tokens":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != " one two" || *p.Usage.PromptTokens != 3 || *p.Usage.CompletionTokens != 2 || *p.Usage.TotalTokens != 5 {
		t.Errorf("parsed = %+v", p)
	}
}

func TestParseRecordBadUnit(t *testing.T) {
	_, err := (&Endpoint{}).ParseRecord([]sdk.Response{{Data: []byte(`{"delta":"a"}`)}, {Data: []byte(`{"delta":`)}})
	if err == nil || !strings.Contains(err.Error(), "unit 1:") || !strings.Contains(err.Error(), "invalid response JSON") {
		t.Fatalf("err = %v, want one naming unit 1", err)
	}
}

func TestIgnoreEOSSetting(t *testing.T) {
	e := &Endpoint{}
	if err := sdk.DecodeConfig([]byte(`{"ignore_eos": true}`), e.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	req := sdk.RequestInfo{Model: "m", Turn: sdk.Turn{Texts: []string{"x"}, MaxTokens: intp(4)}}
	b, err := e.FormatPayload(req)
	if err != nil || !strings.Contains(string(b), `"ignore_eos":true`) {
		t.Fatalf("payload = %s, %v; want ignore_eos", b, err)
	}
	// --extra-inputs still win over the setting.
	req.ExtraInputs = map[string]any{"ignore_eos": false}
	if b, _ := e.FormatPayload(req); !strings.Contains(string(b), `"ignore_eos":false`) {
		t.Errorf("payload = %s; want the extra input's ignore_eos", b)
	}
	if err := sdk.DecodeConfig([]byte(`{"ignore_eos": true, "ignore_eoss": true}`), e.PluginConfig()); err == nil ||
		!strings.Contains(err.Error(), `unknown setting "ignore_eoss"`) {
		t.Errorf("typo in a setting: err = %v", err)
	}
	if b, _ := (&Endpoint{}).FormatPayload(sdk.RequestInfo{Model: "m"}); strings.Contains(string(b), "ignore_eos") {
		t.Errorf("default settings add ignore_eos: %s", b)
	}
}

// The whole conformance suite, in process.
func TestConformance(t *testing.T) {
	sdktest.Endpoint(t, &Endpoint{}, sdktest.EndpointCase{SampleUnits: []sdktest.SampleUnit{
		{Name: "delta", Data: []byte(`{"delta":" alpha"}`), Text: " alpha"},
		{Name: "done with usage", Data: []byte(`{"done":true,"usage":{"input_tokens":7,"output_tokens":2}}`),
			Usage: &sdk.Usage{PromptTokens: intp(7), CompletionTokens: intp(2), TotalTokens: intp(9)}},
		{Name: "whole body", Data: []byte(`{"output":" one two","usage":{"input_tokens":3,"output_tokens":2}}`), Text: " one two",
			Usage: &sdk.Usage{PromptTokens: intp(3), CompletionTokens: intp(2), TotalTokens: intp(5)}},
	}})
}
