package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func renderHelp(t *testing.T, cmd *cobra.Command) string {
	t.Helper()
	var buf bytes.Buffer
	cmd.SetOut(&buf)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestHelpGroupsAndAliases(t *testing.T) {
	root := &cobra.Command{Use: "aiperf"}
	cmd := &cobra.Command{Use: "profile", Short: "Run the Profile subcommand.", RunE: func(*cobra.Command, []string) error { return nil }}
	RegisterProfileFlags(cmd)
	AnnotateChoices(cmd, testChoices)
	// A flag owned by another package joins a group through annotations.
	cmd.Flags().Float64("foreign-knob", 0, "A knob another package owns.")
	_ = cmd.Flags().SetAnnotation("foreign-knob", GroupAnnotation, []string{GroupLoadGenerator})
	root.AddCommand(cmd)
	root.SetArgs([]string{"profile", "--help"})
	var buf bytes.Buffer
	root.SetOut(&buf)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()

	// Headings appear once each, in the reference's order.
	headings := []string{"\nEndpoint:\n", "\nInput:\n", "\nInput Sequence Length (ISL):\n", "\nOutput Sequence Length (OSL):\n",
		"\nConversation Input:\n", "\nOutput:\n", "\nTokenizer:\n", "\nLoad Generator:\n", "\nService:\n", "\nConfiguration File:\n", "\nOther:\n"}
	last := -1
	for _, h := range headings {
		i := strings.Index(out, h)
		if i < 0 {
			t.Fatalf("heading %q missing from help:\n%s", h, out)
		}
		if strings.Count(out, h) != 1 {
			t.Errorf("heading %q printed %d times", h, strings.Count(out, h))
		}
		if i < last {
			t.Errorf("heading %q out of order", h)
		}
		last = i
	}
	lines := []string{
		"Run the Profile subcommand.",
		"Usage:\n  aiperf profile [flags]",
		"  -m, --model-names, --model <list>  (required)",
		"  --custom-endpoint, --endpoint <str>",
		"  -u, --url <list>",
		"      Default: localhost:8000",
		"      Default: 21600",
		"      Choices: chat, completions",
		"  -H, --header <list>",
		"  --prompt-input-tokens-mean, --synthetic-input-tokens-mean, --isl <int>",
		"      Default: 550",
		"  --prompt-output-tokens-stddev, --output-tokens-stddev, --osl-stddev <float>",
		"  --num-dataset-entries, --num-prompts <int>",
		"  --output-artifact-dir, --artifact-dir <str>",
		"      Default: artifacts",
		"  --profile-export-prefix, --profile-export-file <str>",
		"  --export-level, --profile-export-level <str>",
		"      Default: records",
		"      Choices: summary, records, raw",
		"  --request-count, --num-requests <int>",
		"      Default: max(10, concurrency * 2)",
		"  --warmup-request-count, --num-warmup-requests <int>",
		"  --foreign-knob <float64>",
		"  --model-selection-strategy <str>",
		"      Choices: round_robin, random",
		"  --url-strategy <str>",
		"  --connection-reuse-strategy <str>",
		"      Choices: pooled, never, sticky-user-sessions",
		"  --input-file <str>",
		"  --fixed-schedule\n",
		"  --fixed-schedule-start-offset <int>",
		"  --custom-dataset-type <str>",
		"      Choices: mooncake_trace, multi_turn, random_pool, single_turn",
		"  --dataset-sampling-strategy <str>",
		"      Choices: random, sequential, shuffle",
		"  --prompt-input-tokens-block-size, --synthetic-input-tokens-block-size, --isl-block-size <int>",
		"      Default: 512",
		"  --conversation-num, --num-conversations, --num-sessions <int>",
		"  --conversation-turn-mean, --session-turns-mean <int>",
		"  --conversation-turn-delay-ratio, --session-delay-ratio <float>",
		"  --benchmark-duration <float>",
		"  --benchmark-grace-period <float>",
		"      Default: 30 (inf with --user-centric-rate)",
		"  --request-rate <float>",
		"  --arrival-pattern, --request-rate-mode <str>",
		"      Default: poisson",
		"      Choices: concurrency_burst, constant, gamma, poisson",
		"  --arrival-smoothness, --vllm-burstiness <float>",
		"  --warmup-grace-period <float>",
		"      Default: inf",
		"  --user-centric-rate <float>",
		"  --num-users <int>",
		"  --warmup-request-rate-ramp-duration <float>",
		"  -v, --verbose\n",
		"  -vv, --extra-verbose\n",
		"  --ui-type, --ui <str>",
		"      Default: dashboard when stderr is a terminal, else none",
		"  --user-config-file, --config <str>",
		"  -h, --help\n",
	}
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("help lacks %q", l)
		}
	}
	// The foreign flag sits under Load Generator, not Other.
	if lg, other := strings.Index(out, "\nLoad Generator:\n"), strings.Index(out, "  --foreign-knob"); other < lg || other > strings.Index(out, "\nService:\n") {
		t.Error("--foreign-knob is not under Load Generator")
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > helpWidth && strings.Contains(l, " ") && strings.HasPrefix(l, helpIndent) {
			t.Errorf("description line longer than %d: %q", helpWidth, l)
		}
	}
}

// The defaults --help prints are the defaults Load applies.
func TestHelpDefaultsMatchLoadedDefaults(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m")
	out := renderHelp(t, newProfileCmd(t))
	for _, want := range []string{
		"Default: " + cfg.EndpointType,
		"Default: " + cfg.ExportLevel,
		"Default: " + cfg.LogLevel,
		"Default: " + cfg.ArtifactDir,
		"Default: " + strings.Join(cfg.URL, ", "),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
