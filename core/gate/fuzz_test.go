package gate

import (
	"strings"
	"testing"
)

// FuzzParseThresholds: an error quotes the offending expression; every
// parsed threshold reads back from its String() unchanged.
func FuzzParseThresholds(f *testing.F) {
	for _, s := range []string{"time_to_first_token:p99<200", "request_error_rate:avg<=0.01 goodput:avg>=12.5", "request_count:avg>-3",
		"time_to_first_token:p99<=<5", "ttft:avg<", "a:p50<1 a:p50<2", "x:std>1e308", "m:max>=0x1p-2", "m:min<1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, item string) {
		ts, err := ParseThresholds([]string{item})
		if err != nil {
			if !strings.HasPrefix(err.Error(), `"`) {
				t.Fatalf("error does not quote the expression: %v", err)
			}
			return
		}
		if len(ts) != len(strings.Fields(item)) {
			t.Fatalf("%d thresholds from %d expressions", len(ts), len(strings.Fields(item)))
		}
		for _, th := range ts {
			back, err := ParseThresholds([]string{th.String()})
			if err != nil || len(back) != 1 || back[0] != th {
				t.Fatalf("%+v prints as %q, which reads back as %+v (%v)", th, th.String(), back, err)
			}
		}
	})
}
