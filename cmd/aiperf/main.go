// Command aiperf benchmarks generative-AI inference servers: a drop-in for
// NVIDIA AIPerf's CLI, metric semantics and artifact files.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/aiperf-go/aiperf/core/config"
)

func main() {
	os.Exit(profiled(func() int { return run(context.Background(), os.Args[1:], os.Stdout, os.Stderr) }))
}

// profiled writes a CPU profile of fn to $AIPERF_CPUPROFILE and a heap
// profile (allocations over the whole run, and what was live at the last
// collection) to $AIPERF_MEMPROFILE when set: the way docs/PERFORMANCE.md
// finds where the client spends its cycles and its memory.
func profiled(fn func() int) int {
	if path := os.Getenv("AIPERF_MEMPROFILE"); path != "" {
		defer writeHeapProfile(path)
	}
	path := os.Getenv("AIPERF_CPUPROFILE")
	if path == "" {
		return fn()
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "AIPERF_CPUPROFILE:", err)
		return 1
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "AIPERF_CPUPROFILE:", err)
		return 1
	}
	defer pprof.StopCPUProfile()
	return fn()
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "AIPERF_MEMPROFILE:", err)
		return
	}
	defer f.Close()
	runtime.GC() // the profile counts allocations up to the last collection
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, "AIPERF_MEMPROFILE:", err)
	}
}

// exitError carries a specific exit status out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// run executes the CLI and returns the process exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(args)
	// AIPerf accepts "--extra-inputs a:1 b:2"; pflag needs one value per flag.
	root.SetArgs(config.ExpandMultiValueArgs(args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(stderr, "Error:", err)
	return 1
}
