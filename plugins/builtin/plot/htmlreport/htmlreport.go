// Package htmlreport writes the one-file HTML report of `aiperf plot
// --dashboard`: a run's (or a sweep's) configuration, console summary,
// interactive Apache ECharts charts and per-request drill-down, with every
// script, style and number inlined so the file opens offline from disk.
package htmlreport

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the ECharts bundle, styles and script
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// EChartsVersion is the vendored Apache ECharts release (assets/README.md).
const EChartsVersion = "5.6.0"

// echartsSHA256 pins assets/echarts.min.js; a test checks it.
const echartsSHA256 = "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1"

//go:embed assets/echarts.min.js
var echartsJS string

//go:embed report.js
var reportJS string

//go:embed report.css
var reportCSS string

//go:embed report.html.tmpl
var pageSource string

var pageTemplate = template.Must(template.New("report").Parse(pageSource))

// DataElementID is the id of the <script type="application/json"> block
// holding the report's data.
const DataElementID = "aiperf-data"

// Options say what the report looks like.
type Options struct {
	// Theme is "light" (the default when empty) or "dark".
	Theme string
	// Title heads the page; "AIPerf Report" when empty.
	Title string
	// Metrics are the metric specs the summary tables are laid out by
	// (headers, display order, console groups, hidden flags), as the console
	// table: a metric without a spec is shown under its tag, after the rest.
	Metrics []sdk.MetricSpec
	// MetricsTitle is the endpoint's console title ("LLM Metrics" when empty).
	MetricsTitle string
}

// Write renders runs as one self-contained HTML page: one run gets its
// charts and per-request drill-down; several runs (a sweep) get comparison
// charts and a table of runs. Each run's directory (PlotRun.Dir), when set,
// is read again for what PlotRun does not carry: the raw input_config, the
// command line, and each record's request id and error message.
func Write(w io.Writer, runs []*sdk.PlotRun, opts Options) error {
	if len(runs) == 0 {
		return errors.New("html report: no runs")
	}
	for i, r := range runs {
		if r == nil {
			return fmt.Errorf("html report: run %d is nil", i)
		}
	}
	switch opts.Theme {
	case "":
		opts.Theme = "light"
	case "light", "dark":
	default:
		return fmt.Errorf("html report: theme %q: want light or dark", opts.Theme)
	}
	if opts.Title == "" {
		opts.Title = "AIPerf Report"
	}
	specs := make(map[string]sdk.MetricSpec, len(opts.Metrics))
	for _, s := range opts.Metrics {
		specs[s.Tag] = s
	}
	p, data, err := build(runs, opts, specs)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(data) // escapes <, > and & inside strings
	if err != nil {
		return fmt.Errorf("html report: encode data: %w", err)
	}
	p.Data = template.JS(scriptSafe(raw))
	p.ECharts = template.JS(echartsJS)
	p.App = template.JS(reportJS)
	p.CSS = template.CSS(reportCSS)
	// Only these two scripts may run and nothing may be fetched: the page
	// stays offline even if a value slipped past escaping.
	p.CSP = "default-src 'none'; script-src " + scriptHash(echartsJS) + " " + scriptHash(reportJS) +
		"; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; base-uri 'none'; form-action 'none'"
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("html report: write: %w", err)
	}
	return nil
}

// scriptSafe keeps a JSON text from closing or confusing its <script>
// element; encoding/json already escapes '<' inside strings, so this is a
// second guard.
func scriptSafe(b []byte) string {
	s := strings.ReplaceAll(string(b), "</", `<\/`)
	return strings.ReplaceAll(s, "<!--", `<\!--`)
}

func scriptHash(src string) string {
	sum := sha256.Sum256([]byte(src))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// page is what the template renders; the charts and the drill-down table
// are drawn by report.js from Data.
type page struct {
	Title, Theme, CSP string
	Multi             bool
	Runs              []runView
	Charts            []chartSpec
	SeriesCharts      []chartSpec // one run's timeslices and telemetry over time
	RunTable          tableView   // several runs: one row per run
	Drilldown         bool
	CSS               template.CSS
	Data              template.JS
	ECharts, App      template.JS
	EChartsVersion    string
}

type runView struct {
	Name, Dir string
	Facts     []fact
	Config    string // pretty-printed input_config; empty when unknown
	Tables    []tableView
	Errors    []sdk.ErrorCount
}

type fact struct{ Label, Value string }

type tableView struct {
	Title   string
	Columns []string
	Rows    [][]string
}

// runName is how the report names a run: its directory's base name.
func runName(r *sdk.PlotRun, i int) string {
	if r.Dir == "" {
		return "run " + strconv.Itoa(i+1)
	}
	return filepath.Base(filepath.Clean(r.Dir))
}

func build(runs []*sdk.PlotRun, opts Options, specs map[string]sdk.MetricSpec) (*page, *reportData, error) {
	p := &page{Title: opts.Title, Theme: opts.Theme, Multi: len(runs) > 1, EChartsVersion: EChartsVersion}
	data := &reportData{Version: dataVersion, Theme: opts.Theme, Mode: "single"}
	if p.Multi {
		data.Mode = "multi"
	}
	for i, r := range runs {
		extra, err := readExtras(r.Dir)
		if err != nil {
			return nil, nil, err
		}
		rv := runView{Name: runName(r, i), Dir: r.Dir, Config: extra.config, Errors: extra.errorSummary}
		rv.Facts = facts(r, extra)
		rv.Tables = summaryTables(r, specs, opts.MetricsTitle)
		p.Runs = append(p.Runs, rv)
		rd := runData{Name: rv.Name, Model: r.Config.Model, Endpoint: r.Config.EndpointType, Streaming: r.Config.Streaming,
			Concurrency: r.Config.Concurrency, Rate: r.Config.RequestRate, Stats: statsOf(r)}
		if !p.Multi {
			rec, err := recordsOf(r, specs)
			if err != nil {
				return nil, nil, err
			}
			rd.Records = rec
		}
		data.Runs = append(data.Runs, rd)
	}
	if p.Multi {
		data.Charts = comparisonCharts(runs)
		p.RunTable = runTable(runs, p.Runs)
	} else {
		data.Charts = singleRunCharts(runs[0])
		p.SeriesCharts = seriesCharts(runs[0])
		p.Drilldown = len(runs[0].Requests) > 0
	}
	p.Charts = data.Charts
	data.Charts = append(slices.Clip(data.Charts), p.SeriesCharts...)
	return p, data, nil
}

// facts are the header lines of a run: its target, load and outcome.
func facts(r *sdk.PlotRun, x extras) []fact {
	c := r.Config
	num := func(v float64) string {
		if v <= 0 {
			return "—"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	errs := 0
	for _, q := range r.Requests {
		if q.Error {
			errs++
		}
	}
	out := []fact{
		{"Model", or(c.Model, "—")},
		{"Endpoint type", or(c.EndpointType, "—")},
		{"Streaming", strconv.FormatBool(c.Streaming)},
		{"Concurrency", num(c.Concurrency)},
		{"Request rate", num(c.RequestRate)},
		{"Requests", fmt.Sprintf("%d (%d errors)", len(r.Requests), errs)},
	}
	if d, ok := r.Summary["benchmark_duration"]; ok {
		if v, ok := d.Stats["avg"]; ok {
			out = append(out, fact{"Benchmark duration", formatNumber(v) + " " + d.Unit})
		}
	}
	if x.startTime != "" {
		out = append(out, fact{"Started", x.startTime})
	}
	if x.version != "" {
		out = append(out, fact{"AIPerf version", x.version})
	}
	if x.command != "" {
		out = append(out, fact{"Command", x.command})
	}
	if r.Dir != "" {
		out = append(out, fact{"Directory", r.Dir})
	}
	return out
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
