package grpcplugin

import (
	"bytes"
	"testing"
)

// FuzzUnmarshalExportContext: an ExportRequest document decodes or fails
// without a panic, and a decoded context survives encoding again: the
// second round trip gives the same bytes as the first.
func FuzzUnmarshalExportContext(f *testing.F) {
	b, err := MarshalExportContext(sampleExportContext())
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][]byte{b, []byte(`{}`), []byte(`{"results":{"metrics":[{"tag":"x","avg":1e308}]}}`), []byte(`{"results":`), []byte(`null`)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ec, err := UnmarshalExportContext(b)
		if err != nil {
			return
		}
		once, err := MarshalExportContext(ec)
		if err != nil {
			t.Fatalf("re-encoding a decoded context: %v", err)
		}
		ec2, err := UnmarshalExportContext(once)
		if err != nil {
			t.Fatalf("decoding a re-encoded context: %v", err)
		}
		twice, err := MarshalExportContext(ec2)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("second round trip differs (%v):\n%s\n%s", err, once, twice)
		}
	})
}
