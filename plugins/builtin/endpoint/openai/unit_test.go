package openai

import (
	"slices"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestJSONFalsy(t *testing.T) {
	falsy := []string{"", " ", "null", "false", "0", "-0", "0.0", "0e3", `""`, "[]", "[ \n]", "{}", "{ }"}
	truthy := []string{"true", "1", "-0.5", `"x"`, `" "`, "[0]", `{"a":null}`, `[""]`}
	for _, s := range falsy {
		if !JSONFalsy([]byte(s)) {
			t.Errorf("JSONFalsy(%q) = false, want true", s)
		}
	}
	for _, s := range truthy {
		if JSONFalsy([]byte(s)) {
			t.Errorf("JSONFalsy(%q) = true, want false", s)
		}
	}
}

func TestDecodeUnit(t *testing.T) {
	cases := []struct {
		data       string
		ok         bool
		obj, array int // member / element counts; -1 for nil
		err        string
	}{
		{data: "", obj: -1, array: -1},
		{data: "[DONE]", obj: -1, array: -1},
		{data: "{}", obj: -1, array: -1},
		{data: " [] ", obj: -1, array: -1},
		{data: "null", obj: -1, array: -1},
		{data: `{"a":1,"b":[1,2]}`, ok: true, obj: 2, array: -1},
		{data: `[{"x":1},2]`, ok: true, obj: -1, array: 2},
		{data: `"text"`, ok: true, obj: -1, array: -1},
		{data: `{"a":`, obj: -1, array: -1, err: "ep: malformed response JSON"},
		{data: `{not json}`, obj: -1, array: -1, err: "ep: malformed response JSON"},
	}
	for _, c := range cases {
		u, ok, err := DecodeUnit("ep", []byte(c.data))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("DecodeUnit(%q) err = %v, want %q", c.data, err, c.err)
			}
			continue
		}
		if err != nil || ok != c.ok {
			t.Errorf("DecodeUnit(%q) = ok %v err %v, want ok %v", c.data, ok, err, c.ok)
			continue
		}
		if got := lenOrNil(u.Object == nil, len(u.Object)); got != c.obj {
			t.Errorf("DecodeUnit(%q).Object has %d members, want %d", c.data, got, c.obj)
		}
		if got := lenOrNil(u.Array == nil, len(u.Array)); got != c.array {
			t.Errorf("DecodeUnit(%q).Array has %d elements, want %d", c.data, got, c.array)
		}
	}
}

func lenOrNil(isNil bool, n int) int {
	if isNil {
		return -1
	}
	return n
}

func TestJSONString(t *testing.T) {
	if s, ok := JSONString([]byte(` "a\u00e9\n" `)); !ok || s != "aé\n" {
		t.Errorf("JSONString = %q, %v", s, ok)
	}
	for _, raw := range []string{"", "null", "5", `["a"]`} {
		if _, ok := JSONString([]byte(raw)); ok {
			t.Errorf("JSONString(%q) ok, want not a string", raw)
		}
	}
}

func TestTurnTexts(t *testing.T) {
	turn := sdk.Turn{Texts: []string{"a", "", "b"},
		TextGroups: []sdk.TextGroup{{Name: "query", Contents: []string{"q", ""}}, {Name: "passages", Contents: []string{"p"}}}}
	if got, want := TurnTexts(&turn), []string{"a", "b", "q", "p"}; !slices.Equal(got, want) {
		t.Errorf("TurnTexts = %q, want %q", got, want)
	}
	if got := TurnTexts(&sdk.Turn{}); got == nil || len(got) != 0 {
		t.Errorf("TurnTexts(empty) = %#v, want an empty non-nil slice (sent as [])", got)
	}
}

func TestTurnModel(t *testing.T) {
	req := sdk.RequestInfo{Model: "run"}
	if got := TurnModel(&req); got != "run" {
		t.Errorf("TurnModel = %q, want run", got)
	}
	req.Turn.Model = "turn"
	if got := TurnModel(&req); got != "turn" {
		t.Errorf("TurnModel = %q, want turn", got)
	}
}
