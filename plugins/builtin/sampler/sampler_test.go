package sampler

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

var all = []struct {
	name string
	s    sdk.DatasetSampler
}{{Shuffle, NewShuffle()}, {Sequential, NewSequential()}, {Random, NewRandom()}}

func draw(s sdk.DatasetSampler, n int, seed int64, credits int) []int {
	at := s.Order(n, seed)
	out := make([]int, credits)
	for i := range out {
		out[i] = at(i)
	}
	return out
}

func drawPasses(s sdk.DatasetSampler, n int, seed int64, passes int) [][]int {
	flat := draw(s, n, seed, n*passes)
	out := make([][]int, passes)
	for p := range out {
		out[p] = flat[p*n : (p+1)*n]
	}
	return out
}

func TestNames(t *testing.T) {
	if Shuffle != "shuffle" || Sequential != "sequential" || Random != "random" {
		t.Fatalf("names %q %q %q are not AIPerf's", Shuffle, Sequential, Random)
	}
}

// The orders engine.sampler produced before the move, for n=5 seed=42: a run
// with the same seed keeps sending the same sessions.
func TestOrdersAreUnchangedByTheMove(t *testing.T) {
	want := map[string]string{
		Shuffle:    "[3 1 2 4 0 2 3 1 4 0 3 1 0 2 4]",
		Random:     "[4 0 4 4 2 3 3 1 4 1 1 0 2 3 2]",
		Sequential: "[0 1 2 3 4 0 1 2 3 4 0 1 2 3 4]",
	}
	for _, c := range all {
		if got := fmt.Sprint(draw(c.s, 5, 42, 15)); got != want[c.name] {
			t.Errorf("%s = %s, want %s", c.name, got, want[c.name])
		}
	}
}

func TestShuffleEveryPassIsAPermutation(t *testing.T) {
	for _, c := range []struct {
		n    int
		seed int64
	}{{1, 0}, {2, 1}, {7, 42}, {50, -3}, {257, 1 << 40}} {
		t.Run(fmt.Sprintf("n=%d seed=%d", c.n, c.seed), func(t *testing.T) {
			identity := make([]int, c.n)
			for i := range identity {
				identity[i] = i
			}
			for p, pass := range drawPasses(NewShuffle(), c.n, c.seed, 5) {
				if sorted := slices.Sorted(slices.Values(pass)); !slices.Equal(sorted, identity) {
					t.Fatalf("pass %d does not send every session once: %v", p, pass)
				}
			}
		})
	}
}

func TestShuffleSeeding(t *testing.T) {
	const n = 40
	a := drawPasses(NewShuffle(), n, 7, 3)
	b := drawPasses(NewShuffle(), n, 7, 3)
	c := drawPasses(NewShuffle(), n, 8, 3)
	for p := range a {
		if !slices.Equal(a[p], b[p]) {
			t.Errorf("same seed, pass %d differs:\n%v\n%v", p, a[p], b[p])
		}
		// 40! orders: equal passes for different seeds mean the seed is ignored.
		if slices.Equal(a[p], c[p]) {
			t.Errorf("seeds 7 and 8 give the same pass %d: %v", p, a[p])
		}
	}
	// It reshuffles between passes and does not start in dataset order.
	if slices.Equal(a[0], a[1]) {
		t.Errorf("pass 1 repeats pass 0: %v", a[0])
	}
	if slices.IsSorted(a[0]) {
		t.Errorf("first pass is in dataset order: %v", a[0])
	}
}

// Each phase calls Order afresh: a new order function starts over from pass
// 0 whatever the previous one was asked.
func TestOrderStartsAfresh(t *testing.T) {
	for _, c := range all {
		s := c.s
		first := draw(s, 9, 5, 30)
		draw(s, 9, 5, 100) // another phase in between
		if again := draw(s, 9, 5, 30); !slices.Equal(first, again) {
			t.Errorf("%s: second Order gave %v, first %v", c.name, again, first)
		}
	}
}

func TestDeterministicPerSeed(t *testing.T) {
	for _, c := range all {
		a, b := draw(c.s, 30, 11, 300), draw(c.s, 30, 11, 300)
		if !slices.Equal(a, b) {
			t.Errorf("%s: same seed gave two orders", c.name)
		}
		other := draw(c.s, 30, 12, 300)
		if c.name == Sequential {
			if !slices.Equal(a, other) {
				t.Errorf("sequential depends on the seed")
			}
		} else if slices.Equal(a, other) {
			t.Errorf("%s: seeds 11 and 12 gave the same order", c.name)
		}
	}
}

func TestSequentialAndRandom(t *testing.T) {
	if got := fmt.Sprint(draw(NewSequential(), 4, 7, 9)); got != "[0 1 2 3 0 1 2 3 0]" {
		t.Errorf("sequential = %v, want dataset order wrapping", got)
	}
	counts := map[int]int{}
	for _, v := range draw(NewRandom(), 4, 7, 200) {
		if v < 0 || v >= 4 {
			t.Fatalf("random drew %d of 4 sessions", v)
		}
		counts[v]++
	}
	if len(counts) != 4 {
		t.Errorf("random sampling over 200 draws hit %d of 4 entries", len(counts))
	}
	// With replacement: a pass is not a permutation (it would be with
	// probability 4!/4^4 ≈ 9%; over 50 passes, never).
	perms := 0
	for _, pass := range drawPasses(NewRandom(), 4, 7, 50) {
		if slices.Equal(slices.Sorted(slices.Values(pass)), []int{0, 1, 2, 3}) {
			perms++
		}
	}
	if perms == 50 {
		t.Error("random draws look like shuffle: every pass a permutation")
	}
}

// The session of a credit depends only on its index, not on the order in
// which sending goroutines ask: trace replay pairs offset i with entry i.
func TestOrderIsAFunctionOfTheCreditIndex(t *testing.T) {
	for _, c := range all {
		forward := draw(c.s, 7, 3, 50)
		at := c.s.Order(7, 3)
		for i := 49; i >= 0; i-- {
			if got := at(i); got != forward[i] {
				t.Fatalf("%s: credit %d got session %d asked last, %d asked first", c.name, i, got, forward[i])
			}
		}
	}
}

// Many goroutines share one order function (run with -race): every credit
// gets the session a lone caller gets, and shuffle stays balanced.
func TestConcurrentDraws(t *testing.T) {
	const n, passes, workers = 13, 20, 8
	for _, c := range all {
		want := draw(c.s, n, 1, n*passes)
		at := c.s.Order(n, 1)
		got := make([]int, n*passes)
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(got) {
						return
					}
					got[i] = at(i)
				}
			})
		}
		wg.Wait()
		if !slices.Equal(got, want) {
			t.Errorf("%s: concurrent draws differ from sequential ones", c.name)
		}
		if c.name == Shuffle {
			counts := make([]int, n)
			for _, v := range got {
				counts[v]++
			}
			for i, k := range counts {
				if k != passes {
					t.Errorf("shuffle: session %d drawn %d times over %d full passes", i, k, passes)
				}
			}
		}
	}
}

func BenchmarkOrder(b *testing.B) {
	for _, c := range all {
		b.Run(c.name, func(b *testing.B) {
			at := c.s.Order(1000, 1)
			b.ReportAllocs()
			i, sink := 0, 0
			for b.Loop() {
				sink += at(i)
				i++
			}
			_ = sink
		})
	}
}
