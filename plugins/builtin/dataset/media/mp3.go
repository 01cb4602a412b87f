package media

// mp3Duration walks the MPEG audio frames of an MP3 file and returns the
// decoded length in seconds, 0 when the bytes do not parse. A leading
// ID3v2 tag and a Xing/Info (LAME) header frame, which carries no audio,
// are skipped; encoder delay and padding are not subtracted.
func mp3Duration(b []byte) float64 {
	off := 0
	if len(b) >= 10 && string(b[0:3]) == "ID3" {
		size := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
		off = 10 + size
		if b[5]&0x10 != 0 { // footer present
			off += 10
		}
	}
	samples, rate := 0, 0
	for first := true; off+4 <= len(b); first = false {
		f, ok := parseMP3Frame(b[off:])
		if !ok || f.length <= 0 {
			break
		}
		if !(first && f.isInfoFrame(b[off:])) {
			samples += f.samples
		}
		rate = f.rate
		off += f.length
	}
	if rate == 0 {
		return 0
	}
	return float64(samples) / float64(rate)
}

type mp3Frame struct {
	mpeg1         bool // else MPEG-2 or 2.5
	mono          bool
	layer         int
	rate, samples int
	length        int
}

var (
	mp3Rates = [3][3]int{ // [version: 1, 2, 2.5][index]
		{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000},
	}
	// kbit/s by [MPEG-1 L1, L2, L3, MPEG-2/2.5 L1, L2+L3][index].
	mp3Bitrates = [5][15]int{
		{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
		{0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256},
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
	}
)

// parseMP3Frame decodes the 4-byte frame header at the start of b.
func parseMP3Frame(b []byte) (mp3Frame, bool) {
	var f mp3Frame
	if b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return f, false
	}
	ver := (b[1] >> 3) & 3 // 0 = 2.5, 2 = 2, 3 = 1
	layerBits := (b[1] >> 1) & 3
	brIdx := int(b[2] >> 4)
	srIdx := int((b[2] >> 2) & 3)
	pad := int((b[2] >> 1) & 1)
	if ver == 1 || layerBits == 0 || brIdx == 0 || brIdx == 15 || srIdx == 3 {
		return f, false // reserved, or free format (length unknown)
	}
	f.layer = int(4 - layerBits)
	f.mpeg1 = ver == 3
	f.mono = b[3]>>6 == 3
	vi := 0 // row of mp3Rates
	switch ver {
	case 2:
		vi = 1
	case 0:
		vi = 2
	}
	f.rate = mp3Rates[vi][srIdx]
	var table int
	switch {
	case f.mpeg1:
		table = f.layer - 1
	case f.layer == 1:
		table = 3
	default:
		table = 4
	}
	br := mp3Bitrates[table][brIdx] * 1000
	switch {
	case f.layer == 1:
		f.samples = 384
		f.length = (12*br/f.rate + pad) * 4
	case f.layer == 3 && !f.mpeg1:
		f.samples = 576
		f.length = 72*br/f.rate + pad
	default:
		f.samples = 1152
		f.length = 144*br/f.rate + pad
	}
	return f, true
}

// isInfoFrame reports whether the frame in b is a Xing/Info header frame:
// the tag sits right after the Layer III side information.
func (f mp3Frame) isInfoFrame(b []byte) bool {
	if f.layer != 3 {
		return false
	}
	side := 17
	switch {
	case f.mpeg1 && !f.mono:
		side = 32
	case !f.mpeg1 && f.mono:
		side = 9
	}
	at := 4 + side
	if b[1]&1 == 0 { // a CRC follows the header
		at += 2
	}
	if at+4 > len(b) {
		return false
	}
	tag := string(b[at : at+4])
	return tag == "Xing" || tag == "Info"
}
