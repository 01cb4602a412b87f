package htmlreport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
	"golang.org/x/net/html"
)

var testdata = filepath.Join("..", "..", "..", "..", "testdata", "plot")

// builtinSpecs are the headers, orders and flags the console lays the
// summary out by: the built-in record metrics and the core's run-level ones.
func builtinSpecs(t *testing.T) []sdk.MetricSpec {
	t.Helper()
	cat, err := metrics.NewCatalog([]metrics.Declared{{Plugin: "metric_record", Specs: metricrecord.New().Metrics()}}, sdk.RunInfo{})
	if err != nil {
		t.Fatal(err)
	}
	return cat.Specs()
}

// loadRun reads a checked-in run as `aiperf plot` does (config from
// input_config: every fixture is mock-model, chat, streaming).
func loadRun(t *testing.T, dir string, concurrency float64) *sdk.PlotRun {
	t.Helper()
	r, err := artifacts.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Config = sdk.PlotRunConfig{Model: "mock-model", EndpointType: "chat", Streaming: true, Concurrency: concurrency}
	return r
}

func singleRun(t *testing.T) *sdk.PlotRun {
	return loadRun(t, filepath.Join(testdata, "single_run"), 4)
}

// telemetryRun is a run with timeslices, GPU telemetry and server metrics
// (its README): 30 requests at 6 requests/s.
func telemetryRun(t *testing.T) *sdk.PlotRun {
	r := loadRun(t, filepath.Join(testdata, "telemetry_run"), 0)
	r.Config.RequestRate = 6
	return r
}

func sweepRuns(t *testing.T) []*sdk.PlotRun {
	var runs []*sdk.PlotRun
	for _, c := range []struct {
		dir string
		n   float64
	}{{"concurrency_1", 1}, {"concurrency_4", 4}, {"concurrency_8", 8}} {
		runs = append(runs, loadRun(t, filepath.Join(testdata, "sweep", c.dir), c.n))
	}
	return runs
}

// sweepGPURuns is testdata/plot/sweep_gpu: three runs at concurrency 1, 2
// and 4, each with two GPUs of telemetry (its README).
func sweepGPURuns(t *testing.T) []*sdk.PlotRun {
	var runs []*sdk.PlotRun
	for _, c := range []struct {
		dir string
		n   float64
	}{{"concurrency_1", 1}, {"concurrency_2", 2}, {"concurrency_4", 4}} {
		runs = append(runs, loadRun(t, filepath.Join(testdata, "sweep_gpu", c.dir), c.n))
	}
	return runs
}

// hostileRun copies the single run into a temp dir with markup in every
// string a report shows: the model name (config and input_config), a
// request id and an error message.
const hostile = `</script><script>alert(1)</script><img src=https://example.invalid/x onerror=alert(2)>`

func hostileRun(t *testing.T) *sdk.PlotRun {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(testdata, "single_run")
	quoted, err := json.Marshal(hostile)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile(filepath.Join(src, artifacts.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	summary = bytes.Replace(summary, []byte(`"name": "mock-model"`), append([]byte(`"name": `), quoted...), 1)
	records, err := os.ReadFile(filepath.Join(src, artifacts.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(records), "\n"), "\n")
	// The first record fails with a hostile message; the second has a hostile id.
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	first["error"] = map[string]any{"code": 500, "type": "ServerError", "message": hostile}
	b, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	lines[0] = string(b)
	var second map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
		t.Fatal(err)
	}
	second["metadata"].(map[string]any)["x_request_id"] = hostile
	if b, err = json.Marshal(second); err != nil {
		t.Fatal(err)
	}
	lines[1] = string(b)
	for name, content := range map[string][]byte{artifacts.SummaryFile: summary, artifacts.RecordsFile: []byte(strings.Join(lines, "\n") + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := loadRun(t, dir, 4)
	r.Config.Model = hostile
	return r
}

func render(t *testing.T, runs []*sdk.PlotRun, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, runs, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// element is one parsed start tag with its text content (scripts only).
type element struct {
	tag   string
	attrs map[string]string
	text  string
}

// parseElements tokenizes page as a browser would and returns every start
// tag; a script's text is its raw content.
func parseElements(t *testing.T, page []byte) []element {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(page))
	var out []element
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			e := element{tag: tok.Data, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Key] = a.Val
			}
			if tok.Data == "script" {
				if z.Next() == html.TextToken {
					e.text = string(z.Text())
				}
			}
			out = append(out, e)
		}
	}
}

// embeddedData decodes the page's data block.
func embeddedData(t *testing.T, page []byte) testData {
	t.Helper()
	for _, e := range parseElements(t, page) {
		if e.tag == "script" && e.attrs["id"] == DataElementID {
			var d testData
			if err := json.Unmarshal([]byte(e.text), &d); err != nil {
				t.Fatalf("data block: %v", err)
			}
			return d
		}
	}
	t.Fatal("no data block")
	return testData{}
}

// testData mirrors reportData with nulls kept visible.
type testData struct {
	Version int    `json:"version"`
	Theme   string `json:"theme"`
	Mode    string `json:"mode"`
	Runs    []struct {
		Name        string  `json:"name"`
		Model       string  `json:"model"`
		Concurrency float64 `json:"concurrency"`
		Stats       map[string]struct {
			Unit  string             `json:"unit"`
			Stats map[string]float64 `json:"stats"`
		} `json:"stats"`
		Records *struct {
			Count  int        `json:"count"`
			Start  []*float64 `json:"start"`
			End    []*float64 `json:"end"`
			Errors []struct {
				Index   int    `json:"i"`
				Message string `json:"m"`
			} `json:"errors"`
			IDs     []string `json:"ids"`
			Metrics []struct {
				Tag    string     `json:"tag"`
				Header string     `json:"header"`
				Unit   string     `json:"unit"`
				Values []*float64 `json:"values"`
			} `json:"metrics"`
		} `json:"records"`
	} `json:"runs"`
	Charts []struct {
		ID            string    `json:"id"`
		Kind          string    `json:"kind"`
		Title         string    `json:"title"`
		Subtitle      string    `json:"subtitle"`
		XLabel        string    `json:"x_label"`
		YLabel        string    `json:"y_label"`
		Y2Label       string    `json:"y2_label"`
		Unit          string    `json:"unit"`
		X             []float64 `json:"x"`
		Y             []float64 `json:"y"`
		Err           []float64 `json:"err"`
		RunAvg        *float64  `json:"run_avg"`
		RunStd        *float64  `json:"run_std"`
		Windows       int       `json:"windows"`
		SliceDuration float64   `json:"slice_duration"`
		XMin          *float64  `json:"x_min"`
		XMax          *float64  `json:"x_max"`
		HigherBetter  bool      `json:"higher_better"`
		Outliers      []int     `json:"outliers"`
		YMax          float64   `json:"y_max"`
		OriginMs      float64   `json:"origin_ms"`
		Lines         []struct {
			Name string    `json:"name"`
			X    []float64 `json:"x"`
			Y    []float64 `json:"y"`
		} `json:"lines"`
		Series []struct {
			Name   string `json:"name"`
			Line   string `json:"line"`
			Points []struct {
				X        float64 `json:"x"`
				Y        float64 `json:"y"`
				Label    string  `json:"label"`
				Run      int     `json:"run"`
				Frontier bool    `json:"frontier"`
			} `json:"points"`
		} `json:"series"`
	} `json:"charts"`
}
