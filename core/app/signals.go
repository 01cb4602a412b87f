package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// WithInterrupts returns a context cancelled by the first SIGINT/SIGTERM
// (graceful: stop sending, export what was measured). A second signal runs
// beforeExit (e.g. killing plugin processes) and exits at once with 130.
func WithInterrupts(parent context.Context, stderr io.Writer, beforeExit ...func()) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stopped := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-stopped:
			return
		}
		fmt.Fprintln(stderr, "\nCancelling: no new requests; exporting what was measured. Press Ctrl+C again to force quit immediately.")
		cancel()
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "Force quit.")
			for _, f := range beforeExit {
				f()
			}
			os.Exit(ExitInterrupted)
		case <-stopped:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(stopped)
		cancel()
	}
}
