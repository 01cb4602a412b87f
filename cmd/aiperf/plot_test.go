package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	plotbuiltin "github.com/aiperf-go/aiperf/plugins/builtin/plot"
)

func runPlotCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"plot"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// fixtureRun copies the checked-in run so the default output (<dir>/plots)
// lands in a temp dir.
func fixtureRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"profile_export_aiperf.json", "profile_export.jsonl"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "plot", "single_run", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPlotSingleRunWritesEveryBuiltinPlot(t *testing.T) {
	for _, tc := range []struct {
		format string
		theme  string
		check  func(t *testing.T, path string)
	}{
		{"png", "light", checkPNG},
		{"svg", "dark", checkSVG},
	} {
		t.Run(tc.format, func(t *testing.T) {
			dir := fixtureRun(t)
			args := []string{dir, "--theme", tc.theme}
			if tc.format != "png" { // png is the default
				args = append(args, "--format", tc.format)
			}
			code, out, errOut := runPlotCmd(t, args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, errOut)
			}
			plots := filepath.Join(dir, "plots")
			if !strings.Contains(out, "Saved 8 plots to: "+plots) {
				t.Errorf("stdout %q lacks the saved line", out)
			}
			entries, err := os.ReadDir(plots)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			var want []string
			for _, n := range plotbuiltin.Names {
				want = append(want, n+"."+tc.format)
			}
			want = append(want, "summary.txt")
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("files %v, want %v", got, want)
			}
			for _, n := range plotbuiltin.Names {
				tc.check(t, filepath.Join(plots, n+"."+tc.format))
			}
			summary, err := os.ReadFile(filepath.Join(plots, "summary.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(summary), "AIPerf Plot Export Summary\n") || !strings.Contains(string(summary), "Generated 8 plots:") {
				t.Errorf("summary.txt = %q", summary)
			}
		})
	}
}

// checkPNG: AIPerf's 1600x800 at scale 1.5.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != 2400 || b.Dy() != 1200 {
		t.Errorf("%s: %dx%d, want 2400x1200", path, b.Dx(), b.Dy())
	}
}

func checkSVG(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	var root string
	for {
		tok, err := d.Token()
		if err != nil {
			t.Fatalf("%s: no root element: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se.Name.Local
			break
		}
	}
	if root != "svg" {
		t.Errorf("%s: root <%s>, want <svg>", path, root)
	}
	// The rest must parse too.
	for {
		if _, err := d.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Errorf("%s: %v", path, err)
			}
			break
		}
	}
}

func TestPlotOutputFlag(t *testing.T) {
	dir := fixtureRun(t)
	out := filepath.Join(t.TempDir(), "elsewhere")
	if code, _, errOut := runPlotCmd(t, "--paths", dir, "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkPNG(t, filepath.Join(out, "ttft_over_time.png"))
	if _, err := os.Stat(filepath.Join(dir, "plots")); !os.IsNotExist(err) {
		t.Errorf("default plots dir written despite --output: %v", err)
	}
}

func TestPlotBadInput(t *testing.T) {
	empty := t.TempDir()
	run := fixtureRun(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"empty dir names the expected files", []string{empty},
			[]string{empty, "profile_export_aiperf.json", "profile_export.jsonl"}},
		{"missing dir", []string{filepath.Join(empty, "nope")},
			[]string{filepath.Join(empty, "nope"), "does not exist"}},
		{"unknown format", []string{run, "--format", "jpg"}, []string{`--format "jpg"`, "png or svg"}},
		{"unknown theme", []string{run, "--theme", "blue"}, []string{`--theme "blue"`}},
		{"several runs, one without artifacts", []string{run, empty},
			[]string{empty, "profile_export_aiperf.json", "profile_export.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runPlotCmd(t, tc.args...)
			if code == 0 {
				t.Fatal("exit 0, want failure")
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(run, "plots")); !os.IsNotExist(err) {
		t.Errorf("refused flags still wrote plots: %v", err)
	}
}

// fixtureSweep copies the checked-in 3-run sweep (concurrency 1, 4, 8) into
// a temp parent directory, so runs can be edited and plots land there.
func fixtureSweep(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	for _, c := range []string{"concurrency_1", "concurrency_4", "concurrency_8"} {
		if err := os.Mkdir(filepath.Join(parent, c), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"profile_export_aiperf.json", "profile_export.jsonl"} {
			b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "plot", "sweep", c, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(parent, c, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return parent
}

// Several runs, given as a parent directory or as paths, get exactly the
// comparison plots; the single-run plots are not drawn.
func TestPlotSweepWritesComparisonPlots(t *testing.T) {
	parent := fixtureSweep(t)
	runs := []string{filepath.Join(parent, "concurrency_1"), filepath.Join(parent, "concurrency_4"), filepath.Join(parent, "concurrency_8")}
	for _, tc := range []struct {
		name  string
		args  []string
		plots string
	}{
		{"parent directory", []string{parent}, filepath.Join(parent, "plots")},
		{"paths", append(slices.Clone(runs), "--output", filepath.Join(parent, "out")), filepath.Join(parent, "out")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runPlotCmd(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, errOut)
			}
			if !strings.Contains(out, "Saved 6 plots to: "+tc.plots) {
				t.Errorf("stdout %q lacks the saved line", out)
			}
			entries, err := os.ReadDir(tc.plots)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			want := []string{"summary.txt"}
			for _, n := range plotbuiltin.ComparisonNames {
				want = append(want, n+".png")
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("files %v, want %v", got, want)
			}
			for _, n := range plotbuiltin.ComparisonNames {
				checkPNG(t, filepath.Join(tc.plots, n+".png"))
			}
		})
	}
	// The plots directory the first call wrote under the parent holds no run:
	// a second call still finds the same three runs.
	if code, out, errOut := runPlotCmd(t, parent, "--format", "svg"); code != 0 || !strings.Contains(out, "Saved 6 plots") {
		t.Fatalf("rerun: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	checkSVG(t, filepath.Join(parent, "plots", plotbuiltin.ParetoThroughputVsInteractivity+".svg"))
}

// Runs whose metrics mean different things are refused, naming each run
// with its value; different models are compared (a series each).
func TestPlotSweepRefusesIncompatibleRuns(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"endpoint type", `"type": "chat"`, `"type": "completions"`,
			[]string{"different endpoint types", `"chat": `, `"completions": `}},
		{"streaming", `"streaming": true`, `"streaming": false`,
			[]string{"different streaming settings", `"streaming=true": `, `"streaming=false": `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := fixtureSweep(t)
			odd := filepath.Join(parent, "concurrency_8")
			path := filepath.Join(odd, "profile_export_aiperf.json")
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte(tc.from)) {
				t.Fatalf("fixture lacks %s", tc.from)
			}
			if err := os.WriteFile(path, bytes.Replace(b, []byte(tc.from), []byte(tc.to), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := runPlotCmd(t, parent)
			if code == 0 {
				t.Fatal("exit 0, want refusal")
			}
			want := append(tc.want, filepath.Join(parent, "concurrency_1"), filepath.Join(parent, "concurrency_4"), odd)
			for _, w := range want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if _, err := os.Stat(filepath.Join(parent, "plots")); !os.IsNotExist(err) {
				t.Errorf("refused runs still wrote plots: %v", err)
			}
		})
	}
}

// --dashboard writes report.html (and no images, as AIPerf's dashboard mode)
// into the output directory and serves that directory over loopback until
// the command's context ends; --port 0 prints the port it got.
func TestPlotDashboardServesTheReport(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		dir        func(t *testing.T) string
	}{
		{"single run", `"mode":"single"`, fixtureRun},
		{"sweep", `"mode":"multi"`, fixtureSweep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var stdout, stderr syncBuffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, []string{"plot", dir, "--dashboard", "--port", "0"}, &stdout, &stderr) }()

			url := waitForDashboard(t, &stdout, &stderr, done)
			if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasPrefix(url, "http://127.0.0.1:0/") || !strings.HasSuffix(url, "/report.html") {
				t.Fatalf("dashboard URL %q", url)
			}
			resp, err := http.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
			}
			plots := filepath.Join(dir, "plots")
			onDisk, err := os.ReadFile(filepath.Join(plots, "report.html"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, onDisk) {
				t.Errorf("served %d bytes, report.html has %d", len(body), len(onDisk))
			}
			for _, w := range []string{`<script type="application/json" id="aiperf-data">`, tc.mode, "NVIDIA AIPerf | LLM Metrics"} {
				if !bytes.Contains(body, []byte(w)) {
					t.Errorf("report lacks %s", w)
				}
			}
			if !strings.Contains(stdout.String(), "Report: "+filepath.Join(plots, "report.html")) {
				t.Errorf("stdout %q does not name the report", stdout.String())
			}
			entries, err := os.ReadDir(plots)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Name() != "report.html" {
				t.Errorf("plots dir holds %v, want only report.html", entries)
			}

			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("exit %d after cancel, stderr: %s", code, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the dashboard did not stop when its context ended")
			}
			if _, err := http.Get(url); err == nil {
				t.Error("the dashboard still answers after it stopped")
			}
		})
	}
}

// waitForDashboard returns the URL the command prints, failing if it exits first.
func waitForDashboard(t *testing.T, stdout, stderr *syncBuffer, done chan int) string {
	t.Helper()
	const prefix = "Dashboard: "
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(stdout.String(), "\n") {
			if u, ok := strings.CutPrefix(line, prefix); ok {
				return strings.TrimSpace(u)
			}
		}
		select {
		case code := <-done:
			t.Fatalf("plot --dashboard exited %d before serving; stdout %q, stderr %q", code, stdout.String(), stderr.String())
		default:
		}
	}
	t.Fatalf("no %q line; stdout %q", prefix, stdout.String())
	return ""
}

// --no-dashboard (the last of the two wins, as AIPerf's flag pair) draws the
// images; bad dashboard flags are refused before anything is written.
func TestPlotDashboardFlags(t *testing.T) {
	dir := fixtureRun(t)
	code, out, errOut := runPlotCmd(t, dir, "--dashboard", "--no-dashboard")
	if code != 0 || !strings.Contains(out, "Saved 8 plots") {
		t.Fatalf("--dashboard --no-dashboard: exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "report.html")); !os.IsNotExist(err) {
		t.Errorf("static mode wrote report.html: %v", err)
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dashboard", "--port", "70000"}, "--port 70000: want 0 to 65535"},
		{[]string{"--dashboard", "--port", "-1"}, "--port -1"},
		{[]string{"--dashboard", "--host", ""}, "--host is empty"},
		{[]string{"--dashboard", "--port", port}, "dashboard: --host 127.0.0.1 --port " + port + ": listen tcp"},
	} {
		empty := fixtureRun(t)
		code, _, errOut := runPlotCmd(t, append([]string{empty}, tc.args...)...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// generatePlots is what `aiperf profile --generate-plots` runs on the
// artifact directory: the images, summary.txt and, when asked, report.html.
func TestGeneratePlotsForOneRun(t *testing.T) {
	for _, html := range []bool{true, false} {
		t.Run(fmt.Sprintf("html=%v", html), func(t *testing.T) {
			dir := fixtureRun(t)
			var out bytes.Buffer
			if err := generatePlots(context.Background(), &out, dir, "", "png", "dark", html); err != nil {
				t.Fatal(err)
			}
			plots := filepath.Join(dir, "plots")
			want := []string{"summary.txt"}
			for _, n := range plotbuiltin.Names {
				want = append(want, n+".png")
			}
			if html {
				want = append(want, "report.html")
			}
			slices.Sort(want)
			entries, err := os.ReadDir(plots)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if !slices.Equal(got, want) {
				t.Fatalf("files %v, want %v", got, want)
			}
			checkPNG(t, filepath.Join(plots, plotbuiltin.TTFTOverTime+".png"))
			if !strings.Contains(out.String(), "Saved 8 plots to: "+plots) {
				t.Errorf("output %q", out.String())
			}
			if html {
				b, err := os.ReadFile(filepath.Join(plots, "report.html"))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Contains(b, []byte(`<body class="theme-dark">`)) || !bytes.Contains(b, []byte(`id="req-table"`)) {
					t.Error("report.html is not the dark single-run report")
				}
			}
		})
	}
	// A directory without artifacts names the files it expected.
	empty := t.TempDir()
	err := generatePlots(context.Background(), io.Discard, empty, "", "png", "light", true)
	if err == nil || !strings.Contains(err.Error(), "profile_export_aiperf.json") {
		t.Errorf("empty dir: %v", err)
	}
}

// `aiperf profile --generate-plots` (GenAI-Perf) ends with the run's plots
// and its HTML report in <artifact dir>/plots, drawn from the files the run
// just wrote.
func TestProfileGeneratePlotsWritesPlotsAndReport(t *testing.T) {
	url := startMock(t, mockserver.Config{Fast: true})
	r := profile(t, "-m", "m", "-u", url, "--endpoint-type", "chat", "--streaming", "--request-count", "12",
		"--concurrency", "2", "--isl", "8", "--osl", "4", "--generate-plots")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	plots := filepath.Join(r.dir, "plots")
	for _, name := range []string{"ttft_over_time.png", "request_latency_distribution.png", "summary.txt", "report.html"} {
		st, err := os.Stat(filepath.Join(plots, name))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (size %d)", name, err, sizeOf(st))
		}
	}
	report, err := os.ReadFile(filepath.Join(plots, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(report, []byte(`"m"`)) || !strings.Contains(r.stdout, "Report: "+filepath.Join(plots, "report.html")) {
		t.Errorf("report does not name the model, or stdout does not name the report:\n%s", r.stdout)
	}
}

func sizeOf(st os.FileInfo) int64 {
	if st == nil {
		return -1
	}
	return st.Size()
}
