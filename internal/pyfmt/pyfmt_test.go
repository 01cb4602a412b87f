package pyfmt

import (
	"math"
	"testing"
)

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {20, "20.0"}, {1.45, "1.45"}, {-3, "-3.0"}, {0.0001, "0.0001"},
		{0.00001, "1e-05"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{1234567.5, "1234567.5"}, {192.1291415237666, "192.1291415237666"},
	}
	for _, tc := range tests {
		if got := string(AppendFloat(nil, tc.in)); got != tc.want {
			t.Errorf("AppendFloat(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// Python 3's repr() of floats and strs, values printed by CPython.
func TestFloatAndStrRepr(t *testing.T) {
	for f, want := range map[float64]string{1: "1.0", 0.1: "0.1", 1e-5: "1e-05", 1e16: "1e+16", -0.5: "-0.5"} {
		if got := Float(f); got != want {
			t.Errorf("Float(%v) = %q, want %q", f, got, want)
		}
	}
	if Float(math.NaN()) != "nan" || Float(math.Inf(-1)) != "-inf" {
		t.Error("nan/inf not spelled as Python does")
	}
	for s, want := range map[string]string{
		"abc": `'abc'`, "it's": `"it's"`, `a'b"c`: `'a\'b"c'`, "tab\there\n": `'tab\there\n'`,
		"\x00\x7f": `'\x00\x7f'`, "é漢": `'é漢'`, "\u2028": `'\u2028'`, `back\slash`: `'back\\slash'`,
	} {
		if got := string(AppendStr(nil, s)); got != want {
			t.Errorf("AppendStr(%q) = %s, want %s", s, got, want)
		}
	}
}
