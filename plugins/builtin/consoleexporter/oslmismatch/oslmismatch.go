// Package oslmismatch is the "osl_mismatch_warning" console exporter:
// AIPerf 0.13's "Output Sequence Length Mismatch Warning" panel
// (aiperf/exporters/console_osl_mismatch_exporter.py), printed after the
// metrics when some requests' output length missed the requested max tokens
// by more than the tolerance (osl_mismatch_count > 0).
package oslmismatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable/richtable"
)

// Name is the plugin name of this exporter (AIPerf's).
const Name = "osl_mismatch_warning"

// Title is AIPerf's panel title.
const Title = "Output Sequence Length Mismatch Warning"

// Exporter renders the warning panel.
type Exporter struct {
	color  *bool // nil: decide from the writer and NO_COLOR
	getenv func(string) string
}

var _ sdk.ConsoleExporter = (*Exporter)(nil)

// Option configures the exporter.
type Option func(*Exporter)

// WithColor forces colour on or off instead of detecting a terminal.
func WithColor(on bool) Option { return func(e *Exporter) { e.color = &on } }

// WithGetenv replaces os.Getenv for the thresholds' environment variables.
func WithGetenv(getenv func(string) string) Option { return func(e *Exporter) { e.getenv = getenv } }

// New returns the exporter.
func New(opts ...Option) *Exporter {
	e := &Exporter{getenv: os.Getenv}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Render writes the panel, or nothing when no request missed its requested
// output length (osl_mismatch_count absent or 0) or there are no successful
// requests, as AIPerf does.
func (e *Exporter) Render(_ context.Context, w io.Writer, ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("osl_mismatch_warning: nil export context")
	}
	if ec.Results == nil {
		return nil
	}
	count := avgOf(ec.Results, metrics.TagOSLMismatchCount)
	if count == nil || *count <= 0 {
		return nil
	}
	total := avgOf(ec.Results, metrics.TagRequestCount)
	if total == nil || int64(*total) == 0 {
		return nil
	}
	// The thresholds the accumulator used; a bad variable already failed the
	// run, so the defaults only stand in for a misconfigured caller.
	th, err := metrics.ThresholdsFromEnv(e.getenv)
	if err != nil {
		th = metrics.DefaultThresholds()
	}
	color := metricstable.IsColorTerminal(w)
	if e.color != nil {
		color = *e.color
	}
	lines := Lines(int64(*count), int64(*total), avgOf(ec.Results, metrics.TagOSLMismatchDiff), th)
	if _, err := io.WriteString(w, "\n"+panel(Title, lines, color)); err != nil {
		return fmt.Errorf("osl_mismatch_warning: %w", err)
	}
	return nil
}

func avgOf(res *sdk.Results, tag string) *float64 {
	m, ok := res.Metric(tag)
	if !ok || m.Avg == nil || math.IsNaN(*m.Avg) {
		return nil
	}
	return m.Avg
}

// Span is a run of text in one style.
type Span struct {
	Text  string
	Style string
}

// Line is one line of the panel's body.
type Line []Span

func (l Line) plain() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.Text)
	}
	return b.String()
}

const (
	bold  = richtable.Bold
	green = richtable.Green
	cyan  = richtable.Cyan
)

// Lines is AIPerf's warning text (markup resolved into styled spans):
// how many requests missed, the tolerance, the average mismatch (the
// average osl_mismatch_diff_pct, "N/A" without one), why and what to do.
func Lines(count, total int64, avgDiff *float64, th metrics.Thresholds) []Line {
	pct := float64(count) / float64(total) * 100
	avg := "N/A"
	if avgDiff != nil {
		avg = strconv.FormatFloat(*avgDiff, 'f', 1, 64) + "%"
	}
	pctG := pyG(th.OSLMismatchPct)
	maxTok := strconv.Itoa(th.OSLMismatchMaxTokens)
	return []Line{
		{{fmt.Sprintf("%s of %s requests (%s%%) have output length differing from requested by more than the threshold.",
			groupThousands(count), groupThousands(total), strconv.FormatFloat(pct, 'f', 1, 64)), bold}},
		{{"Threshold (tokens):", bold}, {" min(requested x " + pctG + "%, " + maxTok + ")", ""}},
		{{"Average mismatch:", bold}, {" " + avg, ""}},
		{},
		{{"Why:", bold}, {" Server hit EOS token before reaching requested output length.", ""}},
		{},
		{{"Fix Options:", bold}},
		{{"  - ", ""}, {"--extra-inputs ignore_eos:true", green}, {" - Generate until max_tokens (vLLM, TensorRT-LLM)", ""}},
		{{"  - ", ""}, {"--extra-inputs min_tokens:<N>", green}, {" - Set minimum output length (vLLM, TensorRT-LLM, SGLang)", ""}},
		{{"  - ", ""}, {"--use-server-token-count", green}, {" - Use server-reported token counts if tokenizer mismatch suspected", ""}},
		{},
		{{"Diagnostics:", bold}},
		{{"  - Review ", ""}, {"profile_export.jsonl", cyan}, {" -> ", ""}, {"osl_mismatch_diff_pct", cyan}, {" for per-request values", ""}},
		{{"  - Adjust: ", ""}, {metrics.EnvOSLMismatchPct + "=" + pctG, green}},
		{{"  - Adjust: ", ""}, {metrics.EnvOSLMismatchMaxTokens + "=" + maxTok, green}},
	}
}

// panel draws Rich's Panel(expand=False, padding=(0, 2), border "bold
// yellow", title centred) in its default ROUNDED box: as wide as the
// longest line plus padding, the title centred in the top border.
func panel(title string, lines []Line, color bool) string {
	inner := 0 // the body's width, padding excluded
	for _, l := range lines {
		inner = max(inner, utf8.RuneCountInString(l.plain()))
	}
	titleText := " " + title + " "
	child := max(inner+4, utf8.RuneCountInString(titleText)+2) // Rich: max(child, title+2)
	inner = child - 4
	border := func(s string) string { return style(s, richtable.Bold+";"+richtable.Yellow, color) }

	var b strings.Builder
	excess := child - 2 - utf8.RuneCountInString(titleText)
	left := excess / 2
	b.WriteString(border("╭─" + strings.Repeat("─", left)))
	b.WriteString(style(titleText, richtable.Bold+";"+richtable.Yellow, color))
	b.WriteString(border(strings.Repeat("─", excess-left) + "─╮"))
	b.WriteByte('\n')
	for _, l := range lines {
		b.WriteString(border("│"))
		b.WriteString("  ")
		for _, s := range l {
			b.WriteString(style(s.Text, s.Style, color))
		}
		b.WriteString(strings.Repeat(" ", inner-utf8.RuneCountInString(l.plain())))
		b.WriteString("  ")
		b.WriteString(border("│"))
		b.WriteByte('\n')
	}
	b.WriteString(border("╰" + strings.Repeat("─", child) + "╯"))
	b.WriteByte('\n')
	return b.String()
}

func style(s, sgr string, color bool) string {
	if !color || sgr == "" || s == "" {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// pyG is Python's f"{v:g}": six significant digits, trailing zeros dropped.
func pyG(v float64) string { return fmt.Sprintf("%.6g", v) }

// groupThousands is Python's f"{n:,}".
func groupThousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
