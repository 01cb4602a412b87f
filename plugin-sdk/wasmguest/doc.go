// Package wasmguest turns a Go program into an aiperf WASM plugin.
//
// A plugin implements one or more category interfaces of the sdk package
// and registers itself from init():
//
//	func init() { wasmguest.Register(myProcessor{}, wasmguest.Name("my-metric"), wasmguest.Version("0.1.0")) }
//	func main() {}
//
// and is built as a WASI reactor module:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm .
//
// # ABI (version 1)
//
// The module is a reactor: the host calls its "_initialize" export once per
// instance (which runs the Go runtime and init functions; main never runs),
// then only these exports:
//
//	aiperf_alloc(size u32) -> ptr u32
//	    Returns a guest-owned buffer of at least size bytes for the host to
//	    write a request into. The buffer stays valid until aiperf_free(ptr);
//	    the host may reuse it for any number of calls.
//	aiperf_free(ptr u32)
//	    Releases a buffer from aiperf_alloc. Unknown pointers are ignored.
//	aiperf_call(method u32, ptr u32, len u32) -> u64
//	    Runs one method on the request message at [ptr, ptr+len), which must
//	    lie in a buffer from aiperf_alloc (len 0 means an empty message).
//	    Returns resultPtr<<32 | resultLen of a serialized WasmResult
//	    {payload: the method's response message, error: the plugin's error
//	    text}. The result is guest-owned, valid until the next aiperf_call on
//	    the same instance, and must not be freed. 0 means an empty
//	    WasmResult (empty response, no error).
//
// Methods (see Method) carry exactly the request and response messages of
// the gRPC service in plugin.proto:
//
//	1 Describe             DescribeRequest    -> DescribeResponse
//	2 FormatPayload        RequestInfo        -> FormatPayloadResponse
//	3 ParseRecord          ParseRecordRequest -> ParseRecordResponse
//	4 InitRecordProcessor  RunInfo            -> Empty
//	5 ProcessRecord        ParsedRecord       -> ProcessRecordResponse
//	6 CanLoad              CanLoadRequest     -> CanLoadResponse
//	7 LoadDataset          LoadDatasetRequest -> LoadDatasetResponse
//	8 Export               ExportRequest      -> ExportResponse
//	9 Configure            ConfigureRequest   -> Empty
//
// A method the plugin does not implement returns the error "method X not
// implemented by plugin"; a panic inside the plugin is recovered into the
// call's error (and its stack written to stderr).
//
// # Lifecycle
//
// The optional lifecycle every plugin shares (plugin-sdk/lifecycle.go) maps
// onto the methods as follows:
//
//   - sdk.Configurable: Configure carries one manifest entry's settings (a
//     JSON object), sent only when the entry has settings, before Init;
//     they are decoded with sdk.DecodeConfig into PluginConfig(), so an
//     unknown key is refused. A plugin that is not Configurable refuses
//     non-empty settings ("plugin record_processor.x takes no settings").
//   - sdk.Initializer: called by InitRecordProcessor, the protocol's only
//     Init call (a record processor without Init accepts it as a no-op).
//   - sdk.Validator: called after Init for a record processor, otherwise at
//     the end of Configure.
//   - io.Closer is never called: the host discards instances.
//
// The host replays Configure and Init, in their order, on every instance it
// creates, so each instance holds the same settings and run info. Describe
// asks the plugin for its endpoint metadata and metrics on every call; the
// host describes the plugin again after Configure and Init, so both may
// depend on the settings.
//
// # Sandbox
//
// The only imports a module may have are from wasi_snapshot_preview1. The
// host grants no filesystem (unless the manifest lists read-only
// directories), no network, no environment variables and no arguments; it
// caps memory and stops a call at its deadline. Stdout and stderr go to the
// host's log, tagged with the plugin's name. An instance is single-threaded:
// the host runs a pool of instances, so state kept in package variables is
// per instance and must not be relied on across calls.
package wasmguest
