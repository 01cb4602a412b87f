//go:build wasip1

package wasmguest

import (
	"fmt"
	"unsafe"
)

// allocs keeps the buffers handed to the host alive (Go's GC does not move
// objects, so their addresses stay valid while referenced here).
var allocs = map[uint32][]byte{}

//lint:ignore U1000 called by the host (go:wasmexport)
//go:wasmexport aiperf_alloc
func aiperfAlloc(size uint32) uint32 {
	buf := make([]byte, max(size, 1))
	ptr := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	allocs[ptr] = buf
	return ptr
}

//lint:ignore U1000 called by the host (go:wasmexport)
//go:wasmexport aiperf_free
func aiperfFree(ptr uint32) {
	delete(allocs, ptr)
}

//lint:ignore U1000 called by the host (go:wasmexport)
//go:wasmexport aiperf_call
func aiperfCall(method, ptr, size uint32) uint64 {
	var out []byte
	if req, err := requestBytes(ptr, size); err != nil {
		errResult = encodeResult(errResult[:0], nil, fmt.Errorf("%s: %w", Method(method), err))
		out = errResult
	} else {
		out = serve(current, Method(method), req)
	}
	if len(out) == 0 {
		return 0
	}
	return uint64(uintptr(unsafe.Pointer(unsafe.SliceData(out))))<<32 | uint64(len(out))
}

// errResult holds an ABI-level error result until the next call, the way
// the server holds a served one.
var errResult []byte

// requestBytes finds the request the host wrote into a buffer it got from
// aiperf_alloc; any other pointer is refused rather than read blindly.
func requestBytes(ptr, size uint32) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	buf, ok := allocs[ptr]
	if !ok {
		return nil, fmt.Errorf("request pointer %#x was not returned by aiperf_alloc", ptr)
	}
	if uint32(len(buf)) < size {
		return nil, fmt.Errorf("request of %d bytes overflows its %d-byte buffer", size, len(buf))
	}
	return buf[:size], nil
}
