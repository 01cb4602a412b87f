// Command rawv2 implements the ABI by hand, without wasmguest, and claims
// plugin API version 2: the loader must refuse it naming both versions.
package main

import (
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
)

var keep = map[uint32][]byte{}

//go:wasmexport aiperf_alloc
func alloc(size uint32) uint32 {
	b := make([]byte, max(size, 1))
	p := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	keep[p] = b
	return p
}

//go:wasmexport aiperf_free
func free(ptr uint32) { delete(keep, ptr) }

var result []byte

//go:wasmexport aiperf_call
func call(method, ptr, size uint32) uint64 {
	// DescribeResponse{api_version: 2, name: "rawv2", categories: ["record_processor"]}
	var desc []byte
	desc = protowire.AppendTag(desc, 1, protowire.VarintType)
	desc = protowire.AppendVarint(desc, 2)
	desc = protowire.AppendTag(desc, 2, protowire.BytesType)
	desc = protowire.AppendString(desc, "rawv2")
	desc = protowire.AppendTag(desc, 5, protowire.BytesType)
	desc = protowire.AppendString(desc, "record_processor")
	result = protowire.AppendTag(result[:0], 1, protowire.BytesType)
	result = protowire.AppendBytes(result, desc)
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(result))))<<32 | uint64(len(result))
}

func main() {}
