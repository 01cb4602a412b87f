package main

import (
	"github.com/aiperf-go/aiperf/core/version"
	"github.com/spf13/cobra"
)

func newRootCmd(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:           "aiperf",
		Short:         "Benchmark generative-AI inference servers (AIPerf-compatible)",
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newProfileCmd(args), newMockServerCmd(), newPluginsCmd(), newAnalyzeTraceCmd(), newSynthesizeCmd())
	root.AddCommand(newPlotCmd())
	root.AddCommand(newCompareCmd())
	root.AddCommand(newAnalyzeCmd(args))
	root.AddCommand(newConfigCmd(args), newCreateTemplateCmd())
	root.AddCommand(newProcessExportCmd())
	return root
}
