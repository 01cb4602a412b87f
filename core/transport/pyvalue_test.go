package transport

import (
	"encoding/json"
	"os"
	"testing"
)

// pyRepr and pyStr print decoded JSON exactly as Python's repr() and str()
// print the same JSON decoded by orjson (testdata/python_repr.json).
func TestPyReprMatchesPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/python_repr.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases [][3]string
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("only %d cases in the fixture", len(cases))
	}
	for _, c := range cases {
		v, err := decodePy([]byte(c[0]))
		if err != nil {
			t.Errorf("decodePy(%s): %v", c[0], err)
			continue
		}
		if got := pyRepr(v); got != c[1] {
			t.Errorf("pyRepr(%s) = %s, want %s", c[0], got, c[1])
		}
		if got := pyStr(v); got != c[2] {
			t.Errorf("pyStr(%s) = %q, want %q", c[0], got, c[2])
		}
	}
}

func TestDecodePyRejectsBadJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":}`, `{} {}`, `[1,]`, `tru`} {
		if v, err := decodePy([]byte(in)); err == nil {
			t.Errorf("decodePy(%q) = %v, want an error", in, v)
		}
	}
}

func TestPyTruthyAndTypeName(t *testing.T) {
	cases := []struct {
		json   string
		truthy bool
		name   string
	}{
		{`null`, false, "NoneType"}, {`false`, false, "bool"}, {`true`, true, "bool"},
		{`0`, false, "int"}, {`0.0`, false, "float"}, {`7`, true, "int"}, {`1e3`, true, "float"},
		{`""`, false, "str"}, {`"x"`, true, "str"}, {`[]`, false, "list"}, {`[0]`, true, "list"},
		{`{}`, false, "dict"}, {`{"a":null}`, true, "dict"},
	}
	for _, c := range cases {
		v, err := decodePy([]byte(c.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := pyTruthy(v); got != c.truthy {
			t.Errorf("pyTruthy(%s) = %v, want %v", c.json, got, c.truthy)
		}
		if got := pyTypeName(v); got != c.name {
			t.Errorf("pyTypeName(%s) = %s, want %s", c.json, got, c.name)
		}
	}
}
