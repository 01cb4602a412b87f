package hfmedia

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/mewkiz/flac"
)

// PCM is decoded audio: interleaved samples scaled to [-1, 1), as
// soundfile.read returns them.
type PCM struct {
	SampleRate int
	Channels   int
	Samples    []float64 // frames * channels, interleaved
}

// Duration is the clip's length in seconds.
func (p PCM) Duration() float64 {
	if p.SampleRate <= 0 || p.Channels <= 0 {
		return 0
	}
	return float64(len(p.Samples)/p.Channels) / float64(p.SampleRate)
}

// DecodeAudio decodes FLAC or WAV (PCM 8/16/24/32-bit or IEEE float)
// bytes, recognized by their magic bytes. Other formats (MP3, Ogg, Opus)
// are an error: the loaders skip such rows.
func DecodeAudio(b []byte) (PCM, error) {
	switch {
	case bytes.HasPrefix(b, []byte("fLaC")) || bytes.HasPrefix(b, []byte("ID3")):
		return decodeFLAC(b)
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return decodeWAV(b)
	}
	return PCM{}, errors.New("audio is neither FLAC nor WAV")
}

// decodeFLAC decodes with github.com/mewkiz/flac (pure Go), recovering
// from its panics on malformed streams.
func decodeFLAC(b []byte) (p PCM, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed FLAC: %v", r)
		}
	}()
	s, err := flac.New(bytes.NewReader(b))
	if err != nil {
		return PCM{}, fmt.Errorf("FLAC: %w", err)
	}
	defer s.Close()
	ch, bps := int(s.Info.NChannels), int(s.Info.BitsPerSample)
	if ch == 0 || bps == 0 || bps > 32 || s.Info.SampleRate == 0 {
		return PCM{}, fmt.Errorf("FLAC: unusable stream info (%d channels, %d bits, %d Hz)", ch, bps, s.Info.SampleRate)
	}
	scale := 1 / float64(uint64(1)<<(bps-1))
	p = PCM{SampleRate: int(s.Info.SampleRate), Channels: ch}
	if n := s.Info.NSamples; n > 0 && n < 1<<28 {
		p.Samples = make([]float64, 0, int(n)*ch)
	}
	for {
		f, err := s.ParseNext()
		if err == io.EOF {
			break
		}
		if err != nil {
			return PCM{}, fmt.Errorf("FLAC frame: %w", err)
		}
		if len(f.Subframes) != ch {
			return PCM{}, fmt.Errorf("FLAC frame has %d channels, the stream %d", len(f.Subframes), ch)
		}
		n := len(f.Subframes[0].Samples)
		for i := range n {
			for c := range ch {
				if i >= len(f.Subframes[c].Samples) {
					return PCM{}, errors.New("FLAC frame channels differ in length")
				}
				p.Samples = append(p.Samples, float64(f.Subframes[c].Samples[i])*scale)
			}
		}
	}
	return p, nil
}

// decodeWAV reads the fmt and data chunks of a RIFF/WAVE file.
func decodeWAV(b []byte) (PCM, error) {
	var format, ch, bits, rate int
	var data []byte
	for off := 12; off+8 <= len(b); {
		id := string(b[off : off+4])
		size := int(binary.LittleEndian.Uint32(b[off+4 : off+8]))
		body := b[off+8:]
		if size < 0 || size > len(body) {
			size = len(body) // a streamed WAV may leave the data size unset
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return PCM{}, errors.New("WAV fmt chunk too short")
			}
			format = int(binary.LittleEndian.Uint16(body[0:2]))
			ch = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
			if format == 0xFFFE && size >= 26 { // WAVE_FORMAT_EXTENSIBLE: the subformat GUID starts with the tag
				format = int(binary.LittleEndian.Uint16(body[24:26]))
			}
		case "data":
			data = body
		}
		off += 8 + size + size%2
	}
	if ch <= 0 || rate <= 0 || data == nil {
		return PCM{}, errors.New("WAV without a usable fmt or data chunk")
	}
	var bytesPer int
	switch {
	case format == 1 && bits%8 == 0 && bits >= 8 && bits <= 32:
		bytesPer = bits / 8
	case format == 3 && (bits == 32 || bits == 64):
		bytesPer = bits / 8
	default:
		return PCM{}, fmt.Errorf("WAV format %d with %d bits is not supported", format, bits)
	}
	n := len(data) / bytesPer
	n -= n % ch
	p := PCM{SampleRate: rate, Channels: ch, Samples: make([]float64, n)}
	for i := range n {
		s := data[i*bytesPer : (i+1)*bytesPer]
		switch {
		case format == 3 && bytesPer == 4:
			p.Samples[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(s)))
		case format == 3:
			p.Samples[i] = math.Float64frombits(binary.LittleEndian.Uint64(s))
		case bytesPer == 1: // 8-bit WAV is unsigned
			p.Samples[i] = (float64(s[0]) - 128) / 128
		default:
			var v int32
			for k := bytesPer - 1; k >= 0; k-- {
				v = v<<8 | int32(s[k])
			}
			shift := 32 - 8*bytesPer
			v = v << shift >> shift // sign-extend
			p.Samples[i] = float64(v) / float64(int64(1)<<(8*bytesPer-1))
		}
	}
	return p, nil
}

// WAV16 encodes p as a 16-bit PCM WAV file the way soundfile.write does by
// default: each sample scaled by 32767 and rounded half to even
// (libsndfile's lrint), clipped to the 16-bit range.
func WAV16(p PCM) []byte {
	dataLen := len(p.Samples) * 2
	out := make([]byte, 44+dataLen)
	copy(out[0:4], "RIFF")
	binary.LittleEndian.PutUint32(out[4:8], uint32(36+dataLen))
	copy(out[8:16], "WAVEfmt ")
	binary.LittleEndian.PutUint32(out[16:20], 16)
	binary.LittleEndian.PutUint16(out[20:22], 1)
	binary.LittleEndian.PutUint16(out[22:24], uint16(p.Channels))
	binary.LittleEndian.PutUint32(out[24:28], uint32(p.SampleRate))
	binary.LittleEndian.PutUint32(out[28:32], uint32(p.SampleRate*p.Channels*2))
	binary.LittleEndian.PutUint16(out[32:34], uint16(p.Channels*2))
	binary.LittleEndian.PutUint16(out[34:36], 16)
	copy(out[36:40], "data")
	binary.LittleEndian.PutUint32(out[40:44], uint32(dataLen))
	for i, s := range p.Samples {
		v := math.RoundToEven(s * 32767)
		v = math.Max(-32768, math.Min(32767, v))
		binary.LittleEndian.PutUint16(out[44+2*i:], uint16(int16(v)))
	}
	return out
}

// Audio decodes an HF audio value ({bytes, path} or bare bytes) and
// returns it as AIPerf sends it, "wav,<base64 of a 16-bit WAV>", with its
// duration in seconds.
func Audio(v any) (encoded string, durationS float64, err error) {
	b, _, ok := Bytes(v)
	if !ok {
		return "", 0, errors.New("no audio bytes")
	}
	p, err := DecodeAudio(b)
	if err != nil {
		return "", 0, err
	}
	return "wav," + base64.StdEncoding.EncodeToString(WAV16(p)), p.Duration(), nil
}
