package timing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/timingtest"
)

// requestRateWith returns the strategy configured as the core would, through
// PluginConfig.
func requestRateWith(cfg RequestRateConfig, opts ...Option) *RequestRateStrategy {
	s := NewRequestRate(opts...)
	*s.PluginConfig().(*RequestRateConfig) = cfg
	return s
}

func runRequestRate(t *testing.T, ctx context.Context, cfg RequestRateConfig, plan sdk.PhasePlan, rec sdk.CreditSender) {
	t.Helper()
	if plan.Arrival == nil {
		plan.Arrival = timingtest.ConstantArrival{}
	}
	runStrategy(t, ctx, requestRateWith(cfg), plan, rec)
}

// checkCredits asserts the invariants every open-loop run keeps: indices
// 0..n-1 once each, never issued before the schedule, schedule increasing.
func checkCredits(t *testing.T, sent []timingtest.Sent) {
	t.Helper()
	seen := make([]bool, len(sent))
	var prevSched int64
	for _, s := range sent {
		c := s.Credit
		if c.Index < 0 || c.Index >= len(sent) || seen[c.Index] {
			t.Fatalf("credit index %d repeated or out of range (n=%d)", c.Index, len(sent))
		}
		seen[c.Index] = true
		if c.ScheduledNs == 0 || c.IssuedNs < c.ScheduledNs {
			t.Fatalf("credit %d issued at %d before its schedule %d", c.Index, c.IssuedNs, c.ScheduledNs)
		}
		if c.ScheduledNs < prevSched {
			t.Fatalf("credit %d scheduled before its predecessor", c.Index)
		}
		prevSched = c.ScheduledNs
	}
}

func TestRequestRateAchievesConfiguredRate(t *testing.T) {
	for _, rate := range []float64{200, 500, 1000} {
		t.Run(fmt.Sprintf("rate=%v", rate), func(t *testing.T) {
			n := int(rate) // about one second
			rec := &timingtest.Recorder{Delay: time.Millisecond}
			runRequestRate(t, context.Background(), RequestRateConfig{Rate: rate}, sdk.PhasePlan{RequestCount: n}, rec)
			sent := rec.Sent()
			if len(sent) != n {
				t.Fatalf("%d credits, want %d", len(sent), n)
			}
			checkCredits(t, sent)
			span := time.Duration(sent[n-1].Credit.IssuedNs - sent[0].Credit.IssuedNs).Seconds()
			achieved := float64(n-1) / span
			if math.Abs(achieved-rate)/rate > 0.05 {
				t.Fatalf("achieved %.1f req/s, target %v", achieved, rate)
			}
		})
	}
}

func TestRequestRateConcurrencyCeilingDelaysCredits(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 20 * time.Millisecond}
	runRequestRate(t, context.Background(), RequestRateConfig{Rate: 1000}, sdk.PhasePlan{Concurrency: 3, RequestCount: 30}, rec)
	sent := rec.Sent()
	if len(sent) != 30 {
		t.Fatalf("%d credits, want 30", len(sent))
	}
	checkCredits(t, sent)
	if got := rec.PeakInFlight(); got > 3 {
		t.Fatalf("peak in flight %d over the ceiling of 3", got)
	}
	// 3 slots of 20 ms serve 150 req/s against 1000 scheduled: the wait for
	// a slot must show as schedule lag.
	var maxLag int64
	for _, s := range sent {
		maxLag = max(maxLag, s.Credit.IssuedNs-s.Credit.ScheduledNs)
	}
	if maxLag < int64(5*time.Millisecond) {
		t.Fatalf("max schedule lag %v under a saturated ceiling", time.Duration(maxLag))
	}
}

func TestRequestRatePrefillCeiling(t *testing.T) {
	rec := &timingtest.Recorder{Delay: 10 * time.Millisecond, FirstTokenAfter: 4 * time.Millisecond}
	runRequestRate(t, context.Background(), RequestRateConfig{Rate: 800}, sdk.PhasePlan{PrefillConcurrency: 2, RequestCount: 50}, rec)
	if rec.Count() != 50 {
		t.Fatalf("%d credits, want 50", rec.Count())
	}
	if got := rec.PeakPrefill(); got > 2 {
		t.Fatalf("%d requests before their first token, cap 2", got)
	}
}

func TestRequestRateDurationStopsSchedule(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	runRequestRate(t, context.Background(), RequestRateConfig{Rate: 200}, sdk.PhasePlan{Duration: 200 * time.Millisecond, GracePeriod: -1}, rec)
	// Targets fall at 5, 10, … ms; only those before 200 ms go out.
	if n := rec.Count(); n > 39 || n < 20 {
		t.Fatalf("%d credits in 200 ms at 200 req/s, want 20..39", n)
	}
	checkCredits(t, rec.Sent())
}

func TestRequestRateGraceExpiryCancelsWithCause(t *testing.T) {
	rec := &timingtest.Recorder{Delay: time.Minute}
	runRequestRate(t, context.Background(), RequestRateConfig{Rate: 100}, sdk.PhasePlan{Duration: 50 * time.Millisecond, GracePeriod: 20 * time.Millisecond}, rec)
	if rec.Count() < 1 {
		t.Fatal("no credits issued")
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, sdk.ErrGraceExpired) {
			t.Errorf("credit %d: cause %v, want ErrGraceExpired", s.Credit.Index, s.Cause)
		}
	}
}

func TestRequestRateCancelStopsUnboundedRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	rec := &timingtest.Recorder{Delay: time.Minute}
	runRequestRate(t, ctx, RequestRateConfig{Rate: 100}, sdk.PhasePlan{}, rec)
	if rec.Count() < 1 {
		t.Fatal("no credits before cancel")
	}
	for _, s := range rec.Sent() {
		if !errors.Is(s.Cause, context.Canceled) {
			t.Errorf("credit %d: cause %v, want context.Canceled", s.Credit.Index, s.Cause)
		}
	}
}

func TestRequestRateRampStartsSlow(t *testing.T) {
	// 1000 req/s ramped over 1 s: the first 0.5 s carry the integral of the
	// stepped rate, 0.1·Σ(100 + 90k) for k = 0..4 = 140 arrivals, not 500.
	rec := &timingtest.Recorder{}
	runRequestRate(t, context.Background(), RequestRateConfig{Rate: 1000, RampDuration: 1}, sdk.PhasePlan{Duration: 500 * time.Millisecond, GracePeriod: -1}, rec)
	sent := rec.Sent()
	if n := len(sent); n < 100 || n > 141 {
		t.Fatalf("%d credits in the first half of the ramp, want about 140", n)
	}
	checkCredits(t, sent)
	gap := func(i int) int64 { return sent[i+1].Credit.ScheduledNs - sent[i].Credit.ScheduledNs }
	if first, last := gap(0), gap(len(sent)-2); first <= last {
		t.Fatalf("gaps did not shrink during the ramp: first %v, last %v", time.Duration(first), time.Duration(last))
	}
}

// The configuration reaches the schedule when decoded as the core does.
func TestRequestRateRunsAtDecodedRate(t *testing.T) {
	s := NewRequestRate()
	if err := sdk.DecodeConfig([]byte(`{"rate": 400}`), s.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	const n = 200
	rec := &timingtest.Recorder{Delay: time.Millisecond}
	runStrategy(t, context.Background(), s, sdk.PhasePlan{RequestCount: n, Arrival: timingtest.ConstantArrival{}}, rec)
	sent := rec.Sent()
	if len(sent) != n {
		t.Fatalf("%d credits, want %d", len(sent), n)
	}
	checkCredits(t, sent)
	span := time.Duration(sent[n-1].Credit.IssuedNs - sent[0].Credit.IssuedNs).Seconds()
	if achieved := float64(n-1) / span; math.Abs(achieved-400)/400 > 0.05 {
		t.Fatalf("achieved %.1f req/s, configured 400", achieved)
	}
}

// The rate ramp takes its shape from the plan (--ramp-type): an ease-in
// shape issues fewer credits early than the linear default.
func TestRequestRateRampFollowsPlanShape(t *testing.T) {
	// 1000 req/s over 1 s, squared: 0.1·Σ(100 + 900·(k/10)²) for k = 0..4
	// = 77 arrivals in the first 0.5 s, against 140 for linear.
	rec := &timingtest.Recorder{}
	runRequestRate(t, context.Background(), RequestRateConfig{Rate: 1000, RampDuration: 1}, sdk.PhasePlan{Ramp: squareRamp{}, Duration: 500 * time.Millisecond, GracePeriod: -1}, rec)
	if n := rec.Count(); n < 50 || n > 78 {
		t.Fatalf("%d credits in the first half of an ease-in ramp, want about 77", n)
	}
	checkCredits(t, rec.Sent())
}

func TestRequestRateRejectsBadPlan(t *testing.T) {
	arrival := timingtest.ConstantArrival{}
	bad := []struct {
		cfg  RequestRateConfig
		plan sdk.PhasePlan
		want string
	}{
		{RequestRateConfig{Rate: 0}, sdk.PhasePlan{Arrival: arrival}, "--request-rate"},
		{RequestRateConfig{Rate: -5}, sdk.PhasePlan{Arrival: arrival}, "--request-rate"},
		{RequestRateConfig{Rate: math.NaN()}, sdk.PhasePlan{Arrival: arrival}, "--request-rate"},
		{RequestRateConfig{Rate: math.Inf(1)}, sdk.PhasePlan{Arrival: arrival}, "--request-rate"},
		{RequestRateConfig{Rate: 10, RampDuration: -1}, sdk.PhasePlan{Arrival: arrival}, "--request-rate-ramp-duration"},
		{RequestRateConfig{Rate: 10}, sdk.PhasePlan{Phase: sdk.PhaseProfiling}, "no arrival pattern"},
		{RequestRateConfig{Rate: 10}, sdk.PhasePlan{Arrival: arrival, RequestCount: -1}, "request count"},
	}
	for _, c := range bad {
		wantNamed(t, requestRateWith(c.cfg).Run(context.Background(), c.plan, &timingtest.Recorder{}), RequestRate, c.want)
	}
}

func TestRequestRateValidate(t *testing.T) {
	cases := []struct {
		cfg  RequestRateConfig
		want string // "" = valid
	}{
		{RequestRateConfig{Rate: 10}, ""},
		{RequestRateConfig{Rate: 0.5, RampDuration: 30}, ""},
		{RequestRateConfig{}, "--request-rate must be a positive number"},
		{RequestRateConfig{Rate: -1}, "--request-rate must be a positive number"},
		{RequestRateConfig{Rate: math.NaN()}, "--request-rate must be a positive number"},
		{RequestRateConfig{Rate: math.Inf(1)}, "--request-rate must be a positive number"},
		{RequestRateConfig{Rate: 10, RampDuration: -0.1}, "--request-rate-ramp-duration"},
		{RequestRateConfig{Rate: 10, RampDuration: math.NaN()}, "--request-rate-ramp-duration"},
		{RequestRateConfig{Rate: 10, RampDuration: math.Inf(1)}, "--request-rate-ramp-duration"},
	}
	for _, c := range cases {
		err := requestRateWith(c.cfg).Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v rejected: %v", c.cfg, err)
			}
			continue
		}
		wantNamed(t, err, RequestRate, c.want)
	}
}

func TestRequestRateConfigDecoding(t *testing.T) {
	s := NewRequestRate()
	if err := sdk.DecodeConfig([]byte(`{"rate": 250.5, "ramp_duration": 2}`), s.PluginConfig()); err != nil {
		t.Fatal(err)
	}
	if want := (RequestRateConfig{Rate: 250.5, RampDuration: 2}); s.cfg != want {
		t.Fatalf("decoded %+v, want %+v", s.cfg, want)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("decoded config rejected: %v", err)
	}
	for _, bad := range []string{`{"rate": 10, "request_rate": 10}`, `{"rate": "fast"}`} {
		if err := sdk.DecodeConfig([]byte(bad), NewRequestRate().PluginConfig()); err == nil {
			t.Errorf("%s decoded without error", bad)
		}
	}
	if err := sdk.DecodeConfig([]byte(`{"rampduration": 1}`), NewRequestRate().PluginConfig()); err == nil || !strings.Contains(err.Error(), "rampduration") {
		t.Errorf("unknown key: error %v, want one naming it", err)
	}
}

func TestRampDurationConversion(t *testing.T) {
	cases := []struct {
		seconds float64
		want    time.Duration
	}{
		{0, 0},
		{-1, 0},
		{math.NaN(), 0},
		{1.5, 1500 * time.Millisecond},
		{0.001, time.Millisecond},
		{1e12, time.Duration(math.MaxInt64)},
	}
	for _, c := range cases {
		if got := rampDuration(c.seconds); got != c.want {
			t.Errorf("rampDuration(%v) = %v, want %v", c.seconds, got, c.want)
		}
	}
}
