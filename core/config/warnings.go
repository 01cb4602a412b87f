package config

// loadWarnings names load-generator flags that were given but change
// nothing, which AIPerf ignores silently.
func (c *RunConfig) loadWarnings() []string {
	var w []string
	if !c.HasWarmup() {
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"--warmup-concurrency", c.WarmupConcurrency != nil},
			{"--warmup-prefill-concurrency", c.WarmupPrefillConcurrency != nil},
			{"--warmup-request-rate", c.WarmupRequestRate != nil},
			{"--warmup-arrival-pattern", c.WarmupArrivalPattern != ""},
			{"--warmup-concurrency-ramp-duration", c.WarmupConcurrencyRampDuration != nil},
			{"--warmup-prefill-concurrency-ramp-duration", c.WarmupPrefillConcurrencyRampDuration != nil},
			{"--warmup-request-rate-ramp-duration", c.WarmupRequestRateRampDuration != nil},
		} {
			if f.set {
				w = append(w, f.name+" has no effect without --warmup-request-count, --warmup-duration or --num-warmup-sessions")
			}
		}
	}
	mode := c.Mode()
	if mode == ModeConcurrency && c.WarmupRequestRate == nil {
		if c.ArrivalPattern != "" && c.ArrivalPattern != ArrivalConcurrencyBurst {
			w = append(w, "--arrival-pattern has no effect without --request-rate")
		}
		if c.ArrivalSmoothness != nil {
			w = append(w, "--arrival-smoothness has no effect without --request-rate")
		}
	}
	if mode == ModeFixedSchedule {
		if c.RequestRate != nil {
			w = append(w, "--request-rate is ignored: fixed schedule replays the trace timestamps")
		}
		if c.UserCentricRate != nil {
			w = append(w, "--user-centric-rate is ignored: fixed schedule replays the trace timestamps")
		}
	}
	return w
}
