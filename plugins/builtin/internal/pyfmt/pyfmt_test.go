package pyfmt

import "testing"

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
