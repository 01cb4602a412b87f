package media

import (
	"encoding/binary"
	"errors"
)

// WAV is written with the standard library: the format is a 44-byte header
// and little-endian samples, and writing it here pins the exact bytes
// libsndfile produces for AIPerf (plain PCM fmt chunk for every depth, a pad
// byte after an odd-sized data chunk), which a general WAV library need not.

// wavHeaderSize is the RIFF/WAVE header with a 16-byte fmt chunk.
const wavHeaderSize = 44

// encodeWAV writes samples (clipped to [-1, 1], frames interleaved) as PCM
// at depth bits. Scaling follows AIPerf: the float is multiplied by
// 2^(bits-1)-1 and truncated to an int16 (8 and 16 bits) or int32 (24 and
// 32 bits), which libsndfile then narrows: 8-bit keeps the high byte
// offset by 128 (PCM_U8), 24-bit keeps the top three bytes of the int32,
// so AIPerf's 24-bit noise sits 8 bits below full scale; that is what it
// sends, so it is what we send.
func encodeWAV(samples []float64, rate, channels, bits int) []byte {
	width := bits / 8
	dataSize := len(samples) * width
	pad := dataSize & 1
	b := make([]byte, wavHeaderSize, wavHeaderSize+dataSize+pad)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+dataSize+pad))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // WAVE_FORMAT_PCM
	binary.LittleEndian.PutUint16(b[22:], uint16(channels))
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(rate*channels*width))
	binary.LittleEndian.PutUint16(b[32:], uint16(channels*width))
	binary.LittleEndian.PutUint16(b[34:], uint16(bits))
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(dataSize))

	for _, s := range samples {
		switch bits {
		case 8:
			v := int16(s * 32767)
			b = append(b, byte(int(v>>8)+128))
		case 16:
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(s*32767)))
		case 24:
			v := uint32(int32(s * (1<<23 - 1)))
			b = append(b, byte(v>>8), byte(v>>16), byte(v>>24))
		case 32:
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(s*(1<<31-1))))
		}
	}
	if pad == 1 {
		b = append(b, 0)
	}
	return b
}

// wavInfo is what a WAV header says about its samples.
type wavInfo struct {
	Format     uint16 // 1 = PCM, 3 = float, 0xFFFE = extensible
	Channels   int
	SampleRate int
	Bits       int
	BlockAlign int
	DataSize   int // bytes of sample data actually present
}

// Duration is the clip length in seconds.
func (w wavInfo) Duration() float64 {
	if w.SampleRate <= 0 || w.BlockAlign <= 0 {
		return 0
	}
	return float64(w.DataSize/w.BlockAlign) / float64(w.SampleRate)
}

// parseWAV reads the fmt and data chunks of a RIFF/WAVE file.
func parseWAV(b []byte) (wavInfo, error) {
	var w wavInfo
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return w, errors.New("not a RIFF/WAVE file")
	}
	haveFmt := false
	for off := 12; off+8 <= len(b); {
		id := string(b[off : off+4])
		size := int(binary.LittleEndian.Uint32(b[off+4:]))
		body := b[off+8:]
		switch id {
		case "fmt ":
			if size < 16 || len(body) < 16 {
				return w, errors.New("short fmt chunk")
			}
			w.Format = binary.LittleEndian.Uint16(body[0:])
			w.Channels = int(binary.LittleEndian.Uint16(body[2:]))
			w.SampleRate = int(binary.LittleEndian.Uint32(body[4:]))
			w.BlockAlign = int(binary.LittleEndian.Uint16(body[12:]))
			w.Bits = int(binary.LittleEndian.Uint16(body[14:]))
			haveFmt = true
		case "data":
			if !haveFmt {
				return w, errors.New("data chunk before fmt chunk")
			}
			// Streamed WAVs may leave the size at 0 or 0xFFFFFFFF.
			w.DataSize = min(size, len(body))
			if size == 0 || size == 0xFFFFFFFF {
				w.DataSize = len(body)
			}
			return w, nil
		}
		if size < 0 || size > len(b) {
			break
		}
		off += 8 + size + size&1
	}
	return w, errors.New("no data chunk")
}
