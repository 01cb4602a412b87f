// Command plugin is sdktest's gRPC test plugin: SDKTEST_PLUGIN_MODE picks
// what it serves, conforming or deliberately broken.
package main

import (
	"fmt"
	"os"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
	"github.com/hashicorp/go-plugin"
)

// everything implements all four categories served over gRPC.
type everything struct {
	*fixtures.Endpoint
	*fixtures.Processor
	*fixtures.Loader
	*fixtures.Exporter
}

func main() {
	mode := os.Getenv("SDKTEST_PLUGIN_MODE")
	var impl any
	var opts []grpcplugin.ServeOption
	switch mode {
	case "all":
		impl = everything{&fixtures.Endpoint{}, &fixtures.Processor{}, &fixtures.Loader{}, &fixtures.Exporter{}}
	case "api-v2-handshake":
		impl, opts = &fixtures.Processor{}, []grpcplugin.ServeOption{grpcplugin.WithAPIVersion(sdk.APIVersion + 1)}
	case "api-v2-describe":
		// Handshake v1 but Describe says v2: only the Describe check catches it.
		srv, err := grpcplugin.NewServer(&fixtures.Processor{}, grpcplugin.WithAPIVersion(sdk.APIVersion+1))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		plugin.Serve(&plugin.ServeConfig{HandshakeConfig: grpcplugin.Handshake,
			Plugins: plugin.PluginSet{grpcplugin.PluginName: &grpcplugin.GRPCPlugin{Impl: srv}}, GRPCServer: grpcplugin.NewGRPCServer})
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
	default:
		fmt.Fprintf(os.Stderr, "unknown SDKTEST_PLUGIN_MODE %q\n", mode)
		os.Exit(2)
	}
	grpcplugin.Serve(impl, append(opts, grpcplugin.WithName("sdktest-"+mode))...)
}
