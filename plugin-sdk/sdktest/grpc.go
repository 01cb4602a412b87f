package sdktest

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GRPCOption configures GRPCPlugin.
type GRPCOption func(*grpcConfig)

type grpcConfig struct {
	endpoint      EndpointCase
	datasetSample string
	plotRuns      []*sdk.PlotRun
	args, env     []string
	// defaultLimits dials with gRPC's default 4 MiB message limits instead
	// of aiperf's raised ones (sdktest's own test that plot calls stay
	// within them).
	defaultLimits bool
}

// WithEndpointCase gives the endpoint checks their sample units; required
// when the plugin is an endpoint.
func WithEndpointCase(c EndpointCase) GRPCOption { return func(g *grpcConfig) { g.endpoint = c } }

// WithDatasetSample names a sample file for the dataset loader checks;
// required when the plugin is a custom_dataset_loader.
func WithDatasetSample(path string) GRPCOption {
	return func(g *grpcConfig) { g.datasetSample = path }
}

// WithPlotRuns gives the plot checks their sample runs (default:
// SamplePlotRun, three of them for a comparison plot).
func WithPlotRuns(runs ...*sdk.PlotRun) GRPCOption {
	return func(g *grpcConfig) { g.plotRuns = append(g.plotRuns, runs...) }
}

// WithArgs passes command-line arguments to the plugin binary.
func WithArgs(args ...string) GRPCOption {
	return func(g *grpcConfig) { g.args = append(g.args, args...) }
}

// WithEnv adds KEY=value entries to the plugin's environment (which is
// otherwise the test's, as under aiperf).
func WithEnv(env ...string) GRPCOption { return func(g *grpcConfig) { g.env = append(g.env, env...) } }

// servedCategories are the categories whose descriptors accept gRPC
// plugins: those the protocol has calls for.
var servedCategories = func() []string {
	var out []string
	for _, c := range sdk.Categories {
		if c.Accepts(sdk.KindGRPC) {
			out = append(out, c.Name)
		}
	}
	return out
}()

// GRPCPlugin starts the plugin binary at binaryPath as aiperf does
// (hashicorp/go-plugin, grpcplugin.Handshake, gRPC only), checks Describe,
// runs the in-process checks of every category the plugin claims over the
// protocol, and checks the process still serves at the end. The process
// is killed on t.Cleanup.
func GRPCPlugin(t testing.TB, binaryPath string, opts ...GRPCOption) {
	t.Helper()
	var cfg grpcConfig
	for _, o := range opts {
		o(&cfg)
	}
	rpc := startPlugin(t, binaryPath, cfg)
	desc := describe(t, rpc)
	if desc == nil {
		return
	}
	for _, c := range desc.GetCategories() {
		checkRemoteConfigure(t, rpc, c)
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryEndpoint) {
		if desc.GetEndpoint() == nil {
			t.Errorf("sdktest: Describe claims category endpoint but carries no endpoint metadata")
		} else {
			Endpoint(t, &grpcEndpoint{rpc: rpc, meta: pluginpb.ToEndpointMetadata(desc.GetEndpoint())}, cfg.endpoint)
		}
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryRecordProcessor) {
		RecordProcessor(t, &grpcProcessor{rpc: rpc, t: t})
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryCustomDataset) {
		if cfg.datasetSample == "" {
			t.Errorf("sdktest: the plugin claims category %s: pass a sample file with WithDatasetSample", sdk.CategoryCustomDataset)
		} else {
			DatasetLoader(t, &grpcLoader{rpc: rpc, t: t}, cfg.datasetSample)
		}
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryDataExporter) {
		DataExporter(t, &grpcExporter{rpc: rpc})
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryGPUTelemetry) {
		GPUCollector(t, &grpcTelemetry{rpc: rpc})
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryServerMetrics) {
		ServerMetricsCollector(t, &grpcTelemetry{rpc: rpc})
	}
	if slices.Contains(desc.GetCategories(), sdk.CategoryPlot) {
		p := &grpcPlot{rpc: rpc, t: t}
		if desc.GetComparisonPlot() {
			Plot(t, grpcComparisonPlot{p}, cfg.plotRuns...)
		} else {
			Plot(t, p, cfg.plotRuns...)
		}
	}
	// Malformed input and odd requests must not have taken the process down.
	ctx, cancel := rpcContext()
	defer cancel()
	if _, err := rpc.Describe(ctx, &pluginpb.DescribeRequest{}); err != nil {
		t.Errorf("sdktest: the plugin process stopped serving during the checks: Describe: %v", err)
	}
}

// startPlugin launches the binary and dispenses the Plugin client.
func startPlugin(t testing.TB, binaryPath string, cfg grpcConfig) pluginpb.PluginClient {
	t.Helper()
	st, err := os.Stat(binaryPath)
	if err != nil {
		t.Fatalf("sdktest: plugin binary: %v", err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		t.Fatalf("sdktest: plugin binary %s is not an executable file (mode %v)", binaryPath, st.Mode())
	}
	// The plugin's output: raw stderr, plus what go-plugin forwards from a
	// Go plugin's redirected stdout and stderr.
	output := &tailBuffer{limit: 16 << 10}
	cmd := exec.Command(binaryPath, cfg.args...)
	// Host environment first so WithEnv entries win (exec keeps the last).
	cmd.Env = append(os.Environ(), cfg.env...)
	dialOptions := grpcplugin.ClientDialOptions()
	if cfg.defaultLimits {
		dialOptions = nil
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  grpcplugin.Handshake,
		Plugins:          grpcplugin.ClientPlugins(),
		Cmd:              cmd,
		SkipHostEnv:      true, // already in cmd.Env, before WithEnv's entries
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		GRPCDialOptions:  dialOptions,
		StartTimeout:     callTimeout,
		Stderr:           output,
		SyncStdout:       output,
		SyncStderr:       output,
		Logger:           hclog.NewNullLogger(),
	})
	// Cleanups run last-in first-out: kill, then show what the plugin said.
	t.Cleanup(func() {
		if t.Failed() && output.Len() > 0 {
			t.Logf("sdktest: plugin %s output (last %d bytes at most):\n%s", binaryPath, output.limit, output.String())
		}
	})
	t.Cleanup(client.Kill)
	conn, err := client.Client()
	if err != nil {
		t.Fatalf("sdktest: starting plugin %s (go-plugin handshake, this host speaks plugin API v%d): %v", binaryPath, sdk.APIVersion, err)
	}
	raw, err := conn.Dispense(grpcplugin.PluginName)
	if err != nil {
		t.Fatalf("sdktest: plugin %s: dispensing %q: %v", binaryPath, grpcplugin.PluginName, err)
	}
	rpc, ok := raw.(pluginpb.PluginClient)
	if !ok {
		t.Fatalf("sdktest: plugin %s: dispensed %T, want pluginpb.PluginClient", binaryPath, raw)
	}
	return rpc
}

// describe calls Describe and checks what the plugin says about itself;
// nil means the remaining checks cannot run.
func describe(t testing.TB, rpc pluginpb.PluginClient) *pluginpb.DescribeResponse {
	t.Helper()
	ctx, cancel := rpcContext()
	defer cancel()
	desc, err := rpc.Describe(ctx, &pluginpb.DescribeRequest{})
	if err != nil {
		t.Errorf("sdktest: Describe: %v", err)
		return nil
	}
	if desc.GetApiVersion() != sdk.APIVersion {
		t.Errorf("sdktest: Describe: api_version %d, want %d (the plugin API this sdk speaks)", desc.GetApiVersion(), sdk.APIVersion)
	}
	cats := desc.GetCategories()
	if len(cats) == 0 {
		t.Errorf("sdktest: Describe: no categories: a plugin implements at least one of %v", servedCategories)
		return nil
	}
	for i, c := range cats {
		switch cat, known := sdk.LookupCategory(c); {
		case !known:
			t.Errorf("sdktest: Describe: unknown category %q", c)
		case cat.BuiltinOnly():
			t.Errorf("sdktest: Describe: category %q is built-in only (%s)", c, cat.BuiltinReason)
		case !cat.Accepts(sdk.KindGRPC):
			t.Errorf("sdktest: Describe: category %q is not served by gRPC plugins in plugin API v%d; gRPC plugins serve %v", c, sdk.APIVersion, servedCategories)
		case slices.Contains(cats[:i], c):
			t.Errorf("sdktest: Describe: category %q listed twice", c)
		}
	}
	switch processor := slices.Contains(cats, sdk.CategoryRecordProcessor); {
	case processor && len(desc.GetMetrics()) == 0:
		t.Errorf("sdktest: Describe: the plugin serves %s but declares no metrics (DescribeResponse.metrics): declare every metric it produces",
			sdk.CategoryRecordProcessor)
	case !processor && len(desc.GetMetrics()) > 0:
		t.Errorf("sdktest: Describe: the plugin declares %d metrics but does not serve %s (only record processors declare metrics)",
			len(desc.GetMetrics()), sdk.CategoryRecordProcessor)
	}
	if desc.GetComparisonPlot() && !slices.Contains(cats, sdk.CategoryPlot) {
		t.Errorf("sdktest: Describe: comparison_plot is set but the plugin does not serve %s", sdk.CategoryPlot)
	}
	if desc.GetName() == "" {
		t.Logf("sdktest: Describe reports no name (informational; the manifest names the plugin)")
	}
	return desc
}

// tailBuffer keeps the last limit bytes written to it; go-plugin writes the
// plugin's stderr from its own goroutine.
type tailBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.limit; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *tailBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// checkRemoteConfigure sends Configure for category as aiperf does for a
// manifest entry with settings: empty settings must be accepted and an
// unknown key refused, whether or not the plugin has settings.
func checkRemoteConfigure(t testing.TB, rpc pluginpb.PluginClient, category string) {
	t.Helper()
	configure := func(settings string) error {
		ctx, cancel := rpcContext()
		defer cancel()
		_, err := rpc.Configure(ctx, &pluginpb.ConfigureRequest{Category: category, Name: "sdktest", ConfigJson: []byte(settings)})
		return err
	}
	err := configure(unknownSetting)
	switch {
	case status.Code(err) == codes.Unimplemented:
		t.Errorf("sdktest: Configure(%s) is not implemented: answer it (decode the settings, refuse unknown keys; a plugin without settings refuses any) or rebuild against the current plugin SDK: %v",
			category, err)
		return
	case err == nil:
		t.Errorf("sdktest: Configure(%s, %s) was accepted: an unknown setting must be refused", category, unknownSetting)
	}
	if err := configure("{}"); err != nil {
		t.Errorf("sdktest: Configure(%s, {}) failed: empty settings must be accepted: %v", category, err)
	}
}
