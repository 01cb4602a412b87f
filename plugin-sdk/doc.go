// Package sdk is the public plugin contract of aiperf: one Go interface per
// plugin category plus the value types that cross it (conversations, turns,
// request records, parsed responses, metric values).
//
// Built-in plugins implement these interfaces directly; external plugins
// (gRPC processes, WASM modules) are wrapped by adapters that implement the
// same interfaces, so the core never knows which kind it is talking to.
//
// This package has no dependencies outside the standard library on purpose:
// a plugin author imports it alone.
package sdk

// APIVersion is the major version of this contract. A plugin built against a
// different major version is refused at load time.
const APIVersion = 1
