package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aiperf-go/aiperf/core/traceanalysis"
	"github.com/spf13/cobra"
)

type analyzeTraceOptions struct {
	inputFile  string
	blockSize  int
	outputFile string
}

// newAnalyzeTraceCmd is AIPerf 0.13's `aiperf analyze-trace INPUT-FILE
// [BLOCK-SIZE] [OUTPUT-FILE]`: the parameters are positional or flags, as
// cyclopts accepts them.
func newAnalyzeTraceCmd() *cobra.Command {
	var o analyzeTraceOptions
	cmd := &cobra.Command{
		Use:   "analyze-trace INPUT-FILE [BLOCK-SIZE] [OUTPUT-FILE]",
		Short: "Analyze a mooncake trace file for ISL/OSL distributions and cache hit rates",
		Long: "Analyze a mooncake trace file for ISL/OSL distributions and cache hit rates.\n\n" +
			"Prints request and prefix counts and the mean, std dev, min, P25, median, P75\n" +
			"and max of input length, shared context length, unique prompt length, output\n" +
			"length and the per-request theoretical (infinite-cache) hit rate.",
		Args: cobra.MaximumNArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := takePositionals(cmd.Flags(), args,
				positional{"input-file", "input file", setString(&o.inputFile)},
				positional{"block-size", "block size", func(arg string) error {
					n, err := strconv.Atoi(arg)
					if err != nil {
						return fmt.Errorf("invalid block size %q: %w", arg, err)
					}
					o.blockSize = n
					return nil
				}},
				positional{"output-file", "output file", setString(&o.outputFile)})
			if err != nil {
				return err
			}
			return runAnalyzeTrace(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.inputFile, "input-file", "", "Path to input mooncake trace JSONL file")
	f.IntVar(&o.blockSize, "block-size", traceanalysis.DefaultBlockSize, "KV cache block size for analysis")
	f.StringVar(&o.outputFile, "output-file", "", "Optional output path for analysis report (JSON)")
	return cmd
}

func runAnalyzeTrace(cmd *cobra.Command, o analyzeTraceOptions) error {
	if o.inputFile == "" {
		return errors.New("missing input file: aiperf analyze-trace INPUT-FILE")
	}
	if o.blockSize < 1 {
		return fmt.Errorf("--block-size must be at least 1, got %d", o.blockSize)
	}
	stats, err := traceanalysis.AnalyzeFile(o.inputFile, o.blockSize)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	traceanalysis.WriteReport(out, stats)
	if o.outputFile != "" {
		if err := writeAnalysisReport(o.outputFile, stats); err != nil {
			return err
		}
		fmt.Fprintf(out, "Analysis report saved to %s\n", o.outputFile)
	}
	return nil
}

func writeAnalysisReport(path string, stats traceanalysis.Stats) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("output file %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("output file %s: %w", path, err)
	}
	if err := traceanalysis.WriteJSON(f, stats); err != nil {
		f.Close()
		return fmt.Errorf("output file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("output file %s: %w", path, err)
	}
	return nil
}
