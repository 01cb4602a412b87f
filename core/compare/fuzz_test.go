package compare

import (
	"strings"
	"testing"
)

// FuzzReadRun reads a run directory of fuzzed summary and records as
// `aiperf compare` does: an error names the file at fault; a run that
// reads has one value list per unit-bearing metric, no longer than the
// request count.
func FuzzReadRun(f *testing.F) {
	f.Add(testSummary, `{"metadata":{"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":20,"unit":"ms"},"inter_chunk_latency":{"value":[1,2],"unit":"ms"}},"error":null}`)
	f.Add(testSummary, `{"metadata":{"benchmark_phase":"warmup"},"metrics":{"time_to_first_token":{"value":"x","unit":5}}}`+"\n{")
	f.Add(`{"input_config": {"endpoint": {"type": 5}}}`, "")
	f.Fuzz(func(t *testing.T, summary, records string) {
		dir := writeRunFiles(t, summary, records)
		r, err := ReadRun(dir)
		if err != nil {
			if !strings.Contains(err.Error(), dir) && !strings.Contains(err.Error(), "profile_export") {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		for tag, vs := range r.Values {
			if len(vs) > r.Requests {
				t.Fatalf("%s: %d values from %d requests", tag, len(vs), r.Requests)
			}
		}
	})
}

// FuzzParseTolerance: an error quotes the flag and value; a tolerance has
// a finite, non-negative amount and a known statistic.
func FuzzParseTolerance(f *testing.F) {
	for _, s := range []string{"time_to_first_token:p99:+5%", "request_throughput:avg:-2", "a:avg:1", "a:P50: 3 %", "a:avg:+-1", ":avg:1", "a:b:c:d", "a:avg:1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tol, err := ParseTolerance(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--tolerance ") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			return
		}
		if tol.Amount < 0 || tol.Amount != tol.Amount || tol.Metric == "" || tol.Sign < -1 || tol.Sign > 1 {
			t.Fatalf("tolerance %+v", tol)
		}
		tol.Value()
	})
}
