package config

import (
	"testing"
)

// BenchmarkLoad measures a full resolution: flag parse, file, env, flags,
// unmarshal. It runs once per process, far from any hot path, but must stay
// cheap enough not to slow start-up.
func BenchmarkLoad(b *testing.B) {
	file := writeFileB(b, "model_names: [org/a, org/b]\nconcurrency: 8\nheader: {X-A: \"1\"}\n")
	env := []string{"AIPERF_ISL=128", "AIPERF_STREAMING=true", "PATH=/usr/bin"}
	args := []string{"--config", file, "-u", "h:1", "--extra-inputs", "temperature:0.7", "--request-count", "100"}
	b.ReportAllocs()
	for b.Loop() {
		cmd := newProfileCmd(b, args...)
		if _, _, err := Load(cmd, env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDerived covers what the run calls when it builds its pipeline.
func BenchmarkDerived(b *testing.B) {
	c := &RunConfig{
		ModelNames: []string{"m"}, URL: []string{"h:1"}, APIKey: "k",
		Header:         []string{"X-A:1,X-B:2", `{"X-C":"3"}`},
		ExtraInputsRaw: []string{"temperature:0.7", `{"top_k":5}`},
	}
	args := []string{"profile", "-m", "m", "--api-key", "k", "-H", "X-A:1,X-B:2", "--extra-inputs", "temperature:0.7"}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Headers()
		_ = c.ExtraInputs()
		_ = c.Redacted()
		_ = c.CLICommand(args)
	}
}
