// Command rawlegacy implements the ABI by hand, without wasmguest, as a
// record processor built before Configure existed: Describe answers API
// version 1, every other method the error an older wasmguest gives for a
// method it does not know.
package main

import (
	"fmt"
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
	result = result[:0]
	if method == 1 {
		// DescribeResponse{api_version: 1, name: "rawlegacy", categories: ["record_processor"]}
		var desc []byte
		desc = protowire.AppendTag(desc, 1, protowire.VarintType)
		desc = protowire.AppendVarint(desc, 1)
		desc = protowire.AppendTag(desc, 2, protowire.BytesType)
		desc = protowire.AppendString(desc, "rawlegacy")
		desc = protowire.AppendTag(desc, 5, protowire.BytesType)
		desc = protowire.AppendString(desc, "record_processor")
		result = protowire.AppendTag(result, 1, protowire.BytesType)
		result = protowire.AppendBytes(result, desc)
	} else {
		result = protowire.AppendTag(result, 2, protowire.BytesType)
		result = protowire.AppendString(result, fmt.Sprintf("unknown method %d (this plugin speaks API version 1)", method))
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(result))))<<32 | uint64(len(result))
}

func main() {}
