package config

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestRedactedLoadKeys(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--request-rate", "20", "--vllm-burstiness", "2", "--benchmark-duration", "10",
		"--benchmark-grace-period", "inf", "--warmup-duration", "3", "--warmup-grace-period", "inf", "--num-sessions", "4",
		"--request-cancellation-rate", "5", "--connection-reuse-strategy", "never")
	m := cfg.Redacted()
	want := map[string]any{
		keyRequestRate:       20.0,
		keyArrivalPattern:    ArrivalGamma,
		keyArrivalSmoothness: 2.0,
		keyBenchmarkDuration: 10.0,
		keyBenchmarkGrace:    "inf",
		keyWarmupGrace:       "inf",
		keyNumSessions:       4,
		keyCancelRate:        5.0,
		keyConnectionReuse:   "never",
		keyModelSelection:    "round_robin",
		keyFixedSchedule:     false,
		keyTurnDelayRatio:    1.0,
		keyWarmupDuration:    3.0,
	}
	for k, v := range want {
		if !reflect.DeepEqual(m[k], v) {
			t.Errorf("Redacted()[%q] = %#v, want %#v", k, m[k], v)
		}
	}
	// Rate mode without a ceiling and a session stop: neither key is invented.
	for _, k := range []string{keyConcurrency, keyRequestCount, keyNumUsers, keyInputFile} {
		if v, ok := m[k]; ok {
			t.Errorf("Redacted()[%q] = %#v, want absent", k, v)
		}
	}
	// Infinite values must not break the JSON export.
	if _, err := json.Marshal(m); err != nil {
		t.Errorf("json.Marshal(Redacted()) = %v", err)
	}
}

func TestRedactedDefaultGrace(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--benchmark-duration", "5")
	if got := cfg.Redacted()[keyBenchmarkGrace]; got != 30.0 {
		t.Errorf("grace = %#v, want 30.0", got)
	}
	if got := cfg.Redacted()[keyConcurrency]; got != 1 {
		t.Errorf("concurrency = %#v, want 1", got)
	}
}
