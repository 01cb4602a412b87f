package app

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"go.uber.org/fx/fxtest"
)

// Tests here use stub plugins: the built-ins are exercised end to end in
// cmd/aiperf (app_integration_test.go), which owns the distribution.

func TestNewRunInfo(t *testing.T) {
	chat := metaEndpoint{md: chatMeta}
	noStreaming := endpointWith(chatMeta, func(m *sdk.EndpointMetadata) { m.SupportsStreaming = false })
	cases := []struct {
		name          string
		ep            sdk.Endpoint
		streaming     bool
		goodput       string
		wantStreaming bool
		wantGoodput   map[string]float64
		wantErr       []string
	}{
		{name: "no goodput", ep: chat, streaming: true, wantStreaming: true},
		{name: "blank goodput", ep: chat, goodput: "  ", wantStreaming: false},
		{name: "endpoint without streaming", ep: noStreaming, streaming: true, wantStreaming: false},
		{name: "two SLOs on a streaming run", ep: chat, streaming: true, goodput: "time_to_first_token:100 request_latency:2000",
			wantStreaming: true, wantGoodput: map[string]float64{"time_to_first_token": 100, "request_latency": 2000}},
		{name: "latency SLO on a non-streaming run", ep: chat, goodput: "request_latency:250",
			wantGoodput: map[string]float64{"request_latency": 250}},
		// Tags are checked against the metrics the record processors
		// declare, in NewOutputs (TestNewOutputsChecksGoodputAgainstTheCatalog).
		{name: "unknown tag is parsed here", ep: chat, goodput: "speed:1", wantGoodput: map[string]float64{"speed": 1}},
		{name: "malformed", ep: chat, goodput: "request_latency", wantErr: []string{"--goodput: ", "malformed"}},
		{name: "negative", ep: chat, goodput: "request_latency:-1", wantErr: []string{"--goodput: ", "negative"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &Settings{Streaming: c.streaming, Goodput: c.goodput, Models: []string{"m"}, Seed: 7,
				Timeout: time.Second, ArtifactDir: "out", Profiling: config.PhaseSettings{Concurrency: 4}}
			h := NewPluginHost(nil, s)
			info, err := NewRunInfo(h, c.ep, s)
			if len(c.wantErr) > 0 {
				if err == nil {
					t.Fatalf("no error; info %+v", info)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Streaming != c.wantStreaming || info.Endpoint != c.ep.Metadata() {
				t.Errorf("info %+v, want streaming=%v and the endpoint's metadata", info, c.wantStreaming)
			}
			// The facts the host started with are kept.
			if !slices.Equal(info.Models, s.Models) || info.Seed != 7 || info.RequestTimeout != time.Second ||
				info.ArtifactDir != "out" || info.MaxConcurrency != 4 {
				t.Errorf("run facts lost: %+v", info)
			}
			if len(info.Goodput) != len(c.wantGoodput) {
				t.Errorf("Goodput %v, want %v", info.Goodput, c.wantGoodput)
			}
			for k, v := range c.wantGoodput {
				if info.Goodput[k] != v {
					t.Errorf("Goodput[%s] = %v, want %v", k, info.Goodput[k], v)
				}
			}
			// Plugins built after it are initialized with these facts.
			if got := h.Run(); got.Streaming != info.Streaming || got.Endpoint != info.Endpoint || len(got.Goodput) != len(info.Goodput) {
				t.Errorf("host run %+v, want %+v", got, info)
			}
		})
	}
}

// --- NewOutputs over stub output plugins --------------------------------------

// specProcessor declares the given metrics and computes none.
type specProcessor struct{ specs []sdk.MetricSpec }

func (p specProcessor) Metrics() []sdk.MetricSpec { return p.specs }
func (specProcessor) Process(pr *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Record: pr.Record}, nil
}

// awarePlugin is an accumulator and a data exporter that records its Init
// and the metrics the core tells it.
type awarePlugin struct {
	run  *sdk.RunInfo
	tags []string
}

func (a *awarePlugin) Init(_ context.Context, run sdk.RunInfo) error { a.run = &run; return nil }
func (a *awarePlugin) SetMetrics(specs []sdk.MetricSpec) error {
	for _, s := range specs {
		a.tags = append(a.tags, s.Tag)
	}
	return nil
}
func (*awarePlugin) Add(*sdk.RecordMetrics)           {}
func (*awarePlugin) Summarize() (*sdk.Results, error) { return &sdk.Results{}, nil }
func (*awarePlugin) Export(context.Context, *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	return nil, nil
}

type stubConsole struct{}

func (stubConsole) Render(context.Context, io.Writer, *sdk.ExportContext) error { return nil }

// outputPlugins is a registry of output plugins: record processors
// "fixture" (testfixtures.Processor) and "lag" (extra's specs, else
// schedule_lag), the accumulator and exporter "aware" and the console
// exporter "console". built counts the accumulators built.
type outputPlugins struct {
	reg          *registry.Registry
	acc, exp     *awarePlugin
	accumulators int
}

func newOutputPlugins(t *testing.T, lagSpecs ...sdk.MetricSpec) *outputPlugins {
	t.Helper()
	if len(lagSpecs) == 0 {
		lagSpecs = testfixtures.Specs(testfixtures.TagScheduleLag)
	}
	o := &outputPlugins{acc: &awarePlugin{}, exp: &awarePlugin{}}
	b := registry.Builtins{
		registry.Provide(sdk.RecordProcessors, "fixture", func() sdk.RecordProcessor { return testfixtures.Processor{} }),
		registry.Provide(sdk.RecordProcessors, "lag", func() sdk.RecordProcessor { return specProcessor{specs: lagSpecs} }),
		registry.Provide(sdk.Accumulators, "aware", func() sdk.Accumulator { o.accumulators++; return o.acc }),
		registry.Provide(sdk.DataExporters, "aware", func() sdk.DataExporter { return o.exp }),
		registry.Provide(sdk.ConsoleExporters, "console", func() sdk.ConsoleExporter { return stubConsole{} }),
	}
	m, err := registry.ParseManifest([]byte("record_processor:\n  fixture:\n    description: d\n  lag:\n    description: d\n"+
		"accumulator:\n  aware:\n    description: d\ndata_exporter:\n  aware:\n    description: d\n"+
		"console_exporter:\n  console:\n    description: d\n"), "plugins.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if o.reg, err = registry.New(b, m); err != nil {
		t.Fatal(err)
	}
	return o
}

// idList joins the plugins' category.name ids.
func idList[T any](named []registry.Named[T]) string {
	out := make([]string, len(named))
	for i, n := range named {
		out[i] = n.ID()
	}
	return strings.Join(out, ",")
}

func TestNewOutputsBuildsEveryOutputPluginAndTellsThemTheMetrics(t *testing.T) {
	p := newOutputPlugins(t)
	info := testfixtures.StreamingRun()
	h := newHost(p.reg, info, nil, Selection{})
	defer h.Close()
	o, err := NewOutputs(context.Background(), h, info)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join([]string{idList(o.Processors), idList(o.Accumulators), idList(o.Exporters), idList(o.Consoles)}, " ")
	if want := "record_processor.fixture,record_processor.lag accumulator.aware data_exporter.aware console_exporter.console"; got != want {
		t.Errorf("outputs %s, want %s", got, want)
	}
	// The catalog holds what every processor declared.
	for _, tag := range append(slices.Clone(testfixtures.ProcessorTags), testfixtures.TagScheduleLag) {
		if !o.Catalog.Known(tag) {
			t.Errorf("catalog lacks %s", tag)
		}
	}
	// The accumulator and the exporter were initialized and told the metrics.
	for name, a := range map[string]*awarePlugin{"accumulator": p.acc, "exporter": p.exp} {
		if a.run == nil || !a.run.Streaming {
			t.Errorf("%s not initialized with the run: %+v", name, a.run)
		}
		if !slices.Contains(a.tags, testfixtures.TagTTFT) || !slices.Contains(a.tags, testfixtures.TagScheduleLag) {
			t.Errorf("%s was told %v", name, a.tags)
		}
	}
}

func TestNewOutputsNamesBothPluginsOfADuplicateMetric(t *testing.T) {
	p := newOutputPlugins(t, testfixtures.Specs(testfixtures.TagRequestLatency)...)
	h := newHost(p.reg, testfixtures.StreamingRun(), nil, Selection{})
	defer h.Close()
	_, err := NewOutputs(context.Background(), h, testfixtures.StreamingRun())
	if err == nil || !strings.Contains(err.Error(), "record_processor.fixture") || !strings.Contains(err.Error(), "record_processor.lag") ||
		!strings.Contains(err.Error(), testfixtures.TagRequestLatency) {
		t.Errorf("NewOutputs = %v, want both plugins and the tag named", err)
	}
}

func TestNewOutputsChecksGoodputAgainstTheCatalog(t *testing.T) {
	cases := []struct {
		name      string
		streaming bool
		slos      map[string]float64
		wantErr   []string
	}{
		{name: "applicable SLOs", streaming: true, slos: map[string]float64{"time_to_first_token": 100, "schedule_lag": 5}},
		{name: "latency on a non-streaming run", slos: map[string]float64{"request_latency": 250}},
		{name: "TTFT on a non-streaming run", slos: map[string]float64{"time_to_first_token": 100},
			wantErr: []string{"--goodput: ", "time_to_first_token", "does not apply"}},
		{name: "unknown tag", streaming: true, slos: map[string]float64{"speed": 1},
			wantErr: []string{"--goodput: ", `unknown metric tag "speed"`}},
		{name: "error-only metric", streaming: true, slos: map[string]float64{"error_isl": 1},
			wantErr: []string{"--goodput: ", "error_isl", "cannot be an SLO"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newOutputPlugins(t)
			info := sdk.RunInfo{Endpoint: testfixtures.ChatEndpointMetadata, Streaming: c.streaming, Goodput: c.slos}
			h := newHost(p.reg, info, nil, Selection{})
			defer h.Close()
			o, err := NewOutputs(context.Background(), h, info)
			if len(c.wantErr) == 0 {
				if err != nil || o == nil {
					t.Fatalf("NewOutputs = %v, %v", o, err)
				}
				return
			}
			for _, w := range c.wantErr {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("NewOutputs error %v, want %q", err, w)
				}
			}
			// Refused before any accumulator is built.
			if p.accumulators != 0 {
				t.Errorf("%d accumulators built despite the bad SLO", p.accumulators)
			}
		})
	}
}

func TestNewLoggerWritesTheLogFile(t *testing.T) {
	dir := t.TempDir()
	s := &Settings{ArtifactDir: filepath.Join(dir, "nested"), Files: sdk.ArtifactFiles{Log: filepath.Join("logs", "aiperf.log")},
		LogLevel: slog.LevelWarn}
	lc := fxtest.NewLifecycle(t)
	var stderr bytes.Buffer
	log, err := NewLogger(lc, s, NewLogGate(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	lc.RequireStart()
	log.Debug("debug detail")
	log.Warn("careful")
	lc.RequireStop()
	b, err := os.ReadFile(filepath.Join(dir, "nested", "logs", "aiperf.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The file gets everything; stderr only the chosen level and above.
	if !strings.Contains(string(b), "debug detail") || !strings.Contains(string(b), "careful") {
		t.Errorf("log file:\n%s", b)
	}
	if strings.Contains(stderr.String(), "debug detail") || !strings.Contains(stderr.String(), "careful") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
