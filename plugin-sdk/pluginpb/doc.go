// Package pluginpb is the plugin protocol's generated Go code (plugin.proto:
// service Plugin and its messages, shared by gRPC and the WASM ABI) and the
// conversions between those messages and the sdk value types.
package pluginpb
