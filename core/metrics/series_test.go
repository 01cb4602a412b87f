package metrics

import (
	"slices"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Values must survive chunk boundaries exactly and in order.
func TestSeriesAcrossChunks(t *testing.T) {
	cases := []struct {
		name   string
		scalar int // scalars added first
		lists  []int
	}{
		{"empty", 0, nil},
		{"one chunk", 10, nil},
		{"exactly first chunk", firstChunk, nil},
		{"list straddles chunks", firstChunk - 3, []int{10}},
		{"many lists past max chunk", 5, []int{maxChunk, maxChunk + 7, 99}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s series
			var want []float64
			next := 0.0
			for range tc.scalar {
				s.addValue(sdk.MetricValue{Scalar: next})
				want = append(want, next)
				next++
			}
			for _, n := range tc.lists {
				l := make([]float64, n)
				for i := range l {
					l[i] = next
					next++
				}
				s.addValue(sdk.MetricValue{List: l, IsList: true})
				want = append(want, l...)
			}
			got := s.values()
			if s.len() != len(want) || !slices.Equal(got, want) {
				t.Fatalf("len %d, values equal %v; want %d values", s.len(), slices.Equal(got, want), len(want))
			}
			wantSum := 0.0
			for _, x := range want {
				wantSum += x
			}
			if s.sum() != wantSum {
				t.Fatalf("sum = %v, want %v", s.sum(), wantSum)
			}
			for _, c := range s.chunks {
				if cap(c) > maxChunk {
					t.Fatalf("chunk capacity %d exceeds %d", cap(c), maxChunk)
				}
			}
		})
	}
}
