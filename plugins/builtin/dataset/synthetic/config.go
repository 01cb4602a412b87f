package synthetic

import (
	"errors"
	"fmt"
	"math"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Config is the composer's own settings (dataset_composer.synthetic): the
// shape of multi-turn sessions. The core fills them from AIPerf's
// --session-turns-mean, --session-turns-stddev, --session-turn-delay-mean
// and --session-turn-delay-stddev; --plugin-config
// dataset_composer.synthetic.KEY=VALUE overrides them. The zero value is
// single-turn conversations without delays.
type Config struct {
	// SessionTurnsMean is the mean number of turns per conversation; 0 or 1
	// means single-turn.
	SessionTurnsMean int `json:"session_turns_mean"`
	// SessionTurnsStddev is the turn count's standard deviation (truncated
	// to an integer, like AIPerf).
	SessionTurnsStddev float64 `json:"session_turns_stddev"`
	// TurnDelayMeanMs is the mean delay before each turn after the first,
	// in ms; 0 means no delays. DatasetOptions.TurnDelayRatio scales it.
	TurnDelayMeanMs float64 `json:"turn_delay_mean_ms"`
	// TurnDelayStddevMs is the delay's standard deviation, in ms.
	TurnDelayStddevMs float64 `json:"turn_delay_stddev_ms"`
}

var (
	_ sdk.Configurable = (*Composer)(nil)
	_ sdk.Validator    = (*Composer)(nil)
)

// PluginConfig implements sdk.Configurable.
func (c *Composer) PluginConfig() any { return &c.Config }

// Validate implements sdk.Validator: every setting must be finite and not
// negative. Errors name the setting and the AIPerf flag that sets it.
func (c *Composer) Validate() error {
	if problems := c.Config.problems(); len(problems) > 0 {
		return fmt.Errorf("synthetic: invalid settings: %w", errors.Join(problems...))
	}
	return nil
}

func (cfg Config) problems() []error {
	var problems []error
	if cfg.SessionTurnsMean < 0 {
		problems = append(problems, fmt.Errorf("session_turns_mean %d (--session-turns-mean), want at least 0", cfg.SessionTurnsMean))
	}
	if bad(cfg.SessionTurnsStddev) {
		problems = append(problems, fmt.Errorf("session_turns_stddev %v (--session-turns-stddev), want a finite value >= 0", cfg.SessionTurnsStddev))
	}
	if bad(cfg.TurnDelayMeanMs) {
		problems = append(problems, fmt.Errorf("turn_delay_mean_ms %v (--session-turn-delay-mean), want a finite value >= 0", cfg.TurnDelayMeanMs))
	}
	if bad(cfg.TurnDelayStddevMs) {
		problems = append(problems, fmt.Errorf("turn_delay_stddev_ms %v (--session-turn-delay-stddev), want a finite value >= 0", cfg.TurnDelayStddevMs))
	}
	return problems
}

// bad reports whether a stddev (or other non-negative setting) is negative,
// NaN or infinite.
func bad(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
