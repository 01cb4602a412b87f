package validity

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FileName is the report's file in the artifact directory. It is separate
// from profile_export_aiperf.json, which keeps AIPerf's shape.
const FileName = "validity.json"

// WriteFile writes {"validity": r} to dir/validity.json and returns its path.
func (r *Report) WriteFile(dir string) (string, error) {
	data, err := json.MarshalIndent(struct {
		Validity *Report `json:"validity"`
	}{r}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", FileName, err)
	}
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", FileName, err)
	}
	return path, nil
}

// Print writes the console's "Run validity" block.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\nRun validity: %s\n", r.Verdict)
	for _, why := range r.Reasons {
		fmt.Fprintf(w, "  - %s\n", why)
	}
	for _, note := range r.Notes {
		fmt.Fprintf(w, "  Note: %s\n", note)
	}
	if c := r.ClientCPU; c != nil {
		fmt.Fprintf(w, "  Client CPU: %.1f%% of %d cores (%.2f s CPU over %.2f s)\n", c.UtilizationPct, c.Cores, c.CPUSeconds, c.WallSeconds)
	}
	if q := r.RequestRate; q != nil {
		fmt.Fprintf(w, "  Request rate: %.4g/s achieved of %.4g/s target (%.1f%%), %d sent over %.3f s\n",
			q.Achieved, q.Target, q.Ratio*100, q.Sent, q.WindowSeconds)
	}
	if l := r.ScheduleLag; l != nil {
		fmt.Fprintf(w, "  Schedule lag: p50 %.3f ms, p99 %.3f ms (bound %.3f ms)\n", l.P50Ms, l.P99Ms, l.BoundMs)
	}
	if c := r.Concurrency; c != nil {
		what := "target"
		if r.OpenLoop {
			what = "ceiling"
		}
		fmt.Fprintf(w, "  In flight: %.2f average of %d %s (%.1f%%)\n", c.AvgInFlight, c.Target, what, c.Ratio*100)
	}
	if len(r.Corrected) > 0 {
		fmt.Fprintln(w, "  From the scheduled send (coordinated omission corrected), ms, corrected (measured):")
		for _, c := range r.Corrected {
			fmt.Fprintf(w, "    %-20s p50 %.2f (%.2f)  p90 %.2f (%.2f)  p99 %.2f (%.2f)\n", c.Header,
				c.Corrected.P50, c.Measured.P50, c.Corrected.P90, c.Measured.P90, c.Corrected.P99, c.Measured.P99)
		}
	}
}
