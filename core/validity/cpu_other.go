//go:build !unix

package validity

import "time"

// processCPU is unknown without getrusage: the CPU rules do not apply.
func processCPU() (time.Duration, bool) { return 0, false }
