package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/core/tracesynth"
	"github.com/spf13/cobra"
)

type synthesizeOptions struct {
	inputFile, outputFile string
	blockSize             int
	seed                  int64
	synth                 tracesynth.Options
}

// agenticCodeTarget is AIPerf 0.13's only `synthesize` target (its
// agentic-code session generator), which this port does not have.
const agenticCodeTarget = "agentic-code"

// newSynthesizeCmd is `aiperf synthesize INPUT-FILE OUTPUT-FILE`: AIPerf
// 0.13's trace synthesis (the --synthesis-* options `aiperf profile`
// applies to a mooncake trace when it loads it) written out as a new
// trace, so the result can be inspected, analyzed and replayed without the
// options. AIPerf 0.13's own `synthesize` command only generates its
// agentic-code workload; that target is refused by name.
func newSynthesizeCmd() *cobra.Command {
	var o synthesizeOptions
	var speedup, prefixLen, promptLen, outputLen float64
	var root, maxISL, maxOSL int
	cmd := &cobra.Command{
		Use:   "synthesize INPUT-FILE OUTPUT-FILE",
		Short: "Write a mooncake trace transformed by the --synthesis-* options",
		Long: "Write a mooncake trace transformed by the --synthesis-* options, as `aiperf profile`\n" +
			"applies them when it loads the trace: records with input_length over --synthesis-max-isl\n" +
			"are dropped, timestamps divided by the speedup ratio, shared hash_ids prefixes and unique\n" +
			"prompt tails scaled, records spread over --synthesis-prefix-root-multiplier disjoint\n" +
			"prefix trees (drawn with --random-seed), output lengths scaled and capped. Records keep\n" +
			"their order and every other field. Replaying the output without the options sends what\n" +
			"replaying the input with them sends.",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := cmd.Flags()
			err := takePositionals(f, args,
				positional{"input-file", "input file", setString(&o.inputFile)},
				positional{"output-file", "output file", setString(&o.outputFile)})
			if err != nil {
				return err
			}
			for _, v := range []struct {
				flag string
				f    *float64
				dst  **float64
			}{
				{"synthesis-speedup-ratio", &speedup, &o.synth.SpeedupRatio},
				{"synthesis-prefix-len-multiplier", &prefixLen, &o.synth.PrefixLenMultiplier},
				{"synthesis-prompt-len-multiplier", &promptLen, &o.synth.PromptLenMultiplier},
				{"synthesis-output-len-multiplier", &outputLen, &o.synth.OutputLenMultiplier},
			} {
				if f.Changed(v.flag) {
					*v.dst = v.f
				}
			}
			for _, v := range []struct {
				flag string
				i    *int
				dst  **int
			}{
				{"synthesis-prefix-root-multiplier", &root, &o.synth.PrefixRootMultiplier},
				{"synthesis-max-isl", &maxISL, &o.synth.MaxISL},
				{"synthesis-max-osl", &maxOSL, &o.synth.MaxOSL},
			} {
				if f.Changed(v.flag) {
					*v.dst = v.i
				}
			}
			return runSynthesize(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.inputFile, "input-file", "", "Path to the input mooncake trace JSONL file")
	f.StringVar(&o.outputFile, "output-file", "", "Path of the synthesized trace JSONL file to write")
	f.IntVar(&o.blockSize, "block-size", tracesynth.DefaultBlockSize, "Tokens per hash_ids block (the --isl-block-size the trace is replayed with)")
	f.Int64Var(&o.seed, "random-seed", 42, "Seed of the prefix-root-multiplier draws (the same --random-seed in aiperf profile draws the same trees)")
	f.Int64Var(&o.seed, "seed", 42, "Alias of --random-seed")
	f.Float64Var(&speedup, "synthesis-speedup-ratio", 1, "Multiplier for timestamp scaling: each timestamp is divided by it (2.0 replays twice as fast)")
	f.Float64Var(&prefixLen, "synthesis-prefix-len-multiplier", 1, "Multiplier for the shared prefix (core radix-tree branch) lengths")
	f.IntVar(&root, "synthesis-prefix-root-multiplier", 1, "Number of independent radix trees (disjoint hash_ids) to distribute traces across")
	f.Float64Var(&promptLen, "synthesis-prompt-len-multiplier", 1, "Multiplier for leaf path (unique prompt) lengths")
	f.Float64Var(&outputLen, "synthesis-output-len-multiplier", 1, "Multiplier for output lengths (rounded, at least 1)")
	f.IntVar(&maxISL, "synthesis-max-isl", 0, "Drop records with input_length above this (unset: keep all)")
	f.IntVar(&maxOSL, "synthesis-max-osl", 0, "Cap output_length at this (unset: no cap)")
	return cmd
}

func runSynthesize(cmd *cobra.Command, o synthesizeOptions) error {
	switch {
	case o.inputFile == agenticCodeTarget && !fileExists(o.inputFile):
		return errors.New("aiperf synthesize agentic-code (AIPerf 0.13's agentic-code workload generator) is not implemented; " +
			"this command synthesizes mooncake traces: aiperf synthesize INPUT-FILE OUTPUT-FILE [--synthesis-* options]")
	case o.inputFile == "":
		return errors.New("missing input file: aiperf synthesize INPUT-FILE OUTPUT-FILE")
	case o.outputFile == "":
		return errors.New("missing output file: aiperf synthesize INPUT-FILE OUTPUT-FILE")
	case o.seed < 0:
		return fmt.Errorf("--random-seed must be >= 0 (got %d)", o.seed)
	}
	p, err := o.synth.Params(o.blockSize)
	if err != nil {
		return err
	}
	traces, err := tracesynth.ReadFile(cmd.Context(), o.inputFile)
	if err != nil {
		return err
	}
	res, err := tracesynth.Apply(traces, p, o.seed)
	if err != nil {
		return fmt.Errorf("%s: %w", o.inputFile, err)
	}
	if err := writeTrace(o.outputFile, res.InputOrder()); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	for _, msg := range res.Summary(p) {
		fmt.Fprintln(out, msg)
	}
	fmt.Fprintf(out, "Synthesized %d of %d traces into %s\n", len(res.Traces), len(traces), o.outputFile)
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func writeTrace(path string, traces []*tracesynth.Trace) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("output file %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("output file %s: %w", path, err)
	}
	if err := tracesynth.Write(f, traces); err != nil {
		f.Close()
		return fmt.Errorf("output file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("output file %s: %w", path, err)
	}
	return nil
}
