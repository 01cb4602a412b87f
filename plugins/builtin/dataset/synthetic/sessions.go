package synthetic

import (
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/sample"
	"math"
	"math/rand/v2"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// sessionShape samples the number of turns per conversation and the delay
// before each later turn, like AIPerf's synthetic composer: both means and
// stddevs are truncated to integers (AIPerf's CLI takes them as ints), turn
// counts come from sample_positive_normal_integer (so never below 1), and a
// delay is only drawn when the mean delay is positive; it is then at least
// 1 ms before scaling by the delay ratio.
type sessionShape struct {
	turnMean, turnStddev   float64
	delayOn                bool
	delayMean, delayStddev float64
	ratio                  float64
	turnRNG, delayRNG      *rand.Rand
}

func newSessionShape(cfg Config, opts sdk.DatasetOptions) *sessionShape {
	ratio := opts.TurnDelayRatio
	if ratio == 0 { // the contract's "unset"; AIPerf's default ratio is 1
		ratio = 1
	}
	return &sessionShape{
		turnMean:    float64(max(1, cfg.SessionTurnsMean)),
		turnStddev:  math.Trunc(cfg.SessionTurnsStddev),
		delayOn:     cfg.TurnDelayMeanMs > 0,
		delayMean:   math.Trunc(cfg.TurnDelayMeanMs),
		delayStddev: math.Trunc(cfg.TurnDelayStddevMs),
		ratio:       ratio,
		turnRNG:     sample.NewStream(opts.RandomSeed, "composer.conversation.turn_count"),
		delayRNG:    sample.NewStream(opts.RandomSeed, "composer.conversation.turn_delay"),
	}
}

// turns returns the number of turns of the next conversation.
func (s *sessionShape) turns() int {
	return sample.PositiveNormalInt(s.turnRNG, s.turnMean, s.turnStddev)
}

// delay returns the delay before a turn after the first, nil when turn
// delays are off.
func (s *sessionShape) delay() *float64 {
	if !s.delayOn {
		return nil
	}
	d := float64(sample.PositiveNormalInt(s.delayRNG, s.delayMean, s.delayStddev)) * s.ratio
	return &d
}
