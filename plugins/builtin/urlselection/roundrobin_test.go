package urlselection

import (
	"sync"
	"testing"
)

func TestRoundRobinName(t *testing.T) {
	if RoundRobin != "round_robin" {
		t.Fatalf("RoundRobin = %q", RoundRobin)
	}
}

func TestRoundRobinPick(t *testing.T) {
	r := NewRoundRobin()
	for _, urls := range []int{1, 2, 3, 7} {
		for credit := range 50 {
			if got, want := r.Pick(credit, urls), credit%urls; got != want {
				t.Fatalf("Pick(%d, %d) = %d, want %d", credit, urls, got, want)
			}
		}
	}
	// Edges: no choice to make, and a negative index still lands in range.
	for _, c := range []struct{ credit, urls, want int }{{5, 0, 0}, {5, 1, 0}, {-1, 3, 2}, {-3, 3, 0}} {
		if got := r.Pick(c.credit, c.urls); got != c.want {
			t.Errorf("Pick(%d, %d) = %d, want %d", c.credit, c.urls, got, c.want)
		}
	}
}

// Each URL gets an equal share of consecutive sessions, from any number of
// goroutines (run with -race).
func TestRoundRobinBalancedAndConcurrent(t *testing.T) {
	const urls, perURL, workers = 4, 250, 8
	r := NewRoundRobin()
	counts := make([][urls]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for credit := w; credit < urls*perURL; credit += workers {
				counts[w][r.Pick(credit, urls)]++
			}
		})
	}
	wg.Wait()
	for u := range urls {
		total := 0
		for w := range workers {
			total += counts[w][u]
		}
		if total != perURL {
			t.Errorf("URL %d got %d sessions, want %d", u, total, perURL)
		}
	}
}
