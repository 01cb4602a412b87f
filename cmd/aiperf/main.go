// Command aiperf benchmarks generative-AI inference servers: a drop-in for
// NVIDIA AIPerf's CLI, metric semantics and artifact files.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aiperf-go/aiperf/core/config"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
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
