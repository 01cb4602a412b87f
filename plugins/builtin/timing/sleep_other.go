//go:build !linux

package timing

import "time"

// preciseSleep falls back to the runtime timer where no precise OS sleep is
// wired in; the pacer's spin phase still bounds the lateness.
func preciseSleep(d time.Duration) { time.Sleep(d) }
