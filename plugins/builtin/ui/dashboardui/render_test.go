package dashboardui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func fullFrame() Frame {
	v := liveView()
	return Frame{Done: []sdk.ProgressSnapshot{warmup}, Progress: profiling, Live: &v}
}

// Any terminal size, zero included, gives a frame that fits it.
func TestRenderFitsEveryTerminalSize(t *testing.T) {
	frames := map[string]Frame{
		"full":          fullFrame(),
		"progress only": {Progress: profiling},
		"empty":         {},
		"empty live":    {Live: &sdk.LiveView{}},
	}
	for name, f := range frames {
		for _, width := range []int{-1, 0, 1, 2, 5, 10, 20, 40, 80, 200} {
			for _, height := range []int{-1, 0, 1, 2, 3, 5, 12, 100} {
				t.Run(fmt.Sprintf("%s/%dx%d", name, width, height), func(t *testing.T) {
					out := render(f, width, height, plain())
					lines := strings.Split(out, "\n")
					wantW := width
					if wantW <= 0 {
						wantW = DefaultWidth
					}
					for i, l := range lines {
						if w := lipgloss.Width(l); w > wantW {
							t.Errorf("line %d is %d columns wide, terminal %d: %q", i, w, wantW, l)
						}
					}
					if height > 0 && len(lines) > height {
						t.Errorf("%d lines for a %d-line terminal", len(lines), height)
					}
					if wantW > len("AIPerf") && !strings.HasPrefix(lines[0], "AIPerf") {
						t.Errorf("title is not the first line: %q", lines[0])
					}
				})
			}
		}
	}
}

// A cut screen says how much it left out, and keeps the title.
func TestRenderSaysWhatItLeftOut(t *testing.T) {
	full := strings.Split(render(fullFrame(), 120, 0, plain()), "\n")
	out := strings.Split(render(fullFrame(), 120, 10, plain()), "\n")
	if len(out) != 10 {
		t.Fatalf("got %d lines, want 10", len(out))
	}
	want := fmt.Sprintf("… %d more lines (enlarge the terminal)", len(full)-9)
	if out[9] != want || out[0] != full[0] {
		t.Fatalf("last line %q (want %q), first %q", out[9], want, out[0])
	}
	if one := render(fullFrame(), 120, 1, plain()); one != full[0] {
		t.Fatalf("one-line terminal shows %q, want the title", one)
	}
}

// Colours change no column: stripped of its escape codes a coloured frame
// is the plain one.
func TestColouredFrameHasThePlainLayout(t *testing.T) {
	coloured := render(fullFrame(), 120, 0, newStyles(true))
	if !strings.Contains(coloured, "\x1b[") {
		t.Fatal("no colour in a coloured frame")
	}
	if got, want := ansi.Strip(coloured), render(fullFrame(), 120, 0, plain()); got != want {
		t.Fatalf("coloured frame differs from the plain one:\n%s\n---\n%s", got, want)
	}
	// A narrow coloured frame is cut by display columns, not bytes.
	for _, l := range strings.Split(render(fullFrame(), 40, 0, newStyles(true)), "\n") {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("coloured line %d columns wide: %q", w, l)
		}
	}
}

func TestRenderIsPure(t *testing.T) {
	f := fullFrame()
	f.Live.Errors = []sdk.LiveErrorCount{{Type: "B", Count: 1}, {Type: "A", Count: 1}, {Type: "C", Count: 5}}
	a := render(f, 100, 50, plain())
	if b := render(f, 100, 50, plain()); a != b {
		t.Fatal("two renders of one frame differ")
	}
	// Sorting for display leaves the caller's slice alone.
	if f.Live.Errors[0].Type != "B" || f.Live.Errors[2].Type != "C" {
		t.Fatalf("render reordered the view's errors: %v", f.Live.Errors)
	}
	row := map[string]int{}
	for i, l := range strings.Split(a, "\n") {
		if f := strings.Fields(l); len(f) == 2 && len(f[0]) == 1 {
			row[f[0]+" "+f[1]] = i
		}
	}
	if i, j, k := row["C 5"], row["A 1"], row["B 1"]; i == 0 || !(i < j && j < k) {
		t.Fatalf("errors not most frequent first, then by name:\n%s", a)
	}
}

func TestProgressLines(t *testing.T) {
	tests := []struct {
		name string
		snap sdk.ProgressSnapshot
		done bool
		want string
	}{
		{"running, 450 of 1000 in 12 s", profiling, false,
			"Profiling   45.0% █████████████░░░░░░░░░░░░░░░░░ 450/1,000 · sent 460 · errors 3 · 12.0s · ETA 14.7s"},
		{"finished phase", warmup, true,
			"Warmup     100.0% ██████████████████████████████ 100/100 · sent 100 · errors 0 · 2.5s · done"},
		{"nothing completed yet", sdk.ProgressSnapshot{Phase: "profiling", Sent: 8, Total: 10, Elapsed: time.Second}, false,
			"Profiling    0.0% ░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░ 0/10 · sent 8 · errors 0 · 1.0s · ETA --"},
		{"overshoot is clamped", sdk.ProgressSnapshot{Phase: "profiling", Sent: 12, Completed: 12, Total: 10, Elapsed: 2 * time.Second}, false,
			"Profiling  100.0% ██████████████████████████████ 12/10 · sent 12 · errors 0 · 2.0s · ETA 0.0s"},
		{"unbounded (duration) phase", sdk.ProgressSnapshot{Phase: "profiling", Sent: 7210, Completed: 7200, Errors: 1, Elapsed: 3723 * time.Second}, false,
			"Profiling  7,200 completed · sent 7,210 · errors 1 · 1h 2m 3s"},
		{"before the first phase", sdk.ProgressSnapshot{}, false, "Progress   waiting…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(progressLines(tc.snap, tc.done, 120, plain()), "\n")
			if got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The number formats are AIPerf's dashboard ones ({:,.2f}, format_eta,
// format_elapsed_time); the wants were printed by AIPerf 0.13's functions.
func TestFormats(t *testing.T) {
	nums := []struct {
		v    float64
		want string
	}{
		{1234567.891, "1,234,567.89"}, {-1234.5, "-1,234.50"}, {-0.001, "-0.00"}, {999.999, "1,000.00"},
		{0, "0.00"}, {12.345, "12.35"}, {math.NaN(), "N/A"}, {math.Inf(1), "N/A"}, {math.Inf(-1), "N/A"},
	}
	for _, n := range nums {
		if got := formatNum(n.v); got != n.want {
			t.Errorf("formatNum(%v) = %q, want %q", n.v, got, n.want)
		}
	}
	etas := []struct {
		sec  float64
		want string
	}{
		{14.666, "14.7s"}, {60.5, "1m"}, {125, "2m 5s"}, {3600, "1h"}, {3720, "1h 2m"}, {86400, "1d"}, {90000, "1d 1h"},
		{math.NaN(), "--"}, {1e12, "--"},
	}
	for _, e := range etas {
		if got := formatETA(e.sec); got != e.want {
			t.Errorf("formatETA(%v) = %q, want %q", e.sec, got, e.want)
		}
	}
	elapsed := []struct {
		sec  float64
		want string
	}{{12.34, "12.3s"}, {60, "1m"}, {65, "1m 5s"}, {3723, "1h 2m 3s"}, {90061.5, "1d 1h 1m 2s"}, {-3, "0.0s"}}
	for _, e := range elapsed {
		if got := formatElapsed(time.Duration(e.sec * float64(time.Second))); got != e.want {
			t.Errorf("formatElapsed(%vs) = %q, want %q", e.sec, got, e.want)
		}
	}
	counts := map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"}
	for n, want := range counts {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// Several telemetry endpoints: the source column tells their GPUs apart.
func TestGPUTableShowsSourcesWhenSeveral(t *testing.T) {
	gpus := []sdk.LiveGPU{
		{Source: "http://node1:9401/metrics", Index: 0, Name: "H100", PowerW: 1, UtilPct: 2, MemUsedGB: 3, MemUtilPct: 4, TempC: 5},
		{Source: "http://node2:9401/metrics", Index: 0, Name: "H100", PowerW: 1, UtilPct: 2, MemUsedGB: 3, MemUtilPct: 4, TempC: 5},
	}
	out := strings.Join(gpuTable(gpus, 200, plain()), "\n")
	if !strings.Contains(out, "Source") || !strings.Contains(out, "node2:9401") {
		t.Fatalf("no source column:\n%s", out)
	}
	if one := strings.Join(gpuTable(gpus[:1], 200, plain()), "\n"); strings.Contains(one, "Source") {
		t.Fatalf("source column for a single endpoint:\n%s", one)
	}
}

func TestSettleKeepsFinishedPhases(t *testing.T) {
	var f Frame
	seen := false
	for _, s := range []sdk.ProgressSnapshot{
		{}, // the engine before its first phase
		{Phase: "warmup", Completed: 5}, {Phase: "warmup", Completed: 10},
		{Phase: "profiling", Completed: 1}, {}, {Phase: "profiling", Completed: 3},
	} {
		f = settle(f, seen, s)
		seen = true
	}
	if len(f.Done) != 1 || f.Done[0].Phase != "warmup" || f.Done[0].Completed != 10 {
		t.Fatalf("done = %+v, want warmup at 10", f.Done)
	}
	if f.Progress.Phase != "profiling" || f.Progress.Completed != 3 {
		t.Fatalf("current = %+v, want profiling at 3", f.Progress)
	}
}

// Text from outside the process (error types, GPU names, source URLs)
// cannot drive the terminal or break a line.
func TestOutsideTextIsCleaned(t *testing.T) {
	v := sdk.LiveView{
		Errors:  []sdk.LiveErrorCount{{Type: "Bad\x1b[2JGateway\nnext", Count: 1}},
		GPUs:    []sdk.LiveGPU{{Index: 0, Name: "GPU\r\x07", Source: "a"}, {Index: 1, Name: "ok", Source: "b\x1b]0;title\x07"}},
		Server:  []string{"http://x/\x1b[31mmetrics"},
		Metrics: []sdk.LiveMetric{{Tag: "t", Header: "T\tab", Unit: "m\x00s"}},
	}
	out := render(Frame{Progress: sdk.ProgressSnapshot{Phase: "pro\x1bfiling"}, Live: &v}, 200, 0, plain())
	if strings.ContainsFunc(out, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
		t.Fatalf("control characters reach the terminal: %q", out)
	}
	for _, want := range []string{"Bad?[2JGateway?next", "GPU??", "b?]0;title?", "http://x/?[31mmetrics", "T?ab", "m?s", "Pro?filing"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing from %q", want, out)
		}
	}
}
