package validity

import "testing"

// The spans list keeps every record in order across its chunks.
func TestChunkedKeepsOrderAcrossChunks(t *testing.T) {
	var c chunked[span]
	const n = 3*chunkLen + 5
	for i := range n {
		c.add(span{int64(i), int64(2 * i)})
	}
	i := 0
	c.each(func(sp span) {
		if sp.start != int64(i) || sp.end != int64(2*i) {
			t.Fatalf("span %d = %+v", i, sp)
		}
		i++
	})
	if i != n || len(c.chunks) != 4 {
		t.Fatalf("%d spans in %d chunks, want %d in 4", i, len(c.chunks), n)
	}
}
