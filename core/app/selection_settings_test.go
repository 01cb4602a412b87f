package app

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/spf13/cobra"
)

// runSettingsConfig loads a configuration from the real profile flags.
func runSettingsConfig(t *testing.T, args ...string) *config.RunConfig {
	t.Helper()
	cmd := &cobra.Command{Use: "profile"}
	config.RegisterProfileFlags(cmd)
	if err := cmd.ParseFlags(append([]string{"-m", "m"}, args...)); err != nil {
		t.Fatalf("ParseFlags(%q): %v", args, err)
	}
	cfg, _, err := config.Load(cmd, nil)
	if err != nil {
		t.Fatalf("Load(%q): %v", args, err)
	}
	return cfg
}

var sessionFlags = []string{"--session-turns-mean", "3", "--session-turns-stddev", "1",
	"--session-turn-delay-mean", "200", "--session-turn-delay-stddev", "50", "--isl-block-size", "16"}

func TestRunSettingsFromFlags(t *testing.T) {
	cfg := runSettingsConfig(t, sessionFlags...)
	want := map[string]map[string]any{
		"dataset_composer.synthetic": {"session_turns_mean": 3, "session_turns_stddev": 1.0,
			"turn_delay_mean_ms": 200.0, "turn_delay_stddev_ms": 50.0},
		"custom_dataset_loader.mooncake_trace": {"block_size": 16},
		"custom_dataset_loader.bailian_trace":  {"block_size": 16},
	}
	if got := runSettings(cfg); !reflect.DeepEqual(got, want) {
		t.Errorf("runSettings:\n got %#v\nwant %#v", got, want)
	}
	if got := selectPlugins(cfg).Settings; !reflect.DeepEqual(got, want) {
		t.Errorf("Selection.Settings:\n got %#v\nwant %#v", got, want)
	}
}

// Flags at their defaults set nothing: the plugins' own defaults
// (single-turn, block size 512) and their manifest config stand.
func TestRunSettingsDefaults(t *testing.T) {
	if got := runSettings(runSettingsConfig(t)); len(got) != 0 {
		t.Errorf("runSettings = %v, want none", got)
	}
	got := runSettings(runSettingsConfig(t, "--session-turn-delay-mean", "100"))
	want := map[string]map[string]any{"dataset_composer.synthetic": {"turn_delay_mean_ms": 100.0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("one flag: runSettings = %#v, want %#v", got, want)
	}
}
