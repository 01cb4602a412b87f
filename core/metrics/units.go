package metrics

import "fmt"

// Unit names as AIPerf writes them in exports.
const (
	UnitNanoseconds   = "ns"
	UnitMicroseconds  = "us"
	UnitMilliseconds  = "ms"
	UnitSeconds       = "sec"
	UnitTokens        = "tokens"
	UnitTokensPerSec  = "tokens/sec"
	UnitTokensPerUser = "tokens/sec/user"
	UnitRequests      = "requests"
	UnitRequestsPerS  = "requests/sec"
	UnitPercent       = "%"
	UnitRatio         = "ratio"
)

const (
	nsPerUs  = 1e3
	nsPerMs  = 1e6
	nsPerSec = 1e9
)

// timeUnits are the units values convert between, in ns. "s" is accepted
// as a spelling of sec for plugin authors; exports show what was declared.
var timeUnits = map[string]float64{
	UnitNanoseconds: 1, UnitMicroseconds: nsPerUs, UnitMilliseconds: nsPerMs, UnitSeconds: nsPerSec, "s": nsPerSec,
}

// displayDivisor is what a value in unit base is divided by to get it in
// display (an empty display means base). Time units convert among
// themselves; any other unit only displays as itself.
func displayDivisor(base, display string) (float64, error) {
	if display == "" || display == base {
		return 1, nil
	}
	from, okFrom := timeUnits[base]
	to, okTo := timeUnits[display]
	if !okFrom || !okTo {
		return 0, fmt.Errorf("no conversion from unit %q to display unit %q", base, display)
	}
	if from == 1 {
		// ns -> ms divides by exactly 1e6, as AIPerf does.
		return to, nil
	}
	return to / from, nil
}
