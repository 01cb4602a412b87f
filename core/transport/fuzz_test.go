package transport

import (
	"bytes"
	"math/rand/v2"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// FuzzSSEParser checks that the parser never panics and that where a stream
// is split into reads does not change the events it yields.
func FuzzSSEParser(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n",
		"data: a\r\ndata: b\r\n\r\n",
		"data: a\rdata: b\r\r",
		"\xEF\xBB\xBFdata: x\n\n",
		": c\nevent: error\ndata\n\n",
		"data: h\xC3\xA9\n\ndata: [DONE]\n\n",
		"event: e\nid: 1\nretry: 5\ndata:  x\ndata\n\ndata: tail",
		string(chatStream(3)),
	} {
		f.Add([]byte(s), uint64(1))
	}
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		var whole SSEParser
		want := whole.Finish(whole.Feed(nil, stream, 1))
		if ref := referenceParse(stream); !sameEvents(want, ref) {
			t.Fatalf("parser %+v disagrees with the reference %+v", want, ref)
		}

		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var split SSEParser
		var got []sdk.Response
		for off := 0; off < len(stream); {
			n := rng.IntN(len(stream) - off + 1) // 0 allowed: empty reads too
			got = split.Feed(got, stream[off:off+n], 1)
			off += n
		}
		got = split.Finish(got)

		if len(got) != len(want) {
			t.Fatalf("split parse gave %d events, whole parse %d", len(got), len(want))
		}
		for i := range got {
			if got[i].Event != want[i].Event || !bytes.Equal(got[i].Data, want[i].Data) || got[i].PerfNs != 1 {
				t.Fatalf("event %d: split %+v, whole %+v", i, got[i], want[i])
			}
		}
		wc, wok := whole.ErrorComment()
		gc, gok := split.ErrorComment()
		if wc != gc || wok != gok {
			t.Fatalf("error comment: split %q %v, whole %q %v", gc, gok, wc, wok)
		}
	})
}

func sameEvents(a, b []sdk.Response) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Event != b[i].Event || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// referenceParse is a deliberately naive whole-stream parser written from
// the WHATWG text: normalize line endings, split, interpret line by line.
func referenceParse(stream []byte) []sdk.Response {
	s := bytes.TrimPrefix(stream, []byte("\xEF\xBB\xBF"))
	s = bytes.ReplaceAll(s, []byte("\r\n"), []byte("\n"))
	s = bytes.ReplaceAll(s, []byte("\r"), []byte("\n"))
	lines := bytes.Split(s, []byte("\n"))
	lines = append(lines, nil) // EOF dispatches like a blank line

	var out []sdk.Response
	var data, typ []byte
	hasData := false
	for _, l := range lines {
		if len(l) == 0 {
			if hasData || bytes.EqualFold(typ, []byte("error")) {
				out = append(out, sdk.Response{Event: string(typ), Data: append([]byte{}, data...)})
			}
			data, typ, hasData = nil, nil, false
			continue
		}
		name, value, found := bytes.Cut(l, []byte(":"))
		if found {
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(name) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		case "event":
			typ = append([]byte{}, value...)
		}
	}
	return out
}
