package jsonexport

import (
	"math"
	"strconv"

	"github.com/aiperf-go/aiperf/plugins/builtin/internal/pyfmt"
)

// appendInt appends f as an integer literal when it is a whole number that
// fits an int64 exactly (token counts), else as a float.
func appendInt(b []byte, f float64) []byte {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10)
	}
	return pyfmt.AppendFloat(b, f)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
