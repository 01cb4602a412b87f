package mockserver

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// solidPNG returns a valid w×h PNG of one colour: a 1-bit paletted image
// whose pixel data is all zeros, so only the palette differs between
// colours and the compressed pixel data can be shared by every image of a
// size. Even a 4096×4096 image stays a few kilobytes.
func solidPNG(w, h int, rgb [3]byte) []byte {
	idat := pngPixelData(w, h)
	out := make([]byte, 0, 8+25+15+12+len(idat)+12)
	out = append(out, "\x89PNG\r\n\x1a\n"...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8] = 1 // bit depth
	ihdr[9] = 3 // colour type: palette
	// compression, filter and interlace methods stay 0.
	out = appendPNGChunk(out, "IHDR", ihdr[:])
	out = appendPNGChunk(out, "PLTE", rgb[:])
	out = appendPNGChunk(out, "IDAT", idat)
	return appendPNGChunk(out, "IEND", nil)
}

func appendPNGChunk(dst []byte, typ string, data []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(data)))
	start := len(dst)
	dst = append(dst, typ...)
	dst = append(dst, data...)
	return binary.BigEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start:]))
}

// pngDataCache holds the compressed pixel data per size; clients ask for a
// handful of sizes, and maxPNGDataCache bounds a client that asks for many.
var (
	pngDataMu    sync.Mutex
	pngDataCache = map[[2]int][]byte{}
)

const maxPNGDataCache = 64

// pngPixelData is the zlib stream of h rows, each a filter byte and
// ceil(w/8) zero bytes (palette index 0 everywhere).
func pngPixelData(w, h int) []byte {
	key := [2]int{w, h}
	pngDataMu.Lock()
	data, ok := pngDataCache[key]
	pngDataMu.Unlock()
	if ok {
		return data
	}
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression) // the level is valid
	row := make([]byte, 1+(w+7)/8)
	for range h {
		_, _ = zw.Write(row) // a bytes.Buffer does not fail
	}
	_ = zw.Close()
	data = buf.Bytes()
	pngDataMu.Lock()
	if len(pngDataCache) < maxPNGDataCache {
		pngDataCache[key] = data
	}
	pngDataMu.Unlock()
	return data
}
