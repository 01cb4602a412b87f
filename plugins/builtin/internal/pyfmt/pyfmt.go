// Package pyfmt formats numbers the way Python's repr does, which is how
// AIPerf's JSON exports spell them, so our files compare byte for byte.
package pyfmt

import (
	"math"
	"strconv"
)

// AppendFloat appends f the way Python's repr (and so AIPerf's JSON) writes
// a float: shortest round-trip digits, a trailing ".0" on whole numbers, and
// scientific notation only below 1e-4 or from 1e16 on. Callers must have
// filtered out NaN and ±Inf, which JSON cannot carry.
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	if f == math.Trunc(f) {
		b = append(b, '.', '0')
	}
	return b
}
