package dashboardui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// DefaultWidth and DefaultHeight are the screen drawn for when the output is
// not a terminal; DefaultWidth is also the width drawn for before a
// terminal reports its size.
const (
	DefaultWidth  = 80
	DefaultHeight = 40
)

// Frame is everything one screen shows.
type Frame struct {
	// Done holds the last progress seen of each finished phase, oldest
	// first, so warmup stays on screen during profiling.
	Done []sdk.ProgressSnapshot
	// Progress is the current phase.
	Progress sdk.ProgressSnapshot
	// Live is nil when the source gives progress only.
	Live *sdk.LiveView
}

// styles colour the frame. Bubble Tea brings the colours down to what the
// output supports (none on a pipe or with NO_COLOR); plain styles (tests)
// add nothing.
type styles struct {
	title, header, label, barFull, barEmpty, errCount, dim, value lipgloss.Style
}

func newStyles(colour bool) styles {
	if !colour {
		return styles{}
	}
	s := lipgloss.NewStyle()
	return styles{
		title:    s.Bold(true).Foreground(lipgloss.Color("12")),
		header:   s.Bold(true),
		label:    s.Bold(true).Foreground(lipgloss.Color("14")),
		barFull:  s.Foreground(lipgloss.Color("10")),
		barEmpty: s.Foreground(lipgloss.Color("8")),
		errCount: s.Foreground(lipgloss.Color("9")),
		dim:      s.Faint(true),
		value:    s.Foreground(lipgloss.Color("10")),
	}
}

// render draws f for a width×height terminal. It reads nothing else (no
// clock, no terminal), so equal inputs give equal frames. Width ≤ 0 draws
// DefaultWidth columns; height ≤ 0 draws every line.
func render(f Frame, width, height int, st styles) string {
	if width <= 0 {
		width = DefaultWidth
	}
	lines := []string{titleLine(f.Progress, st), ""}
	for _, p := range f.Done {
		lines = append(lines, progressLines(p, true, width, st)...)
	}
	lines = append(lines, progressLines(f.Progress, false, width, st)...)
	if v := f.Live; v != nil {
		lines = append(lines, "")
		lines = append(lines, throughputLines(v, width, st)...)
		if len(v.Metrics) > 0 {
			lines = append(lines, "")
			lines = append(lines, metricsTable(v.Metrics, width, st)...)
		}
		lines = append(lines, "")
		lines = append(lines, errorLines(v.Errors, width, st)...)
		if len(v.GPUs) > 0 {
			lines = append(lines, "", st.header.Render("GPU telemetry"))
			lines = append(lines, gpuTable(v.GPUs, width, st)...)
		}
		if len(v.Server) > 0 {
			lines = append(lines, "", st.header.Render("Server metrics")+"  "+clean(strings.Join(v.Server, ", ")))
		}
	}
	return fit(lines, width, height, st)
}

// fit cuts lines to the terminal: each to width columns, and the list to
// height lines with the last one saying how many were left out (the
// renderer would otherwise drop the top, title first).
func fit(lines []string, width, height int, st styles) string {
	if height > 0 && len(lines) > height {
		more := len(lines) - height + 1
		if height == 1 {
			lines = lines[:1]
		} else {
			lines = append(lines[:height-1:height-1], st.dim.Render(fmt.Sprintf("… %d more lines (enlarge the terminal)", more)))
		}
	}
	for i, l := range lines {
		if lipgloss.Width(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func titleLine(p sdk.ProgressSnapshot, st styles) string {
	if p.Phase == "" {
		return st.title.Render("AIPerf") + " · waiting for the first phase"
	}
	return st.title.Render("AIPerf") + " · " + phaseName(p.Phase) + " · " + formatElapsed(p.Elapsed) + " elapsed"
}

// progressLines is one phase: name, percentage and bar (when the phase has
// a request count) and completed/total, then sent, errors, elapsed and ETA
// (or done) — on a second line when one is too narrow for both.
func progressLines(p sdk.ProgressSnapshot, done bool, width int, st styles) []string {
	var head strings.Builder
	head.WriteString(st.label.Render(pad(phaseName(p.Phase), labelWidth, false)))
	head.WriteString(" ")
	if p.Phase == "" && p.Sent == 0 && p.Completed == 0 {
		head.WriteString(st.dim.Render("waiting…"))
		return []string{head.String()}
	}
	if frac, ok := fraction(p, done); ok {
		barW := min(max(width/4, 10), 30)
		filled := int(frac * float64(barW))
		fmt.Fprintf(&head, "%5.1f%% ", frac*100)
		head.WriteString(st.barFull.Render(strings.Repeat("█", filled)))
		head.WriteString(st.barEmpty.Render(strings.Repeat("░", barW-filled)))
		if p.Total > 0 {
			fmt.Fprintf(&head, " %s/%s", formatCount(p.Completed), formatCount(p.Total))
		} else {
			fmt.Fprintf(&head, " %s completed", formatCount(p.Completed))
		}
	} else {
		fmt.Fprintf(&head, "%s completed", formatCount(p.Completed))
	}
	errs := formatCount(p.Errors)
	if p.Errors > 0 {
		errs = st.errCount.Render(errs)
	}
	items := []string{"sent " + formatCount(p.Sent), "errors " + errs, formatElapsed(p.Elapsed)}
	switch {
	case done:
		items = append(items, "done")
	case p.Total > 0:
		items = append(items, "ETA "+eta(p))
	case p.Duration > 0:
		items = append(items, "ETA "+formatETA(max(p.Duration-p.Elapsed, 0).Seconds()))
	}
	return wrap(head.String(), items, width)
}

// fraction is how far the phase is: by requests when it has a count, else
// by time when it has a duration (--benchmark-duration).
func fraction(p sdk.ProgressSnapshot, done bool) (float64, bool) {
	switch {
	case p.Total > 0:
		return min(max(float64(p.Completed)/float64(p.Total), 0), 1), true
	case p.Duration > 0 && done:
		return 1, true
	case p.Duration > 0:
		return min(max(p.Elapsed.Seconds()/p.Duration.Seconds(), 0), 1), true
	}
	return 0, false
}

// labelWidth is the width of the left column (phase names, "Throughput").
const labelWidth = 10

// wrap appends items to head, " · " apart, going on to further lines
// (indented past the label) where the terminal is too narrow.
func wrap(head string, items []string, width int) []string {
	indent := strings.Repeat(" ", labelWidth+1)
	var out []string
	line := head
	for _, it := range items {
		if next := line + " · " + it; lipgloss.Width(next) <= width {
			line = next
			continue
		}
		out = append(out, line)
		line = indent + it
	}
	return append(out, line)
}

// eta extrapolates the completion rate so far; "--" before the first
// completion.
func eta(p sdk.ProgressSnapshot) string {
	left := p.Total - p.Completed
	if left <= 0 {
		return formatETA(0)
	}
	sec := p.Elapsed.Seconds()
	if p.Completed <= 0 || sec <= 0 {
		return "--"
	}
	return formatETA(float64(left) / (float64(p.Completed) / sec))
}

func throughputLines(v *sdk.LiveView, width int, st styles) []string {
	return wrap(st.header.Render(pad("Throughput", labelWidth, false))+" "+st.value.Render(formatNum(v.RequestThroughput))+" req/s",
		[]string{st.value.Render(formatNum(v.OutputTokenThroughput)) + " output tok/s"}, width)
}

func metricsTable(ms []sdk.LiveMetric, width int, st styles) []string {
	cols := []column{
		{title: "Metric"}, {title: "Unit", prio: 1},
		{title: "avg", right: true, prio: 2}, {title: "min", right: true, prio: 7}, {title: "max", right: true, prio: 6},
		{title: "p50", right: true, prio: 4}, {title: "p90", right: true, prio: 5}, {title: "p99", right: true, prio: 3},
		{title: "count", right: true, prio: 8},
	}
	rows := make([][]string, 0, len(ms))
	for _, m := range ms {
		name := m.Header
		if name == "" {
			name = m.Tag
		}
		rows = append(rows, []string{clean(name), clean(m.Unit), formatNum(m.Avg), formatNum(m.Min), formatNum(m.Max),
			formatNum(m.P50), formatNum(m.P90), formatNum(m.P99), formatCount(m.Count)})
	}
	return table(cols, rows, width, st)
}

// errorLines lists error types, most frequent first (ties by name).
func errorLines(errs []sdk.LiveErrorCount, width int, st styles) []string {
	if len(errs) == 0 {
		return []string{st.header.Render("Errors") + "  none"}
	}
	errs = slices.Clone(errs)
	slices.SortStableFunc(errs, func(a, b sdk.LiveErrorCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Type, b.Type))
	})
	rows := make([][]string, 0, len(errs))
	for _, e := range errs {
		rows = append(rows, []string{clean(e.Type), formatCount(e.Count)})
	}
	return append([]string{st.header.Render("Errors")},
		table([]column{{title: "Type"}, {title: "Count", right: true, prio: 1}}, rows, width, st)...)
}

func gpuTable(gpus []sdk.LiveGPU, width int, st styles) []string {
	sources := map[string]bool{}
	for _, g := range gpus {
		sources[g.Source] = true
	}
	cols := []column{{title: "GPU", right: true}, {title: "Name", prio: 5},
		{title: "Power (W)", right: true, prio: 2}, {title: "Util (%)", right: true, prio: 1},
		{title: "Mem (GB)", right: true, prio: 3}, {title: "Mem util (%)", right: true, prio: 6}, {title: "Temp (°C)", right: true, prio: 4}}
	// The source only tells GPUs apart when several endpoints are scraped.
	multi := len(sources) > 1
	if multi {
		cols = append(cols, column{title: "Source", prio: 7})
	}
	rows := make([][]string, 0, len(gpus))
	for _, g := range gpus {
		row := []string{strconv.Itoa(g.Index), clean(g.Name), formatNum(g.PowerW), formatNum(g.UtilPct),
			formatNum(g.MemUsedGB), formatNum(g.MemUtilPct), formatNum(g.TempC)}
		if multi {
			row = append(row, clean(g.Source))
		}
		rows = append(rows, row)
	}
	return table(cols, rows, width, st)
}

// column is one table column; when the table is wider than the terminal
// the columns of highest prio go first (prio 0 always stays).
type column struct {
	title string
	right bool
	prio  int
}

const colGap = "  "

// table lays rows out in columns sized to their widest cell, dropping
// low-priority columns until it fits width.
func table(cols []column, rows [][]string, width int, st styles) []string {
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = lipgloss.Width(c.title)
		for _, r := range rows {
			widths[i] = max(widths[i], lipgloss.Width(r[i]))
		}
	}
	keep := make([]bool, len(cols))
	total := 0
	for i := range cols {
		keep[i] = true
		total += widths[i]
	}
	total += len(colGap) * (len(cols) - 1)
	for total > width {
		drop := -1
		for i, c := range cols {
			if keep[i] && c.prio > 0 && (drop < 0 || c.prio > cols[drop].prio) {
				drop = i
			}
		}
		if drop < 0 {
			break // what is left is truncated by fit
		}
		keep[drop] = false
		total -= widths[drop] + len(colGap)
	}
	line := func(cells []string, style func(i int, s string) string) string {
		var parts []string
		for i, c := range cols {
			if keep[i] {
				parts = append(parts, style(i, pad(cells[i], widths[i], c.right)))
			}
		}
		return strings.TrimRight(strings.Join(parts, colGap), " ")
	}
	titles := make([]string, len(cols))
	for i, c := range cols {
		titles[i] = c.title
	}
	out := []string{line(titles, func(_ int, s string) string { return st.header.Render(s) })}
	for _, r := range rows {
		out = append(out, line(r, func(i int, s string) string {
			if strings.TrimSpace(s) == na {
				return st.dim.Render(s)
			}
			return s
		}))
	}
	return out
}

func pad(s string, w int, right bool) string {
	n := w - lipgloss.Width(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

func phaseName(p string) string {
	if p == "" {
		return "Progress"
	}
	r, n := utf8.DecodeRuneInString(p)
	return clean(string(unicode.ToUpper(r)) + p[n:])
}

// clean replaces control characters (an escape sequence in a server's error
// text, a newline in a GPU name) so text from outside cannot drive the
// terminal or break the layout.
func clean(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

const na = "N/A"

// formatNum is AIPerf's dashboard number format ({:,.2f}); NaN and ±Inf
// (a value nobody measured yet) are N/A.
func formatNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return na
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', 2, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	out := group(intPart) + "." + frac
	if math.Signbit(v) { // like Python's format, -0.001 is -0.00
		out = "-" + out
	}
	return out
}

func formatCount(n int64) string {
	if n < 0 {
		return "-" + group(strconv.FormatInt(-n, 10))
	}
	return group(strconv.FormatInt(n, 10))
}

// group puts thousands separators into a string of digits.
func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// formatElapsed is AIPerf's format_elapsed_time: 12.3s under a minute, then
// 1h 2m 3s.
func formatElapsed(d time.Duration) string {
	sec := max(d, 0).Seconds()
	if sec < 60 {
		return fmt.Sprintf("%.1fs", sec)
	}
	var parts []string
	for _, u := range []struct {
		suffix string
		factor float64
	}{{"d", 86400}, {"h", 3600}, {"m", 60}} {
		if sec >= u.factor {
			n := math.Floor(sec / u.factor)
			parts = append(parts, fmt.Sprintf("%d%s", int64(n), u.suffix))
			sec -= n * u.factor
		}
	}
	if sec > 0 {
		parts = append(parts, fmt.Sprintf("%.0fs", sec))
	}
	return strings.Join(parts, " ")
}

// formatETA is AIPerf's format_eta: 12.3s, 4m 5s, 2h 3m, 1d 2h.
func formatETA(sec float64) string {
	if math.IsNaN(sec) || sec > 1e9 { // decades: no useful estimate yet
		return "--"
	}
	if sec < 60 {
		return fmt.Sprintf("%.1fs", max(sec, 0))
	}
	minutes := int64(sec / 60)
	rest := math.Mod(sec, 60)
	if minutes < 60 {
		if rest < 1 {
			return fmt.Sprintf("%dm", minutes)
		}
		return fmt.Sprintf("%dm %.0fs", minutes, rest)
	}
	hours, minutes := minutes/60, minutes%60
	if hours < 24 {
		if minutes == 0 {
			return fmt.Sprintf("%dh", hours)
		}
		return fmt.Sprintf("%dh %dm", hours, minutes)
	}
	days, hours := hours/24, hours%24
	if hours == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd %dh", days, hours)
}
