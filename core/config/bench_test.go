package config

import (
	"fmt"
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
		_ = c.InputConfig()
		_ = c.CLICommand(args)
	}
}

// BenchmarkPhases covers the load-generation accessors the app calls once
// per run to build its phase plans and artifact directory.
func BenchmarkPhases(b *testing.B) {
	cfg, _, err := Load(newProfileCmd(b, "-m", "org/m", "--request-rate", "500", "--concurrency", "64",
		"--vllm-burstiness", "2", "--benchmark-duration", "60", "--warmup-request-count", "100",
		"--request-rate-ramp-duration", "5"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = cfg.Profiling()
		_, _ = cfg.Warmup()
		_ = cfg.Stimulus()
		_ = cfg.DatasetOptions()
	}
}

// BenchmarkInspectTrace reads a 10k-entry mooncake trace, as Load does once
// to decide fixed schedule and its request count.
func BenchmarkInspectTrace(b *testing.B) {
	var sb []byte
	for i := range 10000 {
		sb = fmt.Appendf(sb, `{"timestamp": %d, "input_length": 2048, "output_length": 128, "hash_ids": [1, 2, 3, 4]}`+"\n", i*10)
	}
	p := writeFileB(b, string(sb))
	b.SetBytes(int64(len(sb)))
	b.ReportAllocs()
	for b.Loop() {
		if got := inspectTrace(p, true); got.entries != 10000 || !got.timestamps {
			b.Fatalf("inspectTrace = %+v", got)
		}
	}
}
