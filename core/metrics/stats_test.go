package metrics

import (
	"slices"
	"testing"
)

// Expected values are numpy.percentile(method="linear") and numpy.std(ddof=0).
func TestComputeStatsMatchesNumpyLinear(t *testing.T) {
	cases := []struct {
		name   string
		values []float64
		want   Stats
	}{
		{"one to ten", []float64{7, 3, 10, 1, 5, 2, 9, 4, 8, 6}, Stats{
			Avg: 5.5, Min: 1, Max: 10,
			P1: 1.09, P5: 1.45, P10: 1.9, P25: 3.25, P50: 5.5, P75: 7.75, P90: 9.1, P95: 9.55, P99: 9.91,
			Std: 2.8722813232690143, Count: 10, Sum: 55,
		}},
		{"population std 2", []float64{2, 4, 4, 4, 5, 5, 7, 9}, Stats{
			Avg: 5, Min: 2, Max: 9,
			P1: 2.14, P5: 2.7, P10: 3.4, P25: 4, P50: 4.5, P75: 5.5, P90: 7.6, P95: 8.3, P99: 8.86,
			Std: 2, Count: 8, Sum: 40,
		}},
		{"single value", []float64{42}, Stats{
			Avg: 42, Min: 42, Max: 42, P1: 42, P5: 42, P10: 42, P25: 42, P50: 42, P75: 42, P90: 42, P95: 42, P99: 42,
			Std: 0, Count: 1, Sum: 42,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeStats(tc.values)
			g := []float64{got.Avg, got.Min, got.Max, got.P1, got.P5, got.P10, got.P25, got.P50, got.P75, got.P90, got.P95, got.P99, got.Std, got.Sum}
			w := []float64{tc.want.Avg, tc.want.Min, tc.want.Max, tc.want.P1, tc.want.P5, tc.want.P10, tc.want.P25, tc.want.P50, tc.want.P75, tc.want.P90, tc.want.P95, tc.want.P99, tc.want.Std, tc.want.Sum}
			names := []string{"avg", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std", "sum"}
			for i := range g {
				if !near(g[i], w[i]) {
					t.Errorf("%s = %v, want %v", names[i], g[i], w[i])
				}
			}
			if got.Count != tc.want.Count {
				t.Errorf("count = %d, want %d", got.Count, tc.want.Count)
			}
		})
	}
}

func TestComputeStatsLeavesInputAlone(t *testing.T) {
	in := []float64{3, 1, 2}
	ComputeStats(in)
	if !slices.Equal(in, []float64{3, 1, 2}) {
		t.Fatalf("input reordered to %v", in)
	}
	if s := ComputeStats(nil); s != (Stats{}) {
		t.Fatalf("ComputeStats(nil) = %+v, want zero", s)
	}
}

func TestStatsScaleToDisplayUnit(t *testing.T) {
	s := ComputeStats([]float64{1e6, 3e6}).scaled(nsPerMs)
	if s.Avg != 2 || s.Min != 1 || s.Max != 3 || s.Std != 1 || s.Sum != 4 || s.Count != 2 {
		t.Fatalf("scaled stats = %+v, want avg 2 min 1 max 3 std 1 sum 4 count 2 (ms)", s)
	}
}
