package metrics

// Unit names as AIPerf writes them in exports.
const (
	UnitNanoseconds   = "ns"
	UnitMilliseconds  = "ms"
	UnitSeconds       = "sec"
	UnitTokens        = "tokens"
	UnitTokensPerSec  = "tokens/sec"
	UnitTokensPerUser = "tokens/sec/user"
	UnitRequests      = "requests"
	UnitRequestsPerS  = "requests/sec"
)

const (
	nsPerMs  = 1e6
	nsPerSec = 1e9
)

// displayDivisor is what a base-unit value is divided by to get the display
// unit. Only time units convert; every other unit displays as-is.
func displayDivisor(base, display string) float64 {
	if base != UnitNanoseconds {
		return 1
	}
	switch display {
	case UnitMilliseconds:
		return nsPerMs
	case UnitSeconds:
		return nsPerSec
	}
	return 1
}
