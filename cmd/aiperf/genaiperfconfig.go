package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/config/genaiperf"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// errNeedOverride is GenAI-Perf's refusal of CLI options beside a config
// file without --override-config.
var errNeedOverride = errors.New("in order to use the CLI to override the config, the --override-config flag must be set")

// newConfigCmd is GenAI-Perf's `config -f FILE [--override-config ...]`:
// the nested YAML becomes `aiperf profile` flags (or `aiperf analyze`
// with an analyze: section) and runs through that command.
func newConfigCmd(rawArgs []string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config -f FILE [--override-config FLAGS...]",
		Short: "Run a GenAI-Perf YAML config file (GenAI-Perf's config subcommand).",
		Long: "Translate GenAI-Perf's nested YAML configuration (model_names, endpoint, perf_analyzer, input, output,\n" +
			"tokenizer, analyze) into `aiperf profile` flags, or `aiperf analyze` flags when the file has an analyze:\n" +
			"section, and run it. With --override-config, profile flags given after it replace the file's values.\n\n" +
			"  -f, --file FILE       The path to the config file - REQUIRED.\n" +
			"      --override-config An option that allows the user to override values specified in the config file.\n" +
			"      --print-args      Print the translated aiperf command line and exit (aiperf only).",
		Example: "  aiperf config -f genai_perf_config.yaml\n" +
			"  aiperf config -f genai_perf_config.yaml --override-config --warmup-request-count 100 --concurrency 32",
		// Flags after the file are profile flags; parsed by the command run.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenAIPerfConfig(cmd, rawArgs, args)
		},
	}
	return cmd
}

type configArgs struct {
	file      string
	override  bool
	printArgs bool
	help      bool
	extra     []string
}

func parseConfigArgs(args []string) (configArgs, error) {
	var c configArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || a == "--file":
			if i+1 >= len(args) {
				return c, fmt.Errorf("%s needs a file name", a)
			}
			i++
			c.file = args[i]
		case strings.HasPrefix(a, "--file="):
			c.file = strings.TrimPrefix(a, "--file=")
		case a == "--override-config":
			c.override = true
		case a == "--print-args":
			c.printArgs = true
		case a == "-h" || a == "--help":
			c.help = true
		default:
			c.extra = append(c.extra, a)
		}
	}
	if c.help {
		return c, nil
	}
	if c.file == "" {
		return c, errors.New("the config file is required: aiperf config -f FILE")
	}
	if len(c.extra) > 0 && !c.override {
		return c, fmt.Errorf("%w (got %s)", errNeedOverride, strings.Join(c.extra, " "))
	}
	return c, nil
}

// flagNames resolves flags (long, short, aliases) on the command line to
// their canonical names in fs.
func flagNames(fs *pflag.FlagSet, args []string) (map[string]bool, error) {
	names := map[string]bool{}
	for _, a := range config.ExpandMultiValueArgs(args) {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			continue
		}
		var f *pflag.Flag
		if strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			f = fs.Lookup(name)
		} else if len(a) >= 2 {
			f = fs.ShorthandLookup(a[1:2])
		}
		if f == nil {
			// Negative numbers are values, not flags.
			if _, err := fmt.Sscanf(a, "%g", new(float64)); err == nil {
				continue
			}
			return nil, fmt.Errorf("--override-config: unknown flag %s", a)
		}
		names[f.Name] = true
	}
	return names, nil
}

func runGenAIPerfConfig(cmd *cobra.Command, rawArgs, args []string) error {
	c, err := parseConfigArgs(args)
	if err != nil {
		return err
	}
	if c.help {
		return cmd.Help()
	}
	data, err := os.ReadFile(c.file)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	// analyze's flag set is profile's plus the sweep flags.
	fs := newAnalyzeCmd(nil).Flags()
	given, err := flagNames(fs, c.extra)
	if err != nil {
		return err
	}
	opts := genaiperf.Options{Overridden: func(flag string) bool {
		if f := fs.Lookup(flag); f != nil {
			return given[f.Name]
		}
		return false
	}}
	if reg, err := embeddedRegistry(); err == nil {
		opts.EndpointTypes = choices(reg)["endpoint"]
	}
	res, err := genaiperf.Translate(c.file, data, opts)
	if err != nil {
		return err
	}
	argv := append(res.Argv(), c.extra...)
	if c.printArgs {
		fmt.Fprintln(cmd.OutOrStdout(), "aiperf "+strings.Join(argv, " "))
		return nil
	}
	root := newRootCmd(rawArgs)
	root.SetArgs(config.ExpandMultiValueArgs(argv))
	root.SetOut(cmd.OutOrStdout())
	root.SetErr(cmd.ErrOrStderr())
	return root.ExecuteContext(cmd.Context())
}

// newCreateTemplateCmd is GenAI-Perf's `create-template [-f NAME]`.
func newCreateTemplateCmd() *cobra.Command {
	var file string
	var verbose bool
	cmd := &cobra.Command{
		Use:   "create-template",
		Short: "Write a GenAI-Perf config template that `aiperf config -f` runs (GenAI-Perf's create-template).",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := os.WriteFile(file, []byte(genaiperf.Template), 0o644); err != nil {
				return fmt.Errorf("create-template: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Template file written to %s\n", file)
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", genaiperf.DefaultTemplateFile, "The name of the template file to be created.")
	// The template always carries the option descriptions.
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "Include descriptions of each option (always included).")
	return cmd
}
