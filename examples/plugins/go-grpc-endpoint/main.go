// Command go-grpc-endpoint is an example aiperf endpoint plugin, run as a
// separate process over gRPC. It speaks "textgen", a non-OpenAI JSON API
// (served by aiperf's mock server at /v1/textgen):
//
//	request:        {"model":…, "input":"<prompt>", "max_new_tokens":n, "stream":bool}
//	non-streaming:  {"output":"…", "usage":{"input_tokens":a, "output_tokens":b}}
//	streaming SSE:  {"delta":"…"} per token, then {"done":true, "usage":{…}}
//
// Build it, declare it in a manifest (kind: grpc) and select it with
// --endpoint-type textgen; see README.md.
package main

import (
	"github.com/aiperf-go/aiperf/examples/plugins/textgen"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
)

// version is the plugin's own version, reported by Describe.
const version = "0.1.0"

func main() {
	grpcplugin.Serve(&textgen.Endpoint{},
		grpcplugin.WithName("textgen"),
		grpcplugin.WithVersion(version),
		grpcplugin.WithDescription("textgen JSON API (/v1/textgen): input/max_new_tokens, delta/done SSE events"))
}
