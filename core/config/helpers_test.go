package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
)

// newProfileCmd builds a profile command with the real flags and parses args.
func newProfileCmd(t testing.TB, args ...string) *cobra.Command {
	t.Helper()
	cmd := &cobra.Command{Use: "profile", Short: "Run the Profile subcommand.", RunE: func(*cobra.Command, []string) error { return nil }}
	RegisterProfileFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("ParseFlags(%q): %v", args, err)
	}
	return cmd
}

// load parses args, loads with env and fails the test on error.
func load(t testing.TB, env []string, args ...string) (*RunConfig, []string) {
	t.Helper()
	cfg, warns, err := Load(newProfileCmd(t, args...), env)
	if err != nil {
		t.Fatalf("Load(%q, env %q): %v", args, env, err)
	}
	return cfg, warns
}

// pinTerminal fixes the stderr-is-a-terminal answer for one test.
func pinTerminal(t *testing.T, isTTY bool) {
	t.Helper()
	prev := stderrIsTerminal
	stderrIsTerminal = func() bool { return isTTY }
	t.Cleanup(func() { stderrIsTerminal = prev })
}

// writeFile writes a temp file and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func derefInt(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func newBareCmd() *cobra.Command { return &cobra.Command{Use: "profile"} }

func writeFileB(b *testing.B, content string) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "cfg.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}
