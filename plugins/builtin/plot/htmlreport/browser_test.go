package htmlreport

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
)

// The HTML report is checked in a real browser: headless Chromium driven
// over the DevTools protocol by github.com/chromedp/chromedp. The test is
// skipped only when no Chromium or Chrome binary is on the machine, and
// fails instead when AIPERF_REQUIRE_CHROMIUM=1 (CI installs Debian's
// chromium and sets it).

// chromiumPath finds a Chromium or Chrome binary on PATH.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("AIPERF_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("AIPERF_REQUIRE_CHROMIUM=1 but no chromium, chromium-browser, google-chrome or headless-shell on PATH")
	}
	t.Skip("no Chromium or Chrome on PATH (install Debian's chromium); AIPERF_REQUIRE_CHROMIUM=1 makes this a failure")
	return ""
}

// browser starts one headless Chromium for the test; each page opens in a tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, // CI and containers run as root, where the sandbox cannot start
		chromedp.WindowSize(1400, 1000),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start it without a deadline: a deadline would end the browser
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// pageLog is what a tab saw: console errors, uncaught exceptions, browser
// log errors, every request and every dialog.
type pageLog struct {
	mu       sync.Mutex
	problems []string
	requests []string
	dialogs  []string
}

func (l *pageLog) listen(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			l.problems = append(l.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		l.problems = append(l.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber, msg))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			l.problems = append(l.problems, "log error ("+string(ev.Entry.Source)+"): "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		l.requests = append(l.requests, ev.Request.URL)
	case *cdppage.EventJavascriptDialogOpening:
		l.dialogs = append(l.dialogs, string(ev.Type)+": "+ev.Message)
	}
}

// check fails the test for any problem, any request other than the file
// itself or a data: URL, and any dialog.
func (l *pageLog) check(t *testing.T, fileURL string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.problems {
		t.Errorf("browser: %s", p)
	}
	for _, d := range l.dialogs {
		t.Errorf("a dialog opened: %s", d)
	}
	if len(l.requests) == 0 {
		t.Error("no request seen at all: the network listener is not working")
	}
	for _, u := range l.requests {
		if u != fileURL && !strings.HasPrefix(u, "data:") {
			t.Errorf("request to %s: the report must not load anything", u)
		}
	}
}

// openReport writes the report into a temp dir and loads it over file://
// in a new tab, waiting until report.js says it has drawn everything.
func openReport(t *testing.T, browserCtx context.Context, runs []*sdk.PlotRun, opts Options) (context.Context, *pageLog, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, render(t, runs, opts), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := (&url.URL{Scheme: "file", Path: path}).String()
	l := &pageLog{}
	tab, cancelTab := chromedp.NewContext(browserCtx, chromedp.WithListener(l.listen))
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatal(err)
	}
	// Dismiss any dialog so a stray alert cannot hang the test (it is still reported).
	dialogs := chromedp.Events(tab, cdppage.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(tab, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	ctx, cancel := context.WithTimeout(tab, 90*time.Second)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(fileURL)); err != nil {
		t.Fatalf("open %s: %v", fileURL, err)
	}
	// Poll for readiness, giving up at once on a browser error (an
	// exception in report.js means it never will be).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.aiperfReport !== undefined && window.aiperfReport.ready === true`))
		if err == nil && ready {
			break
		}
		l.mu.Lock()
		failed := len(l.problems) > 0
		l.mu.Unlock()
		if failed || time.Now().After(deadline) {
			l.check(t, fileURL)
			t.Fatalf("report never became ready (last error %v)", err)
		}
	}
	return ctx, l, fileURL
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// chartInfo is what the page says about one chart container.
type chartInfo struct {
	ID       string   `json:"id"`
	Instance bool     `json:"instance"`
	Canvas   bool     `json:"canvas"`
	Types    []string `json:"types"`
	Names    []string `json:"names"`
	Points   []int    `json:"points"`
}

const chartsJS = `Array.from(document.querySelectorAll('.chart')).map(function (el) {
  var c = echarts.getInstanceByDom(el), o = c ? c.getOption() : null;
  return { id: el.dataset.chart, instance: !!c, canvas: !!el.querySelector('canvas'),
    types: o ? o.series.map(function (s) { return s.type; }) : [],
    names: o ? o.series.map(function (s) { return s.name; }) : [],
    points: o ? o.series.map(function (s) { return (s.data || []).length; }) : [] };
})`

func charts(t *testing.T, ctx context.Context) map[string]chartInfo {
	t.Helper()
	out := map[string]chartInfo{}
	for _, c := range eval[[]chartInfo](t, ctx, chartsJS) {
		if !c.Instance || !c.Canvas {
			t.Errorf("chart %s: instance %v, canvas %v", c.ID, c.Instance, c.Canvas)
		}
		out[c.ID] = c
	}
	return out
}

// clickPoint clicks, with the real mouse, the point of a chart's series at
// data index i (scrolled into view first).
func clickPoint(t *testing.T, ctx context.Context, chart string, series, i int) {
	t.Helper()
	xy := eval[[]float64](t, ctx, fmt.Sprintf(`(function () {
  var el = document.getElementById('chart-%s');
  el.scrollIntoView({ block: 'center' });
  var c = echarts.getInstanceByDom(el), d = c.getOption().series[%d].data[%d];
  var v = Array.isArray(d) ? d : d.value;
  var p = c.convertToPixel({ seriesIndex: %d }, v), r = el.getBoundingClientRect();
  return [r.left + p[0], r.top + p[1]];
})()`, chart, series, i, series))
	do(t, ctx, "click "+chart, chromedp.MouseClickXY(xy[0], xy[1]))
}

func TestReportInBrowserSingleRun(t *testing.T) {
	bctx := browser(t)
	run := singleRun(t)
	ctx, l, fileURL := openReport(t, bctx, []*sdk.PlotRun{run}, Options{Metrics: builtinSpecs(t)})

	// Every PNG plot of the fixture is an interactive chart with its series.
	got := charts(t, ctx)
	var ids []string
	for id := range got {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	want := slices.Sorted(slices.Values(plotbuiltin.Names))
	if !slices.Equal(ids, want) {
		t.Fatalf("charts %v, want %v", ids, want)
	}
	n := len(run.Requests) // 30, none failed
	for _, tc := range []struct {
		id     string
		types  []string
		points int // of the first series
	}{
		{plotbuiltin.TTFTOverTime, []string{"scatter"}, n},
		{plotbuiltin.ITLOverTime, []string{"scatter"}, n},
		{plotbuiltin.LatencyOverTime, []string{"scatter", "line", "line", "line"}, n},
		{plotbuiltin.ThroughputOverTime, []string{"line"}, 4*n - 1}, // two events per request, a step before each but the first
		{plotbuiltin.TTFTDistribution, []string{"bar"}, min(n, histogramBins)},
		{plotbuiltin.ITLDistribution, []string{"bar"}, min(n, histogramBins)},
		{plotbuiltin.LatencyDistribution, []string{"bar"}, min(n, histogramBins)},
		{plotbuiltin.ISLvsOSL, []string{"scatter"}, n},
	} {
		c := got[tc.id]
		if !slices.Equal(c.Types, tc.types) || len(c.Points) == 0 || c.Points[0] != tc.points {
			t.Errorf("chart %s: series %v with %v points, want %v with %d", tc.id, c.Types, c.Points, tc.types, tc.points)
		}
	}

	// The drill-down lists every record.
	if rows := eval[int](t, ctx, `document.querySelectorAll('#req-body tr').length`); rows != n {
		t.Errorf("drill-down shows %d rows, want %d", rows, n)
	}
	if s := eval[string](t, ctx, `document.getElementById('req-count').textContent`); s != fmt.Sprintf("%d of %d requests", n, n) {
		t.Errorf("count %q", s)
	}

	// Typing a filter keeps the matching records.
	ttft := func(i int) float64 { return run.Requests[i].Metrics["time_to_first_token"] }
	above := 0
	for i := range n {
		if ttft(i) > 16 {
			above++
		}
	}
	if above == 0 || above == n {
		t.Fatalf("fixture: %d of %d TTFTs above 16 ms; pick another threshold", above, n)
	}
	do(t, ctx, "type a filter", chromedp.SendKeys(chromedp.CSS("#req-filter"), "ttft > 16"))
	if m := eval[string](t, ctx, `document.getElementById('req-table').dataset.matching`); m != fmt.Sprint(above) {
		t.Errorf("filter ttft > 16 keeps %s records, want %d", m, above)
	}
	if rows := eval[int](t, ctx, `document.querySelectorAll('#req-body tr').length`); rows != above {
		t.Errorf("filtered table shows %d rows, want %d", rows, above)
	}

	// Clicking a TTFT point the filter hides selects its request: the
	// filter clears, its row is highlighted and every metric is shown.
	below := slices.IndexFunc(run.Requests, func(q sdk.PlotRequest) bool { return q.Metrics["time_to_first_token"] <= 16 })
	clickPoint(t, ctx, plotbuiltin.TTFTOverTime, 0, below)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.getElementById('req-detail').dataset.index === '%d'`, below),
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("clicking point %d did not select its request: %v", below, err)
	}
	if sel := eval[string](t, ctx, `(document.querySelector('#req-body tr.selected') || {dataset: {}}).dataset.index || ''`); sel != fmt.Sprint(below) {
		t.Errorf("selected row %q, want %d", sel, below)
	}
	if m := eval[string](t, ctx, `document.getElementById('req-table').dataset.matching`); m != fmt.Sprint(n) {
		t.Errorf("after selecting a hidden request %s records match, want all %d", m, n)
	}
	detail := eval[string](t, ctx, `document.getElementById('req-detail').textContent`)
	for _, w := range []string{fmt.Sprintf("Request #%d", below), "Time to First Token (ms)", "Output Sequence Length (tokens)", "Request ID"} {
		if !strings.Contains(detail, w) {
			t.Errorf("detail %q lacks %q", detail, w)
		}
	}

	// Sorting by TTFT puts the smallest first, then (again) the largest.
	argmin, argmax := 0, 0
	for i := range n {
		if ttft(i) < ttft(argmin) {
			argmin = i
		}
		if ttft(i) > ttft(argmax) {
			argmax = i
		}
	}
	for _, want := range []int{argmin, argmax} {
		do(t, ctx, "sort by TTFT", chromedp.Click(chromedp.CSS(`#req-head th[data-key="time_to_first_token"]`)))
		if first := eval[string](t, ctx, `document.querySelector('#req-body tr').dataset.index`); first != fmt.Sprint(want) {
			t.Errorf("first row after sorting %q, want %d", first, want)
		}
	}

	// Pages: 25 rows, then the last 5.
	do(t, ctx, "page size", chromedp.Evaluate[chromedp.Void](`(function () { var s = document.getElementById('req-page-size'); s.value = '25'; s.dispatchEvent(new Event('change')); })()`))
	if rows := eval[int](t, ctx, `document.querySelectorAll('#req-body tr').length`); rows != 25 {
		t.Errorf("page 1 shows %d rows, want 25", rows)
	}
	do(t, ctx, "next page", chromedp.Click(chromedp.CSS("#req-next")))
	if rows := eval[int](t, ctx, `document.querySelectorAll('#req-body tr').length`); rows != n-25 {
		t.Errorf("page 2 shows %d rows, want %d", rows, n-25)
	}
	if p := eval[string](t, ctx, `document.getElementById('req-page').textContent`); p != "Page 2 of 2" {
		t.Errorf("pager %q", p)
	}

	// The theme switch redraws every chart in the other theme.
	do(t, ctx, "switch theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	if !eval[bool](t, ctx, `document.body.classList.contains('theme-dark')`) {
		t.Error("theme toggle did not switch to dark")
	}
	if after := charts(t, ctx); len(after) != len(plotbuiltin.Names) {
		t.Errorf("%d charts after the theme switch", len(after))
	}
	l.check(t, fileURL)
}

func TestReportInBrowserSweep(t *testing.T) {
	bctx := browser(t)
	runs := sweepRuns(t)
	ctx, l, fileURL := openReport(t, bctx, runs, Options{Metrics: builtinSpecs(t), Theme: "dark"})
	got := charts(t, ctx)
	for _, tc := range []struct {
		id    string
		types []string
	}{
		{plotbuiltin.ParetoThroughputVsInteractivity, []string{"scatter", "line"}},
		{plotbuiltin.ParetoThroughputVsLatency, []string{"scatter", "line"}},
		{plotbuiltin.TTFTVsThroughput, []string{"line"}},
		{plotbuiltin.TTFTVsLoad, []string{"line", "line", "line"}},
		{"inter_token_latency_vs_load", []string{"line", "line", "line"}},
		{plotbuiltin.LatencyVsLoad, []string{"line", "line", "line"}},
		{plotbuiltin.ThroughputVsLoad, []string{"line"}},
	} {
		c, ok := got[tc.id]
		if !ok || !slices.Equal(c.Types, tc.types) || c.Points[0] != len(runs) {
			t.Errorf("chart %s: %+v, want series %v with %d points", tc.id, c, tc.types, len(runs))
		}
	}
	if len(got) != 7 {
		t.Errorf("%d charts, want 7", len(got))
	}
	if !eval[bool](t, ctx, `document.body.classList.contains('theme-dark')`) {
		t.Error("dark theme not applied")
	}
	if rows := eval[int](t, ctx, `document.querySelectorAll('#run-table tbody tr').length`); rows != len(runs) {
		t.Errorf("run table has %d rows, want %d", rows, len(runs))
	}
	if eval[bool](t, ctx, `document.getElementById('req-table') !== null`) {
		t.Error("a sweep has a per-request table")
	}
	// Clicking a run's point on the Pareto chart opens that run's details.
	if open := eval[int](t, ctx, `document.querySelectorAll('details.run[open]').length`); open != 0 {
		t.Fatalf("%d run details open before any click", open)
	}
	clickPoint(t, ctx, plotbuiltin.ParetoThroughputVsInteractivity, 0, 0)
	wantRun := eval[int](t, ctx, `echarts.getInstanceByDom(document.getElementById('chart-`+plotbuiltin.ParetoThroughputVsInteractivity+`')).getOption().series[0].data[0].run`)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('details.run')[%d].open`, wantRun),
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("clicking the point of run %d did not open its details: %v", wantRun, err)
	}
	l.check(t, fileURL)
}

// A sweep with GPU telemetry in every run draws AIPerf's two per-GPU Pareto
// charts besides the others, each point at its run's total throughput over
// its 2 GPUs, and clicking a point opens that run's details.
func TestReportInBrowserGPUSweep(t *testing.T) {
	bctx := browser(t)
	runs := sweepGPURuns(t)
	ctx, l, fileURL := openReport(t, bctx, runs, Options{Metrics: builtinSpecs(t)})
	got := charts(t, ctx)
	for _, id := range []string{plotbuiltin.ParetoThroughputPerGPUVsLatency, plotbuiltin.ParetoThroughputPerGPUVsInteractivity} {
		c, ok := got[id]
		if !ok || !slices.Equal(c.Types, []string{"scatter", "line"}) || c.Points[0] != len(runs) {
			t.Errorf("chart %s: %+v, want a scatter of %d points and its frontier line", id, c, len(runs))
		}
		// The drawn points' y, by run, are the per-GPU throughputs.
		ys := eval[[]float64](t, ctx, `(function () {
  var d = echarts.getInstanceByDom(document.getElementById('chart-`+id+`')).getOption().series[0].data, y = [];
  d.forEach(function (p) { y[p.run] = (Array.isArray(p) ? p : p.value)[1]; });
  return y;
})()`)
		want := []float64{349.8432333272746 / 2, 678.2635436293917 / 2, 1375.8119532360536 / 2}
		if !slices.Equal(ys, want) {
			t.Errorf("chart %s: per-GPU throughputs %v, want %v", id, ys, want)
		}
		title := eval[string](t, ctx, `echarts.getInstanceByDom(document.getElementById('chart-`+id+`')).getOption().yAxis[0].name`)
		if title != "Output Token Throughput Per GPU (tokens/sec/gpu)" {
			t.Errorf("chart %s: y axis %q", id, title)
		}
	}
	if len(got) != 9 {
		t.Errorf("%d charts, want 9 (the 7 of every sweep and the 2 per-GPU)", len(got))
	}
	clickPoint(t, ctx, plotbuiltin.ParetoThroughputPerGPUVsLatency, 0, 2)
	wantRun := eval[int](t, ctx, `echarts.getInstanceByDom(document.getElementById('chart-`+plotbuiltin.ParetoThroughputPerGPUVsLatency+`')).getOption().series[0].data[2].run`)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('details.run')[%d].open`, wantRun),
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("clicking the point of run %d did not open its details: %v", wantRun, err)
	}
	l.check(t, fileURL)
}

// Markup in the model name, a request id and an error message stays text
// in the browser: nothing runs, nothing loads, and the text reads back.
func TestReportInBrowserHostileStrings(t *testing.T) {
	bctx := browser(t)
	ctx, l, fileURL := openReport(t, bctx, []*sdk.PlotRun{hostileRun(t)}, Options{})
	if n := eval[int](t, ctx, `document.querySelectorAll('img, iframe, object, embed').length`); n != 0 {
		t.Errorf("%d injected elements", n)
	}
	if n := eval[int](t, ctx, `document.scripts.length`); n != 3 {
		t.Errorf("%d scripts, want 3", n)
	}
	if chip := eval[string](t, ctx, `document.querySelector('.chip').textContent`); chip != "Model "+hostile {
		t.Errorf("model chip %q", chip)
	}
	do(t, ctx, "show errors", chromedp.Evaluate[chromedp.Void](`(function () { var s = document.getElementById('req-status'); s.value = 'error'; s.dispatchEvent(new Event('change')); })()`))
	if rows := eval[int](t, ctx, `document.querySelectorAll('#req-body tr').length`); rows != 1 {
		t.Fatalf("%d error rows, want 1", rows)
	}
	do(t, ctx, "select the error", chromedp.Click(chromedp.CSS("#req-body tr")))
	if msg := eval[string](t, ctx, `document.querySelector('#req-detail .errtext').textContent`); msg != "ServerError (500): "+hostile {
		t.Errorf("error text %q", msg)
	}
	// The hostile request id is searchable as text.
	do(t, ctx, "all statuses", chromedp.Evaluate[chromedp.Void](`(function () { var s = document.getElementById('req-status'); s.value = 'all'; s.dispatchEvent(new Event('change')); })()`))
	do(t, ctx, "search the id", chromedp.SendKeys(chromedp.CSS("#req-filter"), "alert(2)"))
	if m := eval[string](t, ctx, `document.getElementById('req-table').dataset.matching`); m != "2" {
		t.Errorf("search for the hostile text matches %s records, want 2 (the id and the error)", m)
	}
	l.check(t, fileURL)
}

// avgLineJS is how far (px) the horizontal line drawn in the run-average
// color is from a value's y; Infinity when there is none.
const avgLineJS = `(function () {
  var c = echarts.getInstanceByDom(document.getElementById('chart-%s')), want = c.convertToPixel({ yAxisIndex: 0 }, %v), best = Infinity;
  c.getZr().storage.getDisplayList(true).forEach(function (el) {
    var s = el.shape;
    if (el.style && el.style.stroke === '#555555' && s && s.y1 !== undefined && s.y1 === s.y2 && s.x2 - s.x1 > 100) best = Math.min(best, Math.abs(s.y1 - want));
  });
  return best;
})()`

// A run with timeslices, GPU telemetry and server metrics gets, besides
// the per-request charts, the PNGs' time-series charts with their series:
// the window averages with ±std bars and the run's average and std, a line
// per GPU, throughput beside GPU utilization on a second axis, and the
// server's KV cache and requests.
func TestReportInBrowserTelemetryRun(t *testing.T) {
	bctx := browser(t)
	run := telemetryRun(t)
	ctx, l, fileURL := openReport(t, bctx, []*sdk.PlotRun{run}, Options{Metrics: builtinSpecs(t)})
	got := charts(t, ctx)
	want := append(slices.Clone(plotbuiltin.Names), plotbuiltin.SeriesNames...)
	if len(got) != len(want) {
		t.Errorf("%d charts, want %d", len(got), len(want))
	}
	n := len(run.Requests) // 30, none failed
	gpus := []string{"GPU 0", "GPU 1"}
	for _, tc := range []struct {
		id     string
		types  []string
		names  []string
		points []int
	}{
		{plotbuiltin.TimeslicesTTFT, []string{"line", "line", "custom", "scatter"},
			[]string{"Run Std: 0.23 ms", "Run Average: 15.93 ms", "±1 Timeslice Std", "Timeslice Average"}, []int{2, 1, 5, 5}},
		{plotbuiltin.TimeslicesITL, []string{"line", "line", "custom", "scatter"},
			[]string{"Run Std: 0.02 ms", "Run Average: 1.99 ms", "±1 Timeslice Std", "Timeslice Average"}, []int{2, 1, 5, 5}},
		// A throughput has no run average (a single-stat metric) and its windows no std.
		{plotbuiltin.TimeslicesThroughput, []string{"scatter"}, []string{"Timeslice Average"}, []int{5}},
		{plotbuiltin.TimeslicesLatency, []string{"line", "line", "custom", "scatter"},
			[]string{"Run Std: 7.68 ms", "Run Average: 46.22 ms", "±1 Timeslice Std", "Timeslice Average"}, []int{2, 1, 5, 5}},
		{plotbuiltin.GPUUtilizationThroughput, []string{"line", "line"},
			[]string{"Output Token Throughput (tokens/s)", "NVIDIA GPU Utilization (%)"}, []int{4*n - 1, 14}},
		{plotbuiltin.GPUPowerOverTime, []string{"line", "line"}, gpus, []int{14, 14}},
		{plotbuiltin.GPUUtilizationOverTime, []string{"line", "line"}, gpus, []int{14, 14}},
		{plotbuiltin.GPUMemoryUsedOverTime, []string{"line", "line"}, gpus, []int{14, 14}},
		{plotbuiltin.GPUTemperatureOverTime, []string{"line", "line"}, gpus, []int{14, 14}},
		{plotbuiltin.ServerKVCacheUsageOverTime, []string{"line", "line", "scatter"},
			[]string{"Run Std: 0.00254 ratio", "Run Average: 0.0015 ratio", "Timeslice Average"}, []int{2, 1, 4}},
		{plotbuiltin.ServerRequestsOverTime, []string{"line", "line"},
			[]string{"vllm:num_requests_running", "vllm:num_requests_waiting"}, []int{4, 4}},
	} {
		c, ok := got[tc.id]
		if !ok || !slices.Equal(c.Types, tc.types) || !slices.Equal(c.Names, tc.names) || !slices.Equal(c.Points, tc.points) {
			t.Errorf("chart %s: series %v %q with %v points, want %v %q with %v", tc.id, c.Types, c.Names, c.Points, tc.types, tc.names, tc.points)
		}
	}
	opt := func(id, expr string) string {
		return `(function () { var o = echarts.getInstanceByDom(document.getElementById('chart-` + id + `')).getOption(); return ` + expr + `; })()`
	}
	// Windows are categories labelled as the PNG's ticks; the run average is a line at its value.
	if labels := eval[[]string](t, ctx, opt(plotbuiltin.TimeslicesTTFT, `o.xAxis[0].data`)); !slices.Equal(labels, []string{"0-1", "1-2", "2-3", "3-4", "4-5"}) {
		t.Errorf("timeslice labels %q", labels)
	}
	// The run's average is drawn where its value is (a mark line's value
	// is rounded to 2 decimals unless told otherwise: a KV-cache ratio of
	// 0.0015 would sit on 0).
	for id, avg := range map[string]float64{plotbuiltin.TimeslicesTTFT: run.Summary["time_to_first_token"].Stats["avg"],
		plotbuiltin.ServerKVCacheUsageOverTime: 0.0015024038461538462} {
		if dy := eval[float64](t, ctx, fmt.Sprintf(avgLineJS, id, avg)); dy > 0.5 {
			t.Errorf("chart %s: run average line %v px off its value %v", id, dy, avg)
		}
	}
	// Throughput and utilization share the run's origin: the axis starts
	// at the first GPU sample, 44.8 ms before the first request.
	if lo := eval[float64](t, ctx, opt(plotbuiltin.GPUUtilizationThroughput, `o.xAxis[0].min`)); lo != -0.04476762 {
		t.Errorf("throughput/GPU x axis starts at %v, want -0.04476762", lo)
	}
	if y2 := eval[string](t, ctx, opt(plotbuiltin.GPUUtilizationThroughput, `o.yAxis[1].name`)); y2 != "NVIDIA GPU Utilization (%)" {
		t.Errorf("right axis %q", y2)
	}
	if top := eval[float64](t, ctx, opt(plotbuiltin.GPUUtilizationOverTime, `echarts.getInstanceByDom(document.getElementById('chart-`+plotbuiltin.GPUUtilizationOverTime+`')).getModel().getComponent('yAxis', 0).axis.scale.getExtent()[1]`)); top != 100 {
		t.Errorf("utilization axis tops at %v, want 100", top)
	}
	if h := eval[string](t, ctx, `document.getElementById('over-time').textContent`); !strings.Contains(h, "GPU and server telemetry") {
		t.Errorf("heading %q", h)
	}
	// The theme switch redraws the time-series charts too.
	do(t, ctx, "switch theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
	if after := charts(t, ctx); len(after) != len(want) {
		t.Errorf("%d charts after the theme switch, want %d", len(after), len(want))
	}
	l.check(t, fileURL)

	// A window far above the run's average is an outlier: a red diamond of its own series.
	run = telemetryRun(t)
	run.Timeslices[2].Metrics["Time to First Token"].Stats["avg"] = 30
	ctx, l, fileURL = openReport(t, bctx, []*sdk.PlotRun{run}, Options{Metrics: builtinSpecs(t)})
	c := charts(t, ctx)[plotbuiltin.TimeslicesTTFT]
	if !slices.Equal(c.Names, []string{"Run Std: 0.23 ms", "Run Average: 15.93 ms", "±1 Timeslice Std", "Timeslice Average", "Outliers"}) ||
		!slices.Equal(c.Points, []int{2, 1, 5, 4, 1}) {
		t.Errorf("with an outlier: %q %v", c.Names, c.Points)
	}
	if x := eval[float64](t, ctx, opt(plotbuiltin.TimeslicesTTFT, `o.series[4].data[0].value[0]`)); x != 2 {
		t.Errorf("outlier in window %v, want 2", x)
	}
	l.check(t, fileURL)
}

// The edge cases of the series data (a window index drawn on a value axis,
// GPUs of two sources, several KV-cache series, telemetry without
// requests) draw every chart without a browser error.
func TestReportInBrowserSeriesEdgeCases(t *testing.T) {
	bctx := browser(t)
	for _, tc := range seriesEdgeCases() {
		t.Run(tc.name, func(t *testing.T) {
			ctx, l, fileURL := openReport(t, bctx, []*sdk.PlotRun{tc.run}, Options{})
			want := seriesCharts(tc.run)
			got := charts(t, ctx)
			if len(got) != len(want) || len(want) == 0 {
				t.Errorf("%d charts, want %d", len(got), len(want))
			}
			for _, c := range want {
				n := len(c.Lines)
				if c.Kind == kindTimeslice {
					n = len(c.Y)
				}
				drawn := 0
				for _, p := range got[c.ID].Points {
					drawn += p
				}
				if drawn < n {
					t.Errorf("chart %s: %v points drawn, want at least %d", c.ID, got[c.ID].Points, n)
				}
			}
			l.check(t, fileURL)
		})
	}
}
