package timing

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/timingtest"
)

// userCentricWith returns the strategy configured as the core would,
// through PluginConfig.
func userCentricWith(cfg UserCentricConfig, opts ...Option) *UserCentricStrategy {
	s := NewUserCentric(opts...)
	*s.PluginConfig().(*UserCentricConfig) = cfg
	return s
}

func runUserCentric(t *testing.T, ctx context.Context, cfg UserCentricConfig, plan sdk.PhasePlan, rec sdk.CreditSender) {
	t.Helper()
	runStrategy(t, ctx, userCentricWith(cfg), plan, rec)
}

func TestUserCentricUsersKeepTheirGapAndStagger(t *testing.T) {
	// 4 users at 40 req/s: each user every 100 ms, first sends 25 ms apart.
	const gap, stagger = 100 * time.Millisecond, 25 * time.Millisecond
	rec := &timingtest.Recorder{Delay: 2 * time.Millisecond}
	runUserCentric(t, context.Background(), UserCentricConfig{Rate: 40, NumUsers: 4}, sdk.PhasePlan{Duration: 450 * time.Millisecond, GracePeriod: -1}, rec)
	users := timingtest.ByUser(rec.Sent())
	if len(users) != 4 {
		t.Fatalf("%d users sent, want 4", len(users))
	}
	first := users[1][0].Credit.ScheduledNs
	for u := 1; u <= 4; u++ {
		sends := users[u]
		if len(sends) < 3 {
			t.Fatalf("user %d sent %d times in 450 ms", u, len(sends))
		}
		if got := time.Duration(sends[0].Credit.ScheduledNs - first); got != time.Duration(u-1)*stagger {
			t.Errorf("user %d starts at +%v, want +%v", u, got, time.Duration(u-1)*stagger)
		}
		for i := 1; i < len(sends); i++ {
			g := time.Duration(sends[i].Credit.ScheduledNs - sends[i-1].Credit.ScheduledNs)
			// On time, the next send keeps the grid exactly; a stalled
			// machine can only make it later.
			if g < gap || g > gap+50*time.Millisecond {
				t.Errorf("user %d gap %d = %v, want %v", u, i, g, gap)
			}
		}
	}
}

func TestUserCentricLateUserSendsOnCompletionAndResets(t *testing.T) {
	// 2 users at 20 req/s: gap 100 ms. User 1's sessions take 250 ms, so
	// each next one goes out as soon as the previous completes.
	rec := &timingtest.Recorder{DelayFor: func(c sdk.Credit) time.Duration {
		if c.User == 1 {
			return 250 * time.Millisecond
		}
		return 5 * time.Millisecond
	}}
	runUserCentric(t, context.Background(), UserCentricConfig{Rate: 20, NumUsers: 2}, sdk.PhasePlan{Duration: 700 * time.Millisecond, GracePeriod: -1}, rec)
	users := timingtest.ByUser(rec.Sent())
	late, onTime := users[1], users[2]
	if len(late) < 2 || len(onTime) < 4 {
		t.Fatalf("user 1 sent %d, user 2 sent %d", len(late), len(onTime))
	}
	for i := 1; i < len(late); i++ {
		prevEnd, c := late[i-1].EndNs, late[i].Credit
		if c.ScheduledNs < prevEnd || c.IssuedNs-prevEnd > int64(50*time.Millisecond) {
			t.Errorf("late user's send %d: scheduled %v / issued %v after the previous completed; want at completion",
				i, time.Duration(c.ScheduledNs-prevEnd), time.Duration(c.IssuedNs-prevEnd))
		}
	}
	for i := 1; i < len(onTime); i++ {
		if g := time.Duration(onTime[i].Credit.ScheduledNs - onTime[i-1].Credit.ScheduledNs); g < 100*time.Millisecond {
			t.Errorf("on-time user gap %v, want >= 100ms", g)
		}
	}
}

func TestUserCentricCountIsExactAndUsersNeverOverlap(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 15 * time.Millisecond}
	runUserCentric(t, context.Background(), UserCentricConfig{Rate: 300, NumUsers: 3}, sdk.PhasePlan{RequestCount: 10}, rec)
	sent := rec.Sent()
	if len(sent) != 10 {
		t.Fatalf("%d credits, want 10", len(sent))
	}
	for u, sends := range timingtest.ByUser(sent) {
		if u < 1 || u > 3 {
			t.Fatalf("credit for user %d of 3", u)
		}
		for i := 1; i < len(sends); i++ {
			if sends[i].StartNs < sends[i-1].EndNs {
				t.Fatalf("user %d had two sessions in flight at once", u)
			}
		}
	}
}

func TestUserCentricCancelStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(30 * time.Millisecond); cancel() }()
	rec := &timingtest.Recorder{Delay: time.Minute}
	runUserCentric(t, ctx, UserCentricConfig{Rate: 100, NumUsers: 2}, sdk.PhasePlan{}, rec)
	if rec.Count() != 2 {
		t.Fatalf("%d credits, want one per user", rec.Count())
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, context.Canceled) {
			t.Errorf("user %d: cause %v", s.Credit.User, s.Cause)
		}
	}
}

func TestUserCentricGraceExpiryCancelsWithCause(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Minute}
	runUserCentric(t, context.Background(), UserCentricConfig{Rate: 100, NumUsers: 2}, sdk.PhasePlan{Duration: 40 * time.Millisecond, GracePeriod: 10 * time.Millisecond}, rec)
	if rec.Count() != 2 {
		t.Fatalf("%d credits, want 2", rec.Count())
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, sdk.ErrGraceExpired) {
			t.Errorf("user %d: cause %v, want ErrGraceExpired", s.Credit.User, s.Cause)
		}
	}
}

func TestUserCentricRejectsBadPlan(t *testing.T) {
	bad := []struct {
		cfg  UserCentricConfig
		plan sdk.PhasePlan
		want string
	}{
		{UserCentricConfig{NumUsers: 0, Rate: 10}, sdk.PhasePlan{}, "--num-users"},
		{UserCentricConfig{NumUsers: 2, Rate: 0}, sdk.PhasePlan{}, "--user-centric-rate"},
		{UserCentricConfig{NumUsers: 2, Rate: math.NaN()}, sdk.PhasePlan{}, "--user-centric-rate"},
		{UserCentricConfig{NumUsers: 2, Rate: 10}, sdk.PhasePlan{RequestCount: -3}, "request count"},
	}
	for _, c := range bad {
		wantNamed(t, userCentricWith(c.cfg).Run(context.Background(), c.plan, &timingtest.Recorder{}), UserCentricRate, c.want)
	}
}

func TestUserCentricValidate(t *testing.T) {
	cases := []struct {
		cfg  UserCentricConfig
		want string // "" = valid
	}{
		{UserCentricConfig{Rate: 10, NumUsers: 1}, ""},
		{UserCentricConfig{Rate: 0.25, NumUsers: 100}, ""},
		{UserCentricConfig{}, "--num-users must be >= 1"},
		{UserCentricConfig{Rate: 10, NumUsers: -1}, "--num-users must be >= 1"},
		{UserCentricConfig{NumUsers: 2}, "--user-centric-rate must be a positive number"},
		{UserCentricConfig{Rate: -3, NumUsers: 2}, "--user-centric-rate must be a positive number"},
		{UserCentricConfig{Rate: math.NaN(), NumUsers: 2}, "--user-centric-rate must be a positive number"},
		{UserCentricConfig{Rate: math.Inf(1), NumUsers: 2}, "--user-centric-rate must be a positive number"},
	}
	for _, c := range cases {
		err := userCentricWith(c.cfg).Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v rejected: %v", c.cfg, err)
			}
			continue
		}
		wantNamed(t, err, UserCentricRate, c.want)
	}
}

func TestUserCentricConfigDecoding(t *testing.T) {
	s := NewUserCentric()
	if err := sdk.DecodeConfig([]byte(`{"rate": 12.5, "num_users": 5}`), s.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	if want := (UserCentricConfig{Rate: 12.5, NumUsers: 5}); s.cfg != want {
		t.Fatalf("decoded %+v, want %+v", s.cfg, want)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("decoded config rejected: %v", err)
	}
	if err := sdk.DecodeConfig([]byte(`{"rate": 1, "users": 5}`), NewUserCentric().PluginConfig()); err == nil || !strings.Contains(err.Error(), "users") {
		t.Errorf("unknown key: error %v, want one naming it", err)
	}
	if err := sdk.DecodeConfig([]byte(`{"num_users": 2.5}`), NewUserCentric().PluginConfig()); err == nil {
		t.Error("fractional num_users decoded without error")
	}
}

// The decoded configuration drives the run: each user's sends are
// num_users/rate apart.
func TestUserCentricRunsAtDecodedRate(t *testing.T) {
	s := NewUserCentric()
	if err := sdk.DecodeConfig([]byte(`{"rate": 50, "num_users": 2}`), s.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	if got := TurnGap(s.cfg); got != 40*time.Millisecond {
		t.Fatalf("TurnGap = %v, want 40ms", got)
	}
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	runStrategy(t, context.Background(), s, sdk.PhasePlan{Duration: 300 * time.Millisecond, GracePeriod: -1}, rec)
	users := timingtest.ByUser(rec.Sent())
	if len(users) != 2 {
		t.Fatalf("%d users sent, want 2", len(users))
	}
	for u, sends := range users {
		if len(sends) < 4 {
			t.Fatalf("user %d sent %d times in 300 ms at one per 40 ms", u, len(sends))
		}
		for i := 1; i < len(sends); i++ {
			if g := time.Duration(sends[i].Credit.ScheduledNs - sends[i-1].Credit.ScheduledNs); g < 40*time.Millisecond || g > 90*time.Millisecond {
				t.Errorf("user %d gap %d = %v, want 40ms", u, i, g)
			}
		}
	}
}

func TestTurnGap(t *testing.T) {
	cases := []struct {
		cfg  UserCentricConfig
		want time.Duration
	}{
		{UserCentricConfig{Rate: 40, NumUsers: 4}, 100 * time.Millisecond},
		{UserCentricConfig{Rate: 3, NumUsers: 1}, 333333333},
		{UserCentricConfig{Rate: 0.5, NumUsers: 10}, 20 * time.Second},
	}
	for _, c := range cases {
		if got := TurnGap(c.cfg); got != c.want {
			t.Errorf("TurnGap(%+v) = %v, want %v", c.cfg, got, c.want)
		}
	}
}
