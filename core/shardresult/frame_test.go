package shardresult

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// payload is a result large enough to need several frames even gzipped.
func payload(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return b
}

func frames(t *testing.T, p []byte) []string {
	t.Helper()
	var buf bytes.Buffer
	sum, err := WriteFrames(&buf, p)
	if err != nil {
		t.Fatal(err)
	}
	if sum != Checksum(p) {
		t.Fatalf("WriteFrames returned %s, want %s", sum, Checksum(p))
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func TestFramesRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []byte
	}{{"empty", []byte{}}, {"small", []byte(`{"version":1}`)}, {"many frames", payload(1, 40000)}} {
		t.Run(c.name, func(t *testing.T) {
			lines := frames(t, c.p)
			if c.name == "many frames" && len(lines) < 4 {
				t.Fatalf("%d lines, want several frames", len(lines))
			}
			for _, l := range lines {
				if len(l) > chunkChars+64 {
					t.Errorf("line of %d chars, over the frame limit", len(l))
				}
			}
			got, sum, err := ReadFrames(strings.NewReader(strings.Join(lines, "\n") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.p) || sum != Checksum(c.p) {
				t.Errorf("round trip gave %d bytes (%s), want %d (%s)", len(got), sum, len(c.p), Checksum(c.p))
			}
		})
	}
}

// Every way a log can lose or garble the result is an error that says
// which; the ways a log legitimately wraps it are read through.
func TestReadFramesCorruption(t *testing.T) {
	p := payload(2, 40000)
	lines := frames(t, p)
	n := len(lines) - 1 // frames before the end line
	if n < 3 {
		t.Fatalf("need 3+ frames, have %d", n)
	}
	other := frames(t, payload(3, 40000))
	join := func(ls ...[]string) string {
		var all []string
		for _, l := range ls {
			all = append(all, l...)
		}
		return strings.Join(all, "\n") + "\n"
	}
	swapped := append([]string{}, lines...)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	badSum := append([]string{}, lines...)
	badSum[n] = endPrefix + Checksum([]byte("x")) + " " + strings.Fields(lines[n])[2]
	badLen := append([]string{}, lines...)
	badLen[n] = strings.Fields(lines[n])[0] + " " + strings.Fields(lines[n])[1] + " 7"
	flipped := append([]string{}, lines...)
	f := []byte(flipped[1])
	i := len(f) - 10
	if f[i] == 'A' {
		f[i] = 'B'
	} else {
		f[i] = 'A'
	}
	flipped[1] = string(f)
	var interleaved []string
	for _, l := range lines {
		interleaved = append(interleaved, `time=2026-01-01T00:00:00Z level=INFO msg="progress 50%"`, l)
	}
	var stamped []string
	for _, l := range lines {
		stamped = append(stamped, "2026-11-26T18:00:00.123456789Z "+l)
	}
	for _, c := range []struct {
		name    string
		log     string
		want    []byte // nil: an error containing errWant
		errWant string
	}{
		{"truncated mid-frames", join(lines[:n-1]), nil, "no end line"},
		{"truncated frame line", join(lines[:1], []string{lines[1][:len(lines[1])/2]}, lines[2:]), nil, ""},
		{"missing end", join(lines[:n]), nil, "no end line"},
		{"missing middle frame", join(lines[:1], lines[2:]), nil, "out of order"},
		{"reordered", join(swapped), nil, "out of order"},
		{"checksum mismatch", join(badSum), nil, "checksum"},
		{"length mismatch", join(badLen), nil, "bytes"},
		{"flipped character", join(flipped), nil, ""},
		{"end without frames", join(lines[n:]), nil, "after 0 of 0 frames"},
		{"malformed frame", join([]string{framePrefix + "1/x abc"}, lines[n:]), nil, "malformed frame number"},
		{"no frames", "plain log line\nanother\n", nil, ErrNoFrames.Error()},
		{"interleaved log lines", join(interleaved), p, ""},
		{"kubectl timestamps", join(stamped), p, ""},
		{"CRLF line ends", strings.ReplaceAll(join(lines), "\n", "\r\n"), p, ""},
		{"restart re-emits", join(lines[:2], lines), p, ""},
		{"two complete results keep the last", join(other, lines), p, ""},
		// A re-emission cut short does not spoil the complete one before it.
		{"restart after a complete result, cut short", join(lines, other[:2]), p, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := ReadFrames(strings.NewReader(c.log))
			if c.want != nil {
				if err != nil || !bytes.Equal(got, c.want) {
					t.Errorf("got %d bytes, err %v; want the payload", len(got), err)
				}
				return
			}
			if err == nil {
				t.Fatalf("read a corrupt log without error (%d bytes)", len(got))
			}
			if !strings.Contains(err.Error(), c.errWant) {
				t.Errorf("err = %v, want it to say %q", err, c.errWant)
			}
			if c.name == "no frames" && !errors.Is(err, ErrNoFrames) {
				t.Errorf("err = %v, want ErrNoFrames", err)
			}
		})
	}
}

func TestTermination(t *testing.T) {
	long := strings.Repeat("x", 10000)
	for _, c := range []Termination{
		{Status: "ok", Checksum: Checksum([]byte("p")), ExitCode: 0},
		{Status: "failed", ExitCode: 7, Reason: long},
	} {
		b := MarshalTermination(c)
		if len(b) > 4096 {
			t.Errorf("termination message of %d bytes, over Kubernetes' 4096", len(b))
		}
		got, err := ParseTermination(append([]byte("  "), b...))
		if err != nil || got.Status != c.Status || got.ExitCode != c.ExitCode || got.Checksum != c.Checksum {
			t.Errorf("round trip %+v: got %+v, %v", c, got, err)
		}
	}
	for _, bad := range []string{"", "{", `{"status":"running"}`} {
		if _, err := ParseTermination([]byte(bad)); err == nil {
			t.Errorf("ParseTermination(%q) accepted", bad)
		}
	}
}
