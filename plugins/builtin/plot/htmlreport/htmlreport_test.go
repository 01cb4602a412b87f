package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/artifacts"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/plotdata"
)

// The embedded bundle is the vendored file assets/README.md names, and
// nothing in it can end its <script> element early.
func TestEChartsAssetIsThePinnedRelease(t *testing.T) {
	sum := sha256.Sum256([]byte(echartsJS))
	if got := hex.EncodeToString(sum[:]); got != echartsSHA256 {
		t.Fatalf("assets/echarts.min.js sha256 %s, want %s", got, echartsSHA256)
	}
	if !strings.Contains(echartsJS, `.version="`+EChartsVersion+`"`) {
		t.Errorf("bundle does not declare version %s", EChartsVersion)
	}
	readme, err := os.ReadFile(filepath.Join("assets", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{EChartsVersion, echartsSHA256, "npm pack echarts@" + EChartsVersion} {
		if !bytes.Contains(readme, []byte(w)) {
			t.Errorf("assets/README.md lacks %q", w)
		}
	}
	for name, src := range map[string]string{"echarts.min.js": echartsJS, "report.js": reportJS} {
		low := strings.ToLower(src)
		for _, bad := range []string{"</script", "<!--"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
}

// Nothing in the page points outside it: exactly the data block and two
// inline scripts, no src or href to the network, and a CSP that lets only
// those two scripts run.
func TestReportIsSelfContained(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []*sdk.PlotRun
	}{
		{"single run", []*sdk.PlotRun{singleRun(t)}},
		{"telemetry run", []*sdk.PlotRun{telemetryRun(t)}},
		{"sweep", sweepRuns(t)},
		{"sweep with GPU telemetry", sweepGPURuns(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, tc.runs, Options{Metrics: builtinSpecs(t)})
			var scripts []element
			var csp string
			for _, e := range parseElements(t, page) {
				for _, k := range []string{"src", "href", "srcset", "action", "poster", "data"} {
					v, ok := e.attrs[k]
					if !ok {
						continue
					}
					if e.tag == "link" && e.attrs["rel"] == "icon" && v == "data:," {
						continue
					}
					t.Errorf("<%s %s=%q>: the report must not load anything", e.tag, k, v)
				}
				switch e.tag {
				case "script":
					scripts = append(scripts, e)
				case "link", "iframe", "img", "object", "embed", "base":
					if e.tag != "link" || e.attrs["rel"] != "icon" {
						t.Errorf("unexpected <%s>", e.tag)
					}
				case "meta":
					if e.attrs["http-equiv"] == "Content-Security-Policy" {
						csp = e.attrs["content"]
					}
				}
			}
			if len(scripts) != 3 || scripts[0].attrs["type"] != "application/json" || scripts[0].attrs["id"] != DataElementID {
				t.Fatalf("scripts %d (first %v), want the data block then two inline scripts", len(scripts), scripts[0].attrs)
			}
			if !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("CSP %q does not forbid loading", csp)
			}
			for _, s := range scripts[1:] {
				sum := sha256.Sum256([]byte(s.text))
				if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, h) {
					t.Errorf("CSP %q lacks the hash %s of an inline script (%d bytes)", csp, h, len(s.text))
				}
			}
			if regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)\s*=\s*["']?(https?:)?//`).Match(page) {
				t.Error("page has a network src/href")
			}
		})
	}
}

// The data block gives back the run: every record's times and metrics
// (to SignificantDigits), the summary statistics exactly, and the charts
// the PNGs draw for the fixture.
func TestSingleRunDataRoundTrips(t *testing.T) {
	run := singleRun(t)
	d := embeddedData(t, render(t, []*sdk.PlotRun{run}, Options{Metrics: builtinSpecs(t), Theme: "dark"}))
	if d.Version != dataVersion || d.Mode != "single" || d.Theme != "dark" || len(d.Runs) != 1 {
		t.Fatalf("version %d mode %q theme %q runs %d", d.Version, d.Mode, d.Theme, len(d.Runs))
	}
	r := d.Runs[0]
	if r.Name != "single_run" || r.Model != "mock-model" || r.Concurrency != 4 {
		t.Errorf("run %q model %q concurrency %v", r.Name, r.Model, r.Concurrency)
	}
	ttft := r.Stats["time_to_first_token"]
	if ttft.Unit != "ms" || ttft.Stats["avg"] != 15.8337287 || ttft.Stats["p99"] != 16.70346347 {
		t.Errorf("time_to_first_token stats %+v", ttft)
	}
	rec := r.Records
	if rec == nil || rec.Count != 30 || len(rec.Start) != 30 || len(rec.IDs) != 30 || len(rec.Errors) != 0 {
		t.Fatalf("records %+v", rec)
	}
	if rec.IDs[0] != "09ed9a1c-1779-47db-8655-3b45aedb5c5f" {
		t.Errorf("first id %q", rec.IDs[0])
	}
	t0 := int64(math.MaxInt64)
	for _, q := range run.Requests {
		t0 = min(t0, q.StartNs)
	}
	near := func(got *float64, want, tol float64) bool {
		return got != nil && math.Abs(*got-want) <= tol*math.Max(1, math.Abs(want))
	}
	byTag := map[string]int{}
	for j, m := range rec.Metrics {
		byTag[m.Tag] = j
	}
	for i, q := range run.Requests {
		if !near(rec.Start[i], float64(q.StartNs-t0)/1e6, 1e-3) || !near(rec.End[i], float64(q.EndNs-t0)/1e6, 1e-3) {
			t.Errorf("record %d: start %v end %v", i, *rec.Start[i], *rec.End[i])
		}
		for tag, want := range q.Metrics {
			j, ok := byTag[tag]
			if !ok {
				t.Fatalf("metric %s missing from the data", tag)
			}
			if got := rec.Metrics[j].Values[i]; !near(got, want, 5e-7) {
				t.Errorf("record %d %s = %v, want %v", i, tag, got, want)
			}
		}
	}
	if len(rec.Metrics) != len(run.Requests[0].Metrics) {
		t.Errorf("%d metric columns, want %d", len(rec.Metrics), len(run.Requests[0].Metrics))
	}
	// Console order: TTFT (display order 100) before request latency (300), both headed and in ms.
	tt, lat := rec.Metrics[byTag["time_to_first_token"]], rec.Metrics[byTag["request_latency"]]
	if byTag["time_to_first_token"] > byTag["request_latency"] || tt.Header != "Time to First Token" || tt.Unit != "ms" || lat.Unit != "ms" {
		t.Errorf("columns: ttft %d %+v, latency %d", byTag["time_to_first_token"], tt.Header, byTag["request_latency"])
	}
	var ids []string
	for _, c := range d.Charts {
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, plotbuiltin.Names) {
		t.Errorf("charts %v, want the PNG plots %v", ids, plotbuiltin.Names)
	}
}

// The summary tables are the console's: same titles, labels and numbers
// (fixture values: TTFT avg 15.8337287 ms prints 15.83).
func TestSummaryTableMatchesTheConsole(t *testing.T) {
	page := string(render(t, []*sdk.PlotRun{singleRun(t)}, Options{Metrics: builtinSpecs(t)}))
	for _, want := range []string{
		"<caption>NVIDIA AIPerf | LLM Metrics</caption>",
		"<thead><tr><th>Metric</th><th>avg</th><th>min</th><th>max</th><th>p99</th><th>p90</th><th>p50</th><th>std</th></tr></thead>",
		`<th scope="row">Time to First Token (ms)</th><td>15.83</td><td>15.18</td><td>16.79</td><td>16.70</td><td>16.26</td><td>15.77</td><td>0.37</td>`,
		`<th scope="row">Request Count (requests)</th><td>30.00</td><td>N/A</td>`,
		"<caption>NVIDIA AIPerf | LLM Metrics: Effective</caption>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// HTTP trace metrics are NO_CONSOLE: in the data, not in the tables.
	if strings.Contains(page, ">HTTP Request Blocked") {
		t.Error("a NO_CONSOLE metric is in the summary table")
	}
	// Without specs every metric shows under its tag.
	bare := string(render(t, []*sdk.PlotRun{singleRun(t)}, Options{}))
	if !strings.Contains(bare, `<th scope="row">time_to_first_token (ms)</th><td>15.83</td>`) {
		t.Error("without specs the TTFT row is not labelled by its tag")
	}
}

// The raw input_config is shown pretty-printed and unchanged.
func TestConfigIsTheRunsInputConfig(t *testing.T) {
	run := singleRun(t)
	page := render(t, []*sdk.PlotRun{run}, Options{})
	b, err := os.ReadFile(filepath.Join(run.Dir, artifacts.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		InputConfig json.RawMessage `json:"input_config"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<summary>Input configuration \(input_config\)</summary>\s*<pre><code>(.*?)</code></pre>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no config block")
	}
	text := strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&lt;", "<", "&gt;", ">", "&amp;", "&", "&#39;", "'", "&#43;", "+").Replace(string(m[1]))
	var got, want any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("config block is not JSON: %v\n%s", err, text)
	}
	if err := json.Unmarshal(doc.InputConfig, &want); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("config %s, want %s", gb, wb)
	}
	if !strings.Contains(text, "\n  \"models\": {") {
		t.Error("config is not indented")
	}
}

// Markup in a model name, request id or error message stays text: it is
// escaped in the HTML, cannot end a script, and decodes back unchanged.
func TestHostileStringsAreEscaped(t *testing.T) {
	run := hostileRun(t)
	page := render(t, []*sdk.PlotRun{run}, Options{})
	if n := bytes.Count(bytes.ToLower(page), []byte("<script")); n != 3 {
		t.Errorf("%d <script tags, want 3", n)
	}
	for _, bad := range []string{"<script>alert(1)", "<img src=https://example.invalid"} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("page contains raw %q", bad)
		}
	}
	if !bytes.Contains(page, []byte("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;")) {
		t.Error("model name not shown escaped")
	}
	d := embeddedData(t, page)
	rec := d.Runs[0].Records
	if d.Runs[0].Model != hostile || rec.IDs[1] != hostile || len(rec.Errors) != 1 || rec.Errors[0].Index != 0 ||
		rec.Errors[0].Message != "ServerError (500): "+hostile {
		t.Errorf("decoded model %q, id %q, errors %+v", d.Runs[0].Model, rec.IDs[1], rec.Errors)
	}
}

// A sweep gets the comparison charts (a Pareto frontier per model), a row
// per run and each run's configuration, and no per-request data.
func TestSweepReport(t *testing.T) {
	runs := sweepRuns(t)
	page := render(t, runs, Options{Metrics: builtinSpecs(t)})
	d := embeddedData(t, page)
	if d.Mode != "multi" || len(d.Runs) != 3 {
		t.Fatalf("mode %q, %d runs", d.Mode, len(d.Runs))
	}
	for i, r := range d.Runs {
		if r.Records != nil {
			t.Errorf("run %d carries records", i)
		}
	}
	var ids []string
	for _, c := range d.Charts {
		ids = append(ids, c.ID)
	}
	want := []string{plotbuiltin.ParetoThroughputVsInteractivity, plotbuiltin.ParetoThroughputVsLatency, plotbuiltin.TTFTVsThroughput,
		plotbuiltin.TTFTVsLoad, "inter_token_latency_vs_load", plotbuiltin.LatencyVsLoad, plotbuiltin.ThroughputVsLoad}
	if !slices.Equal(ids, want) {
		t.Fatalf("charts %v, want %v", ids, want)
	}
	pareto := d.Charts[0]
	if len(pareto.Series) != 1 || pareto.Series[0].Name != "mock-model" || pareto.Series[0].Line != "frontier" || len(pareto.Series[0].Points) != 3 {
		t.Fatalf("pareto series %+v", pareto.Series)
	}
	// Each point is its run's summary; the frontier is the PNG's.
	var xs, ys []float64
	for _, p := range pareto.Series[0].Points {
		r := runs[p.Run]
		if p.X != r.Summary["output_token_throughput_per_user"].Stats["avg"] || p.Y != r.Summary["output_token_throughput"].Stats["avg"] {
			t.Errorf("point %+v is not run %d's summary", p, p.Run)
		}
		if want := runLabel(r, p.Run); p.Label != want {
			t.Errorf("label %q, want %q", p.Label, want)
		}
		xs, ys = append(xs, p.X), append(ys, p.Y)
	}
	for i, on := range plotdata.ParetoFrontier(xs, ys, true, true) {
		if pareto.Series[0].Points[i].Frontier != on {
			t.Errorf("point %d frontier %v, want %v", i, pareto.Series[0].Points[i].Frontier, on)
		}
	}
	ttftLoad := d.Charts[3]
	if len(ttftLoad.Series) != 3 || ttftLoad.Series[2].Name != "p99" {
		t.Fatalf("ttft_vs_load series %+v", ttftLoad.Series)
	}
	for i, p := range ttftLoad.Series[2].Points {
		if want := []float64{1, 4, 8}[i]; p.X != want || p.Y != runs[i].Summary["time_to_first_token"].Stats["p99"] {
			t.Errorf("p99 point %d = %+v, want x %v", i, p, want)
		}
	}
	s := string(page)
	if n := strings.Count(s, `<details class="run">`); n != 3 {
		t.Errorf("%d run details, want 3", n)
	}
	if n := strings.Count(s, "<summary>Input configuration (input_config)</summary>"); n != 3 {
		t.Errorf("%d config blocks, want 3", n)
	}
	for _, c := range []string{"concurrency_1", "concurrency_4", "concurrency_8"} {
		if !strings.Contains(s, `<tr><th scope="row">`+c+`</th><td>mock-model</td>`) {
			t.Errorf("run table lacks %s", c)
		}
	}
	if strings.Contains(s, `id="req-table"`) {
		t.Error("a sweep has a per-request table")
	}
}

// A sweep whose runs all have GPU telemetry also gets AIPerf's per-GPU
// Pareto charts (after the total-throughput ones): each point's y is the
// run's output token throughput over its 2 GPUs, exactly, and the run table
// gains a per-GPU column. A sweep without telemetry has neither.
func TestSweepReportPerGPU(t *testing.T) {
	runs := sweepGPURuns(t)
	page := render(t, runs, Options{Metrics: builtinSpecs(t)})
	d := embeddedData(t, page)
	var ids []string
	for _, c := range d.Charts {
		ids = append(ids, c.ID)
	}
	want := []string{plotbuiltin.ParetoThroughputVsInteractivity, plotbuiltin.ParetoThroughputVsLatency,
		plotbuiltin.ParetoThroughputPerGPUVsLatency, plotbuiltin.ParetoThroughputPerGPUVsInteractivity, plotbuiltin.TTFTVsThroughput,
		plotbuiltin.TTFTVsLoad, "inter_token_latency_vs_load", plotbuiltin.LatencyVsLoad, plotbuiltin.ThroughputVsLoad}
	if !slices.Equal(ids, want) {
		t.Fatalf("charts %v, want %v", ids, want)
	}
	totals := []float64{349.8432333272746, 678.2635436293917, 1375.8119532360536}
	for _, tc := range []struct {
		chart         int
		title, xLabel string
		xMetric       string
		frontier      []bool // by run
	}{
		{2, "Pareto Curve: Token Throughput per GPU vs Latency", "Request Latency (ms)", "request_latency", []bool{true, true, true}},
		// c=2 beats c=1 on both per-user and per-GPU throughput (AIPerf's own plot of the fixture agrees).
		{3, "Pareto Curve: Token Throughput per GPU vs Interactivity", "Output Token Throughput Per User (tokens/sec/user)",
			"output_token_throughput_per_user", []bool{false, true, true}},
	} {
		c := d.Charts[tc.chart]
		t.Run(c.ID, func(t *testing.T) {
			if c.Title != tc.title || c.XLabel != tc.xLabel || c.YLabel != "Output Token Throughput Per GPU (tokens/sec/gpu)" {
				t.Errorf("title %q, x %q, y %q", c.Title, c.XLabel, c.YLabel)
			}
			if len(c.Series) != 1 || c.Series[0].Name != "mock-model" || c.Series[0].Line != "frontier" || len(c.Series[0].Points) != 3 {
				t.Fatalf("series %+v", c.Series)
			}
			seen := map[int]bool{}
			for _, p := range c.Series[0].Points {
				if p.Y != totals[p.Run]/2 || p.X != runs[p.Run].Summary[tc.xMetric].Stats["avg"] {
					t.Errorf("point %+v: want (%v, %v)", p, runs[p.Run].Summary[tc.xMetric].Stats["avg"], totals[p.Run]/2)
				}
				if want := []string{"c=1", "c=2", "c=4"}[p.Run]; p.Label != want {
					t.Errorf("run %d label %q, want %q", p.Run, p.Label, want)
				}
				if p.Frontier != tc.frontier[p.Run] {
					t.Errorf("run %d frontier %v, want %v", p.Run, p.Frontier, tc.frontier[p.Run])
				}
				seen[p.Run] = true
			}
			if len(seen) != 3 {
				t.Errorf("points of runs %v, want 0, 1, 2", seen)
			}
		})
	}
	const column = "<th>Output token throughput per GPU (tokens/sec/gpu)</th>"
	s := string(page)
	if !strings.Contains(s, column) {
		t.Error("run table lacks the per-GPU column")
	}
	if !strings.Contains(s, "<td>"+formatNumber(totals[2]/2)+"</td>") {
		t.Errorf("run table lacks c=4's per-GPU throughput %s", formatNumber(totals[2]/2))
	}
	plain := string(render(t, sweepRuns(t), Options{Metrics: builtinSpecs(t)}))
	if strings.Contains(plain, column) || strings.Contains(plain, "per GPU vs") {
		t.Error("a sweep without GPU telemetry shows per-GPU throughput")
	}
}

func TestWriteRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		runs []*sdk.PlotRun
		opts Options
		want string
	}{
		{"no runs", nil, Options{}, "no runs"},
		{"nil run", []*sdk.PlotRun{nil}, Options{}, "run 0 is nil"},
		{"theme", []*sdk.PlotRun{{}}, Options{Theme: "blue"}, `theme "blue"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(&bytes.Buffer{}, tc.runs, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// A record file that does not parse names the file and line.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, artifacts.RecordsFile), []byte("{}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := &sdk.PlotRun{Dir: dir, Requests: []sdk.PlotRequest{{}, {}}}
	err := Write(&bytes.Buffer{}, []*sdk.PlotRun{run}, Options{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, artifacts.RecordsFile)+":2") {
		t.Errorf("error %v, want the file and line 2", err)
	}
}

// Records are embedded as numbers, not objects: 10k requests with ten
// metrics each cost well under 200 bytes apiece.
func TestRecordsAreCompact(t *testing.T) {
	size := func(n int) int {
		run := &sdk.PlotRun{Summary: map[string]sdk.PlotStat{}}
		for i := range n {
			m := map[string]float64{}
			for k := range 10 {
				m["metric_"+string(rune('a'+k))] = float64(i%97)*1.2345678 + float64(k)
			}
			run.Requests = append(run.Requests, sdk.PlotRequest{StartNs: 1e18 + int64(i)*1e6, EndNs: 1e18 + int64(i)*1e6 + 5e7, Metrics: m})
		}
		return len(render(t, []*sdk.PlotRun{run}, Options{}))
	}
	small, large := size(10), size(10010)
	if per := float64(large-small) / 10000; per > 200 {
		t.Errorf("%.0f bytes per record, want under 200", per)
	}
}

func TestCompactNumbers(t *testing.T) {
	b, err := json.Marshal(struct {
		N nums
		T msTimes
	}{nums{16, 15.562613, 346.5009393099057, 0.010195, math.NaN(), -2, 1e-7}, msTimes{0, 45.1234567, math.NaN()}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"N":[16,15.56261,346.5009,0.010195,null,-2,1e-07],"T":[0,45.123,null]}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// What PlotRun lacks comes from the record file, line by line: the request
// id, the error of a failed record only (the second line has none), and the unit of a metric neither
// the summary nor a spec knows.
func TestRecordMetaFromTheJSONL(t *testing.T) {
	dir := t.TempDir()
	lines := `{"metadata":{"x_request_id":"a","request_start_ns":1000000,"request_end_ns":3000000},"metrics":{"widgets_made":{"value":3,"unit":"widgets"}},"error":{"code":429,"type":"RateLimited","message":"slow down"}}

{"metadata":{"x_request_id":"b","request_start_ns":2000000,"request_end_ns":5000000},"metrics":{"widgets_made":{"value":4.5,"unit":"widgets"},"gadgets_made":{"value":1,"unit":"gadgets"}}}
`
	if err := os.WriteFile(filepath.Join(dir, artifacts.RecordsFile), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, artifacts.SummaryFile), []byte(`{"input_config": {"models": {"items": [{"name": "m"}]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := artifacts.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := embeddedData(t, render(t, []*sdk.PlotRun{run}, Options{})).Runs[0].Records
	if !slices.Equal(rec.IDs, []string{"a", "b"}) {
		t.Errorf("ids %v", rec.IDs)
	}
	if len(rec.Errors) != 1 || rec.Errors[0].Index != 0 || rec.Errors[0].Message != "RateLimited (429): slow down" {
		t.Errorf("errors %+v", rec.Errors)
	}
	// Sorted by tag (no display order): gadgets_made only on the second line.
	if len(rec.Metrics) != 2 || rec.Metrics[0].Unit != "gadgets" || rec.Metrics[0].Values[0] != nil ||
		rec.Metrics[1].Tag != "widgets_made" || rec.Metrics[1].Unit != "widgets" || *rec.Metrics[1].Values[1] != 4.5 {
		t.Errorf("metrics %+v", rec.Metrics)
	}
	if *rec.Start[0] != 0 || *rec.Start[1] != 1 || *rec.End[1] != 4 {
		t.Errorf("times start %v end %v (ms from the first start)", rec.Start, rec.End)
	}
}
