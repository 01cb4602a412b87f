// Command testplugin is a gRPC plugin for grpcloader's tests: it implements
// every external category and misbehaves on request (FormatPayload's
// model selects panic, exit, sleep, log or fail). It has settings (path,
// metric_prefix) that change what Describe reports. AIPERF_TESTPLUGIN_API_VERSION
// overrides the plugin API version it speaks; AIPERF_TESTPLUGIN_NO_SETTINGS
// serves it without settings, Init or Validate; AIPERF_TESTPLUGIN_LEGACY
// serves it without the Configure call; AIPERF_TESTPLUGIN_NO_METRICS makes
// its record processor declare no metrics; AIPERF_TESTPLUGIN_COMPARISON_PLOT
// serves its plot as a comparison plot.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// settings are the plugin's own settings: the endpoint's path and a
// prefix of every metric tag, so tests see Describe follow Configure.
type settings struct {
	Path         string `json:"path"`
	MetricPrefix string `json:"metric_prefix"`
	// URL is the telemetry source aiperf hands each collector.
	URL string `json:"url"`
}

type plugin struct {
	streaming bool
	settings  settings
	scrapes   atomic.Int64
}

func (p *plugin) PluginConfig() any { return &p.settings }

// Close writes AIPERF_TESTPLUGIN_CLOSE_MARK (when set), so tests see that
// grpcplugin.Serve closes the plugin when aiperf stops it.
func (p *plugin) Close() error {
	if path := os.Getenv("AIPERF_TESTPLUGIN_CLOSE_MARK"); path != "" {
		return os.WriteFile(path, []byte("closed\n"), 0o644)
	}
	return nil
}

func (p *plugin) Validate() error {
	if !strings.HasPrefix(p.settings.Path, "/") {
		return fmt.Errorf("path %q must start with '/'", p.settings.Path)
	}
	return nil
}

func (p *plugin) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: p.settings.Path, ServiceKind: "test", ProducesTokens: true, MetricsTitle: "Test Metrics"}
}

func (*plugin) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	switch req.Model {
	case "panic":
		var m map[string]int
		m["boom"]++ // nil map write: a real runtime panic
	case "exit":
		os.Exit(3)
	case "sleep":
		time.Sleep(10 * time.Second)
	case "log":
		fmt.Fprintln(os.Stderr, "stderr line from testplugin")
		log.Print("log line from testplugin")
	case "fail":
		return nil, errors.New("model fail is not served here")
	}
	return json.Marshal(map[string]any{"model": req.Model, "texts": req.Turn.Texts})
}

func (p *plugin) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	out, err := p.ParseRecord([]sdk.Response{{Data: data}})
	if err != nil {
		return sdk.ParsedResponse{}, err
	}
	return out[0], nil
}

func (*plugin) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	out := make([]sdk.ParsedResponse, len(units))
	for i, u := range units {
		switch s := string(u.Data); {
		case s == "panic":
			panic("testplugin: unit says panic")
		case s == "bad":
			return nil, fmt.Errorf("unit %d is bad", i)
		case strings.HasPrefix(s, "usage:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(s, "usage:"))
			out[i] = sdk.ParsedResponse{Usage: &sdk.Usage{CompletionTokens: &n}}
		default:
			out[i] = sdk.ParsedResponse{Text: s, Reasoning: u.Event}
		}
	}
	return out, nil
}

func (p *plugin) Init(_ context.Context, info sdk.RunInfo) error {
	if info.Endpoint.EndpointPath == "" {
		return errors.New("run info has no endpoint path")
	}
	if info.Seed != 0 && len(info.Models) == 0 {
		return fmt.Errorf("seed %d without models", info.Seed)
	}
	p.streaming = info.Streaming
	return nil
}

func (p *plugin) Metrics() []sdk.MetricSpec {
	if os.Getenv("AIPERF_TESTPLUGIN_NO_METRICS") != "" {
		return nil
	}
	pre := p.settings.MetricPrefix
	return []sdk.MetricSpec{
		{Tag: pre + "text_chars", Header: "Text Characters", Unit: "characters", Integer: true},
		{Tag: pre + "turn_index", Header: "Turn Index", Unit: "turns", Integer: true, DisplayOrder: -1},
		{Tag: pre + "streaming_on", Header: "Streaming On", Unit: "flag", List: true, Flags: sdk.FlagNoConsole,
			Requires: []string{pre + "text_chars"}},
	}
}

func (p *plugin) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	chars := 0
	for _, r := range rec.Responses {
		chars += len(r.Text)
	}
	pre := p.settings.MetricPrefix
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{
		pre + "text_chars":   {Scalar: float64(chars)},
		pre + "turn_index":   {Scalar: float64(rec.Record.TurnIndex)},
		pre + "streaming_on": {List: []float64{b2f(p.streaming)}, IsList: true},
	}}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (*plugin) CanLoad(path string) bool { return strings.HasSuffix(path, ".tp") }

func (*plugin) Load(_ context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []sdk.Conversation
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		max := opts.OutputTokensMean
		out = append(out, sdk.Conversation{SessionID: fmt.Sprintf("s%d", i),
			Turns: []sdk.Turn{{Texts: []string{line}, MaxTokens: &max}}})
	}
	return out, nil
}

func (*plugin) Export(_ context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	var tags []string
	for _, m := range ec.Results.Metrics {
		tags = append(tags, fmt.Sprintf("%s|%s|%d|%d", m.Tag, m.Header, m.Flags, m.DisplayOrder))
	}
	path := filepath.Join(ec.ArtifactDir, "testplugin_export.txt")
	if err := os.WriteFile(path, []byte(strings.Join(tags, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return []sdk.ExportedFile{{Label: "Testplugin Export", Path: path}}, nil
}

// Source names the telemetry source after the settings' path, so tests
// see Configure reach it.
func (p *plugin) Source() string {
	if p.settings.URL != "" {
		return p.settings.URL
	}
	return "test://gpus" + p.settings.Path
}

// Sample reports two GPUs; a context that is already done is an error.
func (p *plugin) Sample(ctx context.Context) ([]sdk.GPUReading, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return []sdk.GPUReading{
		{Index: 0, UUID: "GPU-0", Name: "Test GPU", Device: "nvidia0", Metrics: map[string]float64{"nvidia_power_usage": 250.5, "nvidia_gpu_utilization": 87}},
		{Index: 1, UUID: "GPU-1", Name: "Test GPU", Device: "nvidia1", Metrics: map[string]float64{}},
	}, nil
}

// Scrape returns a small Prometheus page whose counter grows by 42 a scrape.
func (p *plugin) Scrape(context.Context) (sdk.ServerMetricsScrape, error) {
	n := 42 * p.scrapes.Add(1)
	return sdk.ServerMetricsScrape{Body: fmt.Appendf(nil, "# TYPE test_requests_total counter\ntest_requests_total %d\n", n),
		ContentType: "text/plain; version=0.0.4"}, nil
}

// Applies: a run whose directory is "none" lacks the data; "panic"
// panics.
func (*plugin) Applies(run *sdk.PlotRun) bool {
	switch run.Dir {
	case "none":
		return false
	case "applies-panic":
		panic("testplugin: applies exploded")
	}
	return true
}

// Render writes a digest of what crossed (requests, the TTFT sum, failed
// requests, the options, the path setting) unless the run's directory
// selects a failure: panic, fail, exit or sleep.
func (p *plugin) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	if err := misbehave(run.Dir); err != nil {
		return err
	}
	ttft, failed := 0.0, 0
	for _, r := range run.Requests {
		ttft += r.Metrics["time_to_first_token"]
		if r.Error {
			failed++
		}
	}
	_, err := fmt.Fprintf(w, "%s: %d requests, ttft sum %.1f, %d failed, %s %dx%d@%d %s, path %s",
		run.Dir, len(run.Requests), ttft, failed, opts.Format, opts.Width, opts.Height, opts.DPI, opts.Theme, p.settings.Path)
	return err
}

func misbehave(dir string) error {
	switch dir {
	case "panic":
		panic("testplugin: render exploded")
	case "fail":
		return errors.New("this run cannot be drawn")
	case "exit":
		os.Exit(3)
	case "sleep":
		time.Sleep(10 * time.Second)
	}
	return nil
}

// comparison is the plugin as a comparison plot
// (AIPERF_TESTPLUGIN_COMPARISON_PLOT).
type comparison struct{ *plugin }

func (comparison) Applies(*sdk.PlotRun) bool { return false }

func (comparison) AppliesToRuns(runs []*sdk.PlotRun) bool { return len(runs) > 1 }

func (c comparison) RenderRuns(runs []*sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	if err := misbehave(runs[0].Dir); err != nil {
		return err
	}
	for _, r := range runs {
		if _, err := fmt.Fprintf(w, "%s=%d ", r.Dir, len(r.Requests)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s %s", opts.Format, opts.Theme)
	return err
}

func main() {
	opts := []grpcplugin.ServeOption{grpcplugin.WithName("testplugin"), grpcplugin.WithVersion("9.9.9"),
		grpcplugin.WithDescription("misbehaves on request")}
	if v := os.Getenv("AIPERF_TESTPLUGIN_API_VERSION"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			log.Fatalf("AIPERF_TESTPLUGIN_API_VERSION: %v", err)
		}
		opts = append(opts, grpcplugin.WithAPIVersion(uint32(n)))
	}
	impl := &plugin{settings: settings{Path: "/v1/test"}}
	switch {
	case os.Getenv("AIPERF_TESTPLUGIN_NO_SETTINGS") != "":
		// The same categories without settings, Init or Validate.
		grpcplugin.Serve(bare{impl, impl, impl, impl, impl, impl, impl, impl}, opts...)
	case os.Getenv("AIPERF_TESTPLUGIN_COMPARISON_PLOT") != "":
		grpcplugin.Serve(comparison{impl}, opts...)
	case os.Getenv("AIPERF_TESTPLUGIN_LEGACY") != "":
		// A plugin built before Configure existed: the generated base
		// answers Unimplemented.
		srv, err := grpcplugin.NewServer(impl, opts...)
		if err != nil {
			log.Fatal(err)
		}
		goplugin.Serve(&goplugin.ServeConfig{HandshakeConfig: grpcplugin.Handshake,
			Plugins:    goplugin.PluginSet{grpcplugin.PluginName: &grpcplugin.GRPCPlugin{Impl: legacy{srv}}},
			GRPCServer: grpcplugin.NewGRPCServer})
	default:
		grpcplugin.Serve(impl, opts...)
	}
}

// bare serves the categories only.
type bare struct {
	sdk.Endpoint
	sdk.RecordParser
	sdk.RecordProcessor
	sdk.CustomDatasetLoader
	sdk.DataExporter
	gpuCollector
	sdk.ServerMetricsCollector
	sdk.Plot
}

// gpuCollector is sdk.GPUTelemetryCollector without Source, which
// sdk.ServerMetricsCollector already brings (the same method).
type gpuCollector interface {
	Sample(ctx context.Context) ([]sdk.GPUReading, error)
}

// legacy lacks Configure, as a plugin built against an older SDK does.
type legacy struct{ *grpcplugin.Server }

func (legacy) Configure(context.Context, *pluginpb.ConfigureRequest) (*pluginpb.Empty, error) {
	return nil, status.Error(codes.Unimplemented, "method Configure not implemented")
}
