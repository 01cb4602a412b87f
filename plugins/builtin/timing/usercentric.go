package timing

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// UserCentricRate is the user-centric strategy's plugin name (AIPerf's
// timing_strategy name): NumUsers virtual users share Rate requests/s, each
// sending one session every NumUsers/Rate seconds and never two at once.
const UserCentricRate = "user_centric_rate"

// UserCentricConfig is the user_centric_rate strategy's configuration.
type UserCentricConfig struct {
	// Rate is the total in requests/s over all users (--user-centric-rate).
	Rate float64 `json:"rate"`
	// NumUsers is the number of virtual users (--num-users).
	NumUsers int `json:"num_users"`
}

// TurnGap is how long each user waits between its sends: num_users/rate.
// The engine spaces a user's turns by the same gap. cfg must be valid
// (Validate): a zero rate has no gap.
func TurnGap(cfg UserCentricConfig) time.Duration {
	return time.Duration(float64(cfg.NumUsers) / cfg.Rate * float64(time.Second))
}

// UserCentricStrategy implements sdk.TimingStrategy.
type UserCentricStrategy struct {
	opts []Option
	cfg  UserCentricConfig
}

var (
	_ sdk.TimingStrategy = (*UserCentricStrategy)(nil)
	_ sdk.Configurable   = (*UserCentricStrategy)(nil)
	_ sdk.Validator      = (*UserCentricStrategy)(nil)
)

// NewUserCentric returns the user-centric strategy with no users or rate
// set: the core fills PluginConfig() before the run. opts tune its pacers.
func NewUserCentric(opts ...Option) *UserCentricStrategy {
	return &UserCentricStrategy{opts: opts}
}

// PluginConfig implements sdk.Configurable.
func (s *UserCentricStrategy) PluginConfig() any { return &s.cfg }

// Validate implements sdk.Validator.
func (s *UserCentricStrategy) Validate() error {
	if s.cfg.NumUsers < 1 {
		return errorf(UserCentricRate, "--num-users must be >= 1 (got %d)", s.cfg.NumUsers)
	}
	if r := s.cfg.Rate; !(r > 0) || math.IsInf(r, 0) {
		return errorf(UserCentricRate, "--user-centric-rate must be a positive number of requests/s (got %v)", r)
	}
	return nil
}

// Run starts the users staggered 1/rate apart, so their first sends spread
// evenly over one per-user gap and the aggregate rate is steady from the
// start. Each user then sends at baseline+gap; when its previous session is
// still running at that time, the next goes out as soon as it completes and
// the user's baseline resets to that moment. Runs until the first stop
// condition, then waits for the sessions in flight.
func (s *UserCentricStrategy) Run(ctx context.Context, plan sdk.PhasePlan, sender sdk.CreditSender) error {
	// Validated again here: a strategy driven without the core's lifecycle
	// (tests, a direct caller) must not pace on zero users or a NaN rate.
	if err := s.Validate(); err != nil {
		return err
	}
	ph, err := startPhase(ctx, plan, s.opts)
	if err != nil {
		return errorf(UserCentricRate, "%w", err)
	}
	gapNs := int64(TurnGap(s.cfg))
	staggerNs := 1e9 / s.cfg.Rate
	var wg sync.WaitGroup
	for u := 1; u <= s.cfg.NumUsers; u++ {
		first := ph.StartNs() + int64(float64(u-1)*staggerNs)
		if !ph.Due(first) {
			break // later users would start after the phase ends too
		}
		// Each user sleeps on its own pacer: a pacer serves one goroutine.
		pacer := ph.NewPacer()
		wg.Go(func() { runUser(ph, pacer, sender, u, first, gapNs) })
	}
	wg.Wait()
	ph.Finish()
	return nil
}

// runUser is one virtual user's loop.
func runUser(ph *phase, pacer *pacer, sender sdk.CreditSender, user int, next, gapNs int64) {
	for ph.Due(next) {
		if pacer.SleepUntil(ph.Issuing(), next) != nil {
			return
		}
		pm, err := ph.Acquire()
		if err != nil {
			return
		}
		ph.Send(sender, pm, sdk.Credit{ScheduledNs: next, User: user})
		// On time: keep the grid. Late: go now and reset the baseline.
		next = max(clock.Now(), next+gapNs)
	}
}
