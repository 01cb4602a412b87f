package dcgm

import (
	"math"
	"testing"
)

// FuzzParse: any page parses or fails without a panic; readings come out
// in index order, one per GPU, with finite values.
func FuzzParse(f *testing.F) {
	for _, s := range []string{page, "", "# EOF\n", "DCGM_FI_DEV_GPU_UTIL{gpu=\"01\"} 5\nDCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 6\n",
		"# TYPE DCGM_FI_DEV_POWER_USAGE histogram\nDCGM_FI_DEV_POWER_USAGE_bucket{gpu=\"0\",le=\"+Inf\"} 1\n",
		"DCGM_FI_DEV_GPU_UTIL{gpu=\"-1\"} 1e308\nDCGM_FI_PROF_SM_ACTIVE{gpu=\"-1\"} 1e308\n", "<html>\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		readings, err := Parse(body)
		if err != nil {
			return
		}
		for i, r := range readings {
			if i > 0 && r.Index <= readings[i-1].Index {
				t.Fatalf("GPU %d after GPU %d", r.Index, readings[i-1].Index)
			}
			if len(r.Metrics) == 0 {
				t.Fatalf("GPU %d has no metrics", r.Index)
			}
			for k, v := range r.Metrics {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("GPU %d: %s is %v", r.Index, k, v)
				}
			}
		}
	})
}
