// Package grpcplugin runs aiperf plugins as separate processes over gRPC,
// using hashicorp/go-plugin for the process handshake.
//
// A Go plugin author writes
//
//	func main() { grpcplugin.Serve(myEndpoint{}, grpcplugin.WithName("textgen")) }
//
// where myEndpoint implements any subset of sdk.Endpoint (optionally with
// sdk.RecordParser), sdk.RecordProcessor, sdk.CustomDatasetLoader,
// sdk.DataExporter, the telemetry collectors and sdk.Plot (or
// sdk.ComparisonPlot: Describe then reports comparison_plot). The host (aiperf's registry/grpcloader) starts the
// binary, checks the handshake (magic cookie and plugin API version), calls
// Describe and wraps the process in adapters implementing the same sdk
// interfaces as a built-in plugin.
//
// # Lifecycle
//
// The optional lifecycle every plugin shares (plugin-sdk/lifecycle.go) maps
// onto the protocol as follows:
//
//   - sdk.Configurable: the host sends Configure once per manifest entry
//     that has settings, before Init, with the entry's category, name and
//     settings (a JSON object); they are decoded with sdk.DecodeConfig into
//     PluginConfig(), so an unknown key is refused. An implementation that
//     is not Configurable refuses any non-empty settings ("plugin
//     record_processor.x takes no settings"). An implementation serving
//     several categories gets one Configure per (category, name) entry, all
//     decoded into the same PluginConfig() target: keys of a later entry
//     override those of an earlier one. Keep the keys of different
//     categories distinct (or serve each category from its own binary).
//   - sdk.Initializer: called by InitRecordProcessor, the protocol's only
//     Init call; Init of an implementation that is not a record processor
//     is never called.
//   - sdk.Validator: called after Init (record processors), otherwise at the
//     end of each Configure.
//   - io.Closer: called when aiperf stops the process (see Serve).
//
// Describe asks the implementation for its endpoint metadata and declared
// metrics (sdk.RecordProcessor.Metrics) on every call, and the host
// describes the plugin again after Configure and Init: both may depend on
// the settings.
//
// Anything the plugin writes to stderr or stdout ends up in aiperf's log,
// tagged with the plugin's name.
package grpcplugin
