// Command plugin is sdktest's gRPC test plugin: SDKTEST_PLUGIN_MODE picks
// what it serves, conforming or deliberately broken.
package main

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
	"github.com/hashicorp/go-plugin"
)

// everything implements the categories served over gRPC that the
// fixtures cover.
type everything struct {
	*fixtures.Endpoint
	*fixtures.Processor
	*fixtures.Loader
	*fixtures.Exporter
	*fixtures.Plot
}

func main() {
	mode := os.Getenv("SDKTEST_PLUGIN_MODE")
	var impl any
	var opts []grpcplugin.ServeOption
	switch mode {
	case "all":
		impl = everything{&fixtures.Endpoint{}, &fixtures.Processor{}, &fixtures.Loader{}, &fixtures.Exporter{}, &fixtures.Plot{}}
	case "api-v2-handshake":
		impl, opts = &fixtures.Processor{}, []grpcplugin.ServeOption{grpcplugin.WithAPIVersion(sdk.APIVersion + 1)}
	case "api-v2-describe":
		// Handshake v1 but Describe says v2: only the Describe check catches it.
		srv, err := grpcplugin.NewServer(&fixtures.Processor{}, grpcplugin.WithAPIVersion(sdk.APIVersion+1))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		serveRaw(srv)
		return
	case "endpoint-exits":
		// go-plugin replaces os.Stderr with a pipe forwarded over gRPC, which
		// os.Exit can cut short; file descriptor 2 reaches the host directly.
		fd2 := os.NewFile(2, "stderr")
		impl = &fixtures.Endpoint{Fault: fixtures.EPExitsOnFormat, Exit: func() {
			fmt.Fprintln(fd2, "fixture: exiting on purpose")
			os.Exit(3)
		}}
	case "endpoint-no-service-kind":
		impl = &fixtures.Endpoint{Fault: fixtures.EPNoServiceKind}
	case "processor-nan":
		impl = &fixtures.Processor{Fault: fixtures.RPNaNWithoutTokens}
	case "processor-no-metrics":
		impl = &fixtures.Processor{Fault: fixtures.RPNoMetrics}
	case "processor-undeclared-tag":
		impl = &fixtures.Processor{Fault: fixtures.RPUndeclaredTag}
	case "processor-accepts-unknown-settings":
		impl = &fixtures.Processor{Fault: fixtures.CFAcceptsUnknownKeys}
	case "loader-only":
		// No settings: Configure must refuse any and accept none.
		impl = &fixtures.Loader{}
	case "exporter-declares-metrics":
		// A hand-written server (as a non-Go plugin might have) whose
		// Describe declares metrics without serving record_processor.
		srv, err := grpcplugin.NewServer(&fixtures.Exporter{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		serveRaw(metricsDescriber{srv})
		return
	case "plot":
		impl = &fixtures.Plot{}
	case "plot-compare":
		impl = &fixtures.ComparisonPlot{}
	case "plot-ignores-size":
		impl = &fixtures.Plot{Fault: fixtures.PLIgnoresSize}
	case "plot-panics":
		impl = &fixtures.Plot{Fault: fixtures.PLPanics}
	case "plot-fails":
		impl = &fixtures.Plot{Fault: fixtures.PLFails}
	case "plot-compare-never-applies":
		impl = &fixtures.ComparisonPlot{Plot: fixtures.Plot{Fault: fixtures.PLNeverApplies}}
	case "plot-echo-default-limits":
		// gRPC's default 4 MiB message limits, as a plugin in another
		// language has them: plot calls must stream within them.
		srv, err := grpcplugin.NewServer(fixtures.EchoPlot{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		plugin.Serve(&plugin.ServeConfig{HandshakeConfig: grpcplugin.Handshake,
			Plugins: plugin.PluginSet{grpcplugin.PluginName: &grpcplugin.GRPCPlugin{Impl: srv}}, GRPCServer: plugin.DefaultGRPCServer})
		return
	default:
		fmt.Fprintf(os.Stderr, "unknown SDKTEST_PLUGIN_MODE %q\n", mode)
		os.Exit(2)
	}
	grpcplugin.Serve(impl, append(opts, grpcplugin.WithName("sdktest-"+mode))...)
}

// metricsDescriber adds a metric to every Describe answer.
type metricsDescriber struct{ *grpcplugin.Server }

func (m metricsDescriber) Describe(ctx context.Context, req *pluginpb.DescribeRequest) (*pluginpb.DescribeResponse, error) {
	d, err := m.Server.Describe(ctx, req)
	if err == nil {
		d.Metrics = append(d.Metrics, &pluginpb.MetricSpec{Tag: "stray", Header: "Stray", Unit: "count"})
	}
	return d, err
}

// serveRaw serves a hand-made Plugin service the way grpcplugin.Serve does.
func serveRaw(srv pluginpb.PluginServer) {
	plugin.Serve(&plugin.ServeConfig{HandshakeConfig: grpcplugin.Handshake,
		Plugins: plugin.PluginSet{grpcplugin.PluginName: &grpcplugin.GRPCPlugin{Impl: srv}}, GRPCServer: grpcplugin.NewGRPCServer})
}
