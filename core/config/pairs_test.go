package config

import (
	"reflect"
	"testing"
)

func TestExtraInputs(t *testing.T) {
	tests := []struct {
		items []string
		want  map[string]any
	}{
		{[]string{"temperature:0.7"}, map[string]any{"temperature": 0.7}},
		{[]string{"ignore_eos:true"}, map[string]any{"ignore_eos": true}},
		{[]string{"max_tokens:5"}, map[string]any{"max_tokens": 5}},
		{[]string{"seed:-3"}, map[string]any{"seed": -3}},
		{[]string{"big:1e3"}, map[string]any{"big": 1000.0}},
		{[]string{"mode:fast"}, map[string]any{"mode": "fast"}},
		{[]string{`quoted:"5"`}, map[string]any{"quoted": "5"}},
		{[]string{"nothing:null"}, map[string]any{"nothing": nil}},
		{[]string{"empty:"}, map[string]any{"empty": ""}},
		{[]string{"url:http://x:1/a"}, map[string]any{"url": "http://x:1/a"}},
		{[]string{"a:1,b:two, c : 3.5"}, map[string]any{"a": 1, "b": "two", "c": 3.5}},
		{[]string{`stop:["a","b"]`}, map[string]any{"stop": []any{"a", "b"}}},
		{[]string{`stop:a,b`}, map[string]any{"stop": "a,b"}},
		{[]string{`{"temperature": 0.5, "n": 2, "nested": {"k": [1, 2.5]}}`}, map[string]any{"temperature": 0.5, "n": 2, "nested": map[string]any{"k": []any{1, 2.5}}}},
		{[]string{"a:1", "a:2", `{"b": false}`}, map[string]any{"a": 2, "b": false}},
		{[]string{"a:1", "broken", "c:3"}, map[string]any{"a": 1, "c": 3}}, // broken item skipped (Validate reports it)
	}
	for _, tt := range tests {
		c := &RunConfig{ExtraInputsRaw: tt.items}
		if got := c.ExtraInputs(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: ExtraInputs = %#v, want %#v", tt.items, got, tt.want)
		}
	}
}

func TestHeaders(t *testing.T) {
	tests := []struct {
		apiKey string
		items  []string
		want   map[string]string
	}{
		{"", []string{"X-Custom-Header:value"}, map[string]string{"X-Custom-Header": "value"}},
		{"", []string{" X-A : spaced "}, map[string]string{"X-A": "spaced"}},
		{"", []string{"X-A:1,X-B:2"}, map[string]string{"X-A": "1", "X-B": "2"}},
		{"", []string{"Accept-Language:en-US,en;q=0.9"}, map[string]string{"Accept-Language": "en-US,en;q=0.9"}},
		{"", []string{"X-Time:12:30"}, map[string]string{"X-Time": "12:30"}},
		{"", []string{`{"X-A": "1", "X-N": 5, "X-B": true}`}, map[string]string{"X-A": "1", "X-N": "5", "X-B": "true"}},
		{"k1", nil, map[string]string{"Authorization": "Bearer k1"}},
		{"k1", []string{"authorization:Basic abc"}, map[string]string{"authorization": "Basic abc"}},
		{"k1", []string{"X-A:1"}, map[string]string{"Authorization": "Bearer k1", "X-A": "1"}},
		{"", []string{"X-A:1", "x-a:2"}, map[string]string{"x-a": "2"}},
	}
	for _, tt := range tests {
		c := &RunConfig{APIKey: tt.apiKey, Header: tt.items}
		if got := c.Headers(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("key %q items %q: Headers = %v, want %v", tt.apiKey, tt.items, got, tt.want)
		}
	}
}

func TestSplitTopLevel(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a:1,b:2", []string{"a:1", "b:2"}},
		{`a:[1,2],b:{"x":1,"y":2}`, []string{"a:[1,2]", `b:{"x":1,"y":2}`}},
		{`a:"x,y",b:1`, []string{`a:"x,y"`, "b:1"}},
		{`a:"q\",w",b`, []string{`a:"q\",w"`, "b"}},
	}
	for _, tt := range tests {
		if got := splitTopLevel(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitTopLevel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsJSONNumber(t *testing.T) {
	tests := map[string]bool{
		"0": true, "5": true, "-3": true, "0.7": true, "1e3": true, "-2.5E-4": true, "10": true,
		"": false, "-": false, "01": false, ".5": false, "5.": false, "1e": false, "inf": false,
		"0x10": false, "1_000": false, "+1": false, "NaN": false, "1.2.3": false,
	}
	for in, want := range tests {
		if got := isJSONNumber(in); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", in, got, want)
		}
	}
}
