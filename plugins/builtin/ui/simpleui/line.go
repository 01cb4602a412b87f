package simpleui

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

const barWidth = 20

// Line formats one progress line, e.g.
//
//	Profiling:  45.0% |#########...........| 450/1000 | errors: 3 | 00:12 | 37.50 req/s
//
// An unbounded phase (Total 0) has no percentage or bar.
func Line(s sdk.ProgressSnapshot) string {
	var b strings.Builder
	b.WriteString(phaseName(s.Phase))
	b.WriteString(": ")
	if s.Total > 0 {
		frac := min(max(float64(s.Completed)/float64(s.Total), 0), 1)
		filled := int(frac * barWidth)
		fmt.Fprintf(&b, "%5.1f%% |%s%s| %d/%d", frac*100,
			strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), s.Completed, s.Total)
	} else {
		fmt.Fprintf(&b, "%d done", s.Completed)
	}
	rate := 0.0
	if sec := s.Elapsed.Seconds(); sec > 0 {
		rate = float64(s.Completed) / sec
	}
	fmt.Fprintf(&b, " | errors: %d | %s | %.2f req/s", s.Errors, clock(s.Elapsed), rate)
	return b.String()
}

func phaseName(p string) string {
	if p == "" {
		return "Progress"
	}
	r, n := utf8.DecodeRuneInString(p)
	return string(unicode.ToUpper(r)) + p[n:]
}

// clock formats d as MM:SS, or H:MM:SS from an hour on.
func clock(d time.Duration) string {
	sec := int64(max(d, 0) / time.Second)
	if sec >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	}
	return fmt.Sprintf("%02d:%02d", sec/60, sec%60)
}
