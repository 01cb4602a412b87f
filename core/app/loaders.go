package app

import (
	"log/slog"

	"github.com/aiperf-go/aiperf/registry"
	"github.com/aiperf-go/aiperf/registry/grpcloader"
	"github.com/aiperf-go/aiperf/registry/wasmloader"
)

// ExternalLoaders are the loaders of external plugin kinds: gRPC processes
// (hashicorp/go-plugin) and WASM modules (wazero). Plugin output is logged
// with the plugin's name.
func ExternalLoaders(log *slog.Logger) map[registry.Kind]registry.Loader {
	return map[registry.Kind]registry.Loader{
		registry.KindGRPC: grpcloader.New(grpcloader.Options{Logger: log}),
		registry.KindWASM: wasmloader.New(wasmloader.Options{Logger: log}),
	}
}
