// Command nvmlprobe measures the nvml collector on a real GPU machine: Init
// cost, the cost of one sample (every GPU, every field AIPerf's pynvml
// collector reads) and which fields each GPU reported. For the lead's
// docs/PERFORMANCE.md figures:
//
//	CGO_CFLAGS=-Wno-deprecated-declarations go run ./plugins/builtin/gputelemetry/nvml/nvmlprobe -n 100
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/nvml"
)

func main() {
	n := flag.Int("n", 100, "samples to time")
	flag.Parse()
	c := nvml.New()
	defer c.Close()
	ctx := context.Background()

	t0 := time.Now()
	first, err := c.Sample(ctx) // includes nvml.Init and device enumeration
	if err != nil {
		fmt.Fprintln(os.Stderr, "nvmlprobe:", err)
		os.Exit(1)
	}
	initAndFirst := time.Since(t0)
	durs := make([]time.Duration, 0, *n)
	for range *n {
		t := time.Now()
		if _, err := c.Sample(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "nvmlprobe:", err)
			os.Exit(1)
		}
		durs = append(durs, time.Since(t))
	}
	slices.Sort(durs)
	fmt.Printf("init + first sample: %v\n", initAndFirst)
	if len(durs) > 0 {
		fmt.Printf("sample (%d GPUs, %d runs): p50 %v  p99 %v  max %v\n", len(first), len(durs),
			durs[len(durs)/2], durs[len(durs)*99/100], durs[len(durs)-1])
	}
	for _, g := range first {
		keys := make([]string, 0, len(g.Metrics))
		for k := range g.Metrics {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Printf("GPU %d %s %s %s: %d fields\n", g.Index, g.UUID, g.Name, g.PCIBusID, len(keys))
		for _, k := range keys {
			fmt.Printf("  %-28s %g\n", k, g.Metrics[k])
		}
	}
}
