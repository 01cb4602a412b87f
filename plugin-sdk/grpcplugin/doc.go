// Package grpcplugin runs aiperf plugins as separate processes over gRPC,
// using hashicorp/go-plugin for the process handshake.
//
// A Go plugin author writes
//
//	func main() { grpcplugin.Serve(myEndpoint{}, grpcplugin.WithName("textgen")) }
//
// where myEndpoint implements any subset of sdk.Endpoint (optionally with
// sdk.RecordParser), sdk.RecordProcessor, sdk.CustomDatasetLoader and
// sdk.DataExporter. The host (aiperf's registry/grpcloader) starts the
// binary, checks the handshake (magic cookie and plugin API version), calls
// Describe and wraps the process in adapters implementing the same sdk
// interfaces as a built-in plugin.
//
// Anything the plugin writes to stderr or stdout ends up in aiperf's log,
// tagged with the plugin's name.
package grpcplugin
