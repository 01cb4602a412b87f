// Command go-wasm-endpoint is the textgen example endpoint (see
// examples/plugins/textgen) compiled to WebAssembly instead of run as a gRPC
// process: the same Go code behind the same contract, loaded by wazero in a
// sandbox with no filesystem or network.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o textgen.wasm .
package main

import (
	"github.com/aiperf-go/aiperf/examples/plugins/textgen"
	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
)

func init() {
	wasmguest.Register(&textgen.Endpoint{},
		wasmguest.Name("textgen"),
		wasmguest.Version("0.1.0"),
		wasmguest.Description("textgen JSON API (/v1/textgen) as a WASM module"))
}

// main is not called in a reactor module (-buildmode=c-shared); the host
// calls the exported functions after _initialize runs init.
func main() {}
