package jsonexport

import "math"

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
