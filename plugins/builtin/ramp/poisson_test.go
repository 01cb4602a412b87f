package ramp

import (
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

const d = 10 * time.Second

// sample reads the ramp every millisecond from 0 to d inclusive.
func sample(r *PoissonRamp, start, target float64) []float64 {
	out := make([]float64, 0, 10_001)
	for ts := time.Duration(0); ts <= d; ts += time.Millisecond {
		out = append(out, r.Value(ts, d, start, target))
	}
	return out
}

func TestPoissonEdges(t *testing.T) {
	r := seededPoisson(t, 42)
	cases := []struct {
		name          string
		t, d          time.Duration
		start, target float64
		want          float64
	}{
		{"start", 0, d, 1, 100, 1},
		{"before start", -time.Second, d, 1, 100, 1},
		{"end", d, d, 1, 100, 100},
		{"beyond", 2 * d, d, 1, 100, 100},
		{"flat", d / 2, d, 5, 5, 5},
		{"zero duration", time.Second, 0, 1, 100, 100},
		{"NaN target", d / 2, d, 1, math.NaN(), math.NaN()},
	}
	for _, c := range cases {
		got := r.Value(c.t, c.d, c.start, c.target)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s: Value(%v, %v, %v, %v) = %v, want %v", c.name, c.t, c.d, c.start, c.target, got, c.want)
		}
	}
}

// The trajectory is a monotone step function with equal steps that ends
// at the target; its step count is random around range+1.
func TestPoissonStepFunction(t *testing.T) {
	cases := []struct {
		start, target float64
	}{{1, 100}, {100, 1}, {0.5, 50}, {1, 2}}
	for _, c := range cases {
		vals := sample(seededPoisson(t, 7), c.start, c.target)
		if vals[0] != c.start || vals[len(vals)-1] != c.target {
			t.Errorf("%v→%v: first %v last %v", c.start, c.target, vals[0], vals[len(vals)-1])
		}
		up := c.target > c.start
		steps := 0
		var step float64
		for i := 1; i < len(vals); i++ {
			delta := vals[i] - vals[i-1]
			if (up && delta < 0) || (!up && delta > 0) {
				t.Fatalf("%v→%v: not monotone at sample %d (%v then %v)", c.start, c.target, i, vals[i-1], vals[i])
			}
			if delta != 0 {
				steps++
				step = math.Abs(delta)
			}
		}
		rng := math.Abs(c.target - c.start)
		// Expected events λ+1; the bound is far outside any seed's reach.
		if lo, hi := 1.0, rng+1+6*math.Sqrt(rng)+3; float64(steps) < lo || float64(steps) > hi {
			t.Errorf("%v→%v: %d visible steps, want within [%v, %v]", c.start, c.target, steps, lo, hi)
		}
		// Each event moves the value by range/n (several events inside one
		// millisecond would merge, so check a multiple).
		n := len(seededPoisson(t, 7).events(rng))
		if unit := rng / float64(n); math.Abs(step/unit-math.Round(step/unit)) > 1e-9 {
			t.Errorf("%v→%v: step %v is not a multiple of range/n = %v", c.start, c.target, step, unit)
		}
	}
}

func TestPoissonEventCountAveragesRangePlusOne(t *testing.T) {
	const rng, seeds = 200.0, 200
	total := 0
	for s := range int64(seeds) {
		total += len(trajectory(s, rng))
	}
	mean := float64(total) / seeds
	// sd of the mean = sqrt(200/200) = 1; allow 5.
	if math.Abs(mean-(rng+1)) > 5 {
		t.Errorf("mean event count %v over %d seeds, want about %v", mean, seeds, rng+1)
	}
}

func TestPoissonDeterministicUnderSeed(t *testing.T) {
	a := sample(seededPoisson(t, 3), 1, 64)
	b := sample(seededPoisson(t, 3), 1, 64)
	c := sample(seededPoisson(t, 4), 1, 64)
	same, differ := true, false
	for i := range a {
		same = same && a[i] == b[i]
		differ = differ || a[i] != c[i]
	}
	if !same {
		t.Error("same seed gave different trajectories")
	}
	if !differ {
		t.Error("seeds 3 and 4 gave the same trajectory")
	}
	// The duration only scales time: at the same fraction, the same value.
	r := seededPoisson(t, 3)
	for _, f := range []float64{0.1, 0.37, 0.5, 0.9} {
		v1 := r.Value(time.Duration(f*float64(d)), d, 1, 64)
		v2 := r.Value(time.Duration(f*float64(3*d)), 3*d, 1, 64)
		if v1 != v2 {
			t.Errorf("fraction %v: %v over %v but %v over %v", f, v1, d, v2, 3*d)
		}
	}
}

func TestPoissonHugeRangeIsCapped(t *testing.T) {
	r := seededPoisson(t, 1)
	if n := len(r.events(1e9)); n > maxEvents {
		t.Fatalf("%d events, cap %d", n, maxEvents)
	}
	v := r.Value(d/2, d, 0, 1e9)
	if v < 0.4e9 || v > 0.6e9 {
		t.Errorf("half-way value %v, want about 5e8", v)
	}
}

func TestPoissonConcurrentUseAndCacheBound(t *testing.T) {
	r := seededPoisson(t, 5)
	want := sample(seededPoisson(t, 5), 1, 32)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				// Many distinct ranges force evictions while others read.
				r.Value(d/3, d, 0, float64(g*100+i+1))
			}
		})
	}
	wg.Wait()
	got := sample(r, 1, 32)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after evictions sample %d = %v, want %v", i, got[i], want[i])
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.cache) > maxCached {
		t.Errorf("cache holds %d trajectories, bound %d", len(r.cache), maxCached)
	}
}

func TestPoissonZeroValueUsable(t *testing.T) {
	var r PoissonRamp
	if got := r.Value(d, d, 1, 10); got != 10 {
		t.Errorf("at end: %v", got)
	}
	if got := r.Value(d/2, d, 1, 10); got < 1 || got > 10 {
		t.Errorf("half-way: %v", got)
	}
}

func BenchmarkPoissonValue(b *testing.B) {
	r := NewPoisson()
	b.ReportAllocs()
	var sink float64
	i := 0
	for b.Loop() {
		sink += r.Value(time.Duration(i%10_000)*time.Millisecond, 10*time.Second, 1, 1000)
		i++
	}
	_ = sink
}

// seededPoisson is the ramp after Init with the run's seed.
func seededPoisson(t testing.TB, seed int64) *PoissonRamp {
	t.Helper()
	r := NewPoisson()
	if err := r.Init(context.Background(), sdk.RunInfo{Seed: seed}); err != nil {
		t.Fatal(err)
	}
	return r
}

// Init reseeds: trajectories drawn under an earlier seed are dropped, and
// a fresh ramp starts with seed 0.
func TestPoissonInitReseeds(t *testing.T) {
	r := seededPoisson(t, 3)
	first := sample(r, 1, 64)
	if err := r.Init(context.Background(), sdk.RunInfo{Seed: 4}); err != nil {
		t.Fatal(err)
	}
	if got, want := sample(r, 1, 64), sample(seededPoisson(t, 4), 1, 64); !slices.Equal(got, want) {
		t.Error("after Init with seed 4 the ramp does not follow seed 4")
	}
	if slices.Equal(first, sample(r, 1, 64)) {
		t.Error("Init with another seed kept the old trajectory")
	}
	if !slices.Equal(sample(NewPoisson(), 1, 64), sample(seededPoisson(t, 0), 1, 64)) {
		t.Error("NewPoisson is not seed 0")
	}
}
