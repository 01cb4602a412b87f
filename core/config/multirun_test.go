package config

import (
	"strings"
	"testing"
	"time"
)

func TestMultiRunDefaults(t *testing.T) {
	cfg, warns := load(t, nil, "-m", "m")
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	want := MultiRun{Runs: 1, ConfidenceLevel: 0.95, DisableWarmupAfterFirst: true, SetConsistentSeed: true}
	if got := cfg.MultiRun(); got != want {
		t.Errorf("MultiRun() = %+v, want %+v", got, want)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
}

func TestMultiRunFlagsFileAndEnv(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--num-profile-runs", "4", "--profile-run-cooldown-seconds", "1.5",
		"--confidence-level", "0.99", "--no-profile-run-disable-warmup-after-first", "--vary-seed-per-trial")
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	want := MultiRun{Runs: 4, Cooldown: 1500 * time.Millisecond, ConfidenceLevel: 0.99, DisableWarmupAfterFirst: false,
		SetConsistentSeed: true, VarySeedPerTrial: true}
	if got := cfg.MultiRun(); got != want {
		t.Errorf("MultiRun() = %+v, want %+v", got, want)
	}
	file := writeFile(t, "c.yaml", "model_names: [m]\nnum_profile_runs: 3\nset_consistent_seed: false\n")
	cfg, warns := load(t, []string{"AIPERF_CONFIDENCE_LEVEL=0.9"}, "--config", file)
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	if got := cfg.MultiRun(); got.Runs != 3 || got.SetConsistentSeed || got.ConfidenceLevel != 0.9 {
		t.Errorf("from file and env: %+v", got)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "every profile run draws its own seed") {
		t.Errorf("warnings %q", warns)
	}
}

// TestMultiRunValidation: AIPerf's bounds, named by flag, and its rule that
// across-run flags need --num-profile-runs > 1.
func TestMultiRunValidation(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"zero runs", []string{"--num-profile-runs", "0"}, "--num-profile-runs must be between 1 and 10 (got 0)"},
		{"eleven runs", []string{"--num-profile-runs", "11"}, "--num-profile-runs must be between 1 and 10 (got 11)"},
		{"level above 1", []string{"--num-profile-runs", "3", "--confidence-level", "1.5"}, "--confidence-level must be between 0 and 1, exclusive (got 1.5); common values: 0.90, 0.95, 0.99"},
		{"level 1", []string{"--confidence-level", "1"}, "--confidence-level must be between 0 and 1, exclusive (got 1); common values: 0.90, 0.95, 0.99"},
		{"level 0", []string{"--confidence-level", "0"}, "--confidence-level must be between 0 and 1, exclusive (got 0); common values: 0.90, 0.95, 0.99"},
		{"negative cooldown", []string{"--num-profile-runs", "2", "--profile-run-cooldown-seconds", "-1"}, "--profile-run-cooldown-seconds must be between 0 and 86400 (got -1)"},
		{"huge cooldown", []string{"--num-profile-runs", "2", "--profile-run-cooldown-seconds", "1e18"}, "--profile-run-cooldown-seconds must be between 0 and 86400 (got 1e+18)"},
		{"cooldown single run", []string{"--profile-run-cooldown-seconds", "2"}, "--profile-run-cooldown-seconds only applies when running multiple trials (--num-profile-runs > 1). Either remove --profile-run-cooldown-seconds or add --num-profile-runs 5 (or higher)."},
		{"seed flag single run", []string{"--set-consistent-seed"}, "--set-consistent-seed only applies when running multiple trials (--num-profile-runs > 1). Either remove --set-consistent-seed or add --num-profile-runs 5 (or higher)."},
		{"negated warmup single run", []string{"--no-profile-run-disable-warmup-after-first"}, "--no-profile-run-disable-warmup-after-first only applies when running multiple trials (--num-profile-runs > 1). Either remove --no-profile-run-disable-warmup-after-first or add --num-profile-runs 5 (or higher)."},
		{"flag and negation", []string{"--num-profile-runs", "2", "--set-consistent-seed", "--no-set-consistent-seed"}, "--set-consistent-seed and --no-set-consistent-seed contradict each other; give one"},
		{"explicit dashboard", []string{"--num-profile-runs", "2", "--ui", "dashboard"}, "--ui-type dashboard is not supported with --num-profile-runs > 1; use --ui simple or --ui none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pinTerminal(t, true)
			cfg, _ := load(t, nil, append([]string{"-m", "m"}, tc.args...)...)
			err := cfg.Validate(Choices{"ui": {"dashboard", "simple", "none"}})
			if err == nil {
				t.Fatalf("accepted %q", tc.args)
			}
			if !strings.Contains(err.Error()+"\n", tc.want+"\n") {
				t.Errorf("error:\n%v\nwant the line:\n%s", err, tc.want)
			}
		})
	}
	// The confidence level and --vary-seed-per-trial are accepted on a
	// single run (AIPerf does not list them).
	cfg, _ := load(t, nil, "-m", "m", "--confidence-level", "0.9", "--vary-seed-per-trial")
	if err := cfg.Validate(testChoices); err != nil {
		t.Error(err)
	}
}

// TestMultiRunDefaultDashboardBecomesSimple: on a terminal the default UI
// is the dashboard, which cannot span several runs; simple replaces it.
func TestMultiRunDefaultDashboardBecomesSimple(t *testing.T) {
	pinTerminal(t, true)
	cfg, _ := load(t, nil, "-m", "m", "--num-profile-runs", "2")
	if cfg.UIType != "simple" {
		t.Errorf("UIType %q, want simple", cfg.UIType)
	}
	cfg, _ = load(t, nil, "-m", "m")
	if cfg.UIType != "dashboard" {
		t.Errorf("single run UIType %q, want dashboard", cfg.UIType)
	}
}

// TestProfileRunSeed checks the seeds of AIPerf 0.13's resolve_run_seed:
// derive_variation_seed values computed in /tmp/aiperf-venv with
// derive_variation_seed(root, f"base:trial:{t}").
func TestProfileRunSeed(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		trial int
		want  int64 // -1: nil
	}{
		{"consistent default", nil, 2, 42},
		{"user seed wins", []string{"--random-seed", "7"}, 1, 7},
		{"no consistent seed", []string{"--no-set-consistent-seed"}, 0, -1},
		{"no consistent seed but user seed", []string{"--no-set-consistent-seed", "--random-seed", "9"}, 0, 9},
		{"vary 42 trial 0", []string{"--vary-seed-per-trial"}, 0, 6858774025263032934},
		{"vary 42 trial 1", []string{"--vary-seed-per-trial"}, 1, 4337237111802998792},
		{"vary 42 trial 9", []string{"--vary-seed-per-trial"}, 9, 5197717515123128689},
		{"vary 7 trial 2", []string{"--vary-seed-per-trial", "--random-seed", "7"}, 2, 5213088469389072029},
		{"vary without seed", []string{"--vary-seed-per-trial", "--no-set-consistent-seed"}, 1, -1},
	}
	for _, tc := range tests {
		cfg, _ := load(t, nil, append([]string{"-m", "m", "--num-profile-runs", "3"}, tc.args...)...)
		got := cfg.ProfileRunSeed(tc.trial)
		switch {
		case tc.want == -1 && got != nil:
			t.Errorf("%s: seed %d, want none", tc.name, *got)
		case tc.want != -1 && (got == nil || *got != tc.want):
			t.Errorf("%s: seed %v, want %d", tc.name, got, tc.want)
		}
	}
}

func TestProfileRunConfig(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--num-profile-runs", "3", "--warmup-request-count", "5", "--warmup-concurrency", "2")
	first := cfg.ProfileRun("/base/profile_runs/run_0001", 0)
	if first.ArtifactDirectory("openai") != "/base/profile_runs/run_0001" || !first.HasWarmup() {
		t.Errorf("first run: dir %q warmup %v", first.ArtifactDirectory("openai"), first.HasWarmup())
	}
	second := cfg.ProfileRun("/base/profile_runs/run_0002", 1)
	if second.HasWarmup() {
		t.Error("second run keeps its warmup")
	}
	if !cfg.HasWarmup() || cfg.ArtifactDirSet {
		t.Error("ProfileRun changed the benchmark's own configuration")
	}
	cfg, _ = load(t, nil, "-m", "m", "--num-profile-runs", "3", "--warmup-request-count", "5", "--no-profile-run-disable-warmup-after-first")
	if !cfg.ProfileRun("/x", 2).HasWarmup() {
		t.Error("--no-profile-run-disable-warmup-after-first: third run lost its warmup")
	}
}
