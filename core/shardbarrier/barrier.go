// Package shardbarrier is the start barrier of a sharded run: shard 0
// serves it, every shard (shard 0 too) presents its index and the hash of
// its plan, and when all N have arrived with the same plan every one is
// told to start after the same short delay. The start is a delay from the
// moment each shard gets the answer, read on its own monotonic clock, so
// the hosts' wall clocks never enter a latency; the answer also carries
// shard 0's wall time at the start, the one time axis the merged records
// are placed on.
package shardbarrier

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Path is the barrier's URL path.
const Path = "/aiperf/barrier"

// Lead is how far after the last arrival the shards start: time for the
// answers to reach every shard.
const Lead = 250 * time.Millisecond

// ErrPlanMismatch: the shards do not share one plan (configuration,
// dataset or seed differ), or two claim one index.
var ErrPlanMismatch = errors.New("shards disagree on the plan")

// ErrTimeout: not every shard arrived in time.
var ErrTimeout = errors.New("not every shard reached the start barrier in time")

// arrival is what a shard presents.
type arrival struct {
	Shard    int    `json:"shard"`
	Shards   int    `json:"shards"`
	PlanHash string `json:"plan_hash"`
}

// Start is the barrier's answer.
type Start struct {
	// In is the delay from receiving the answer to the start.
	In time.Duration `json:"start_in_ns"`
	// UnixNs is shard 0's wall clock at the start instant.
	UnixNs int64 `json:"start_unix_ns"`
}

type answer struct {
	Start
	Error string `json:"error,omitempty"`
}

// Server is shard 0's barrier for n shards.
type Server struct {
	n     int
	mu    sync.Mutex
	seen  map[int]string // shard -> plan hash
	first string
	fail  string        // set once the run cannot start
	done  chan struct{} // closed when every shard arrived or the run failed
	start Start
	srv   *http.Server
	ln    net.Listener
	now   func() time.Time
}

// Listen starts serving the barrier for n shards on addr (":7470").
func Listen(addr string, n int) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("start barrier: listen on %s: %w", addr, err)
	}
	s := &Server{n: n, seen: map[int]string{}, done: make(chan struct{}), ln: ln, now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc(Path, s.handle)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the barrier listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the barrier (after the answers went out).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var a arrival
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&a); err != nil {
		writeAnswer(w, http.StatusBadRequest, answer{Error: "bad barrier request: " + err.Error()})
		return
	}
	s.arrive(a)
	select {
	case <-s.done:
	case <-r.Context().Done():
		return
	}
	s.mu.Lock()
	fail, start := s.fail, s.start
	s.mu.Unlock()
	if fail != "" {
		writeAnswer(w, http.StatusConflict, answer{Error: fail})
		return
	}
	writeAnswer(w, http.StatusOK, answer{Start: start})
}

// arrive records a shard and releases everyone once all n arrived.
func (s *Server) arrive(a arrival) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != "" || s.isDone() {
		if s.fail == "" {
			// A late duplicate after the start: the run has begun without it.
			s.fail = fmt.Sprintf("shard %d arrived after every shard had started", a.Shard)
		}
		return
	}
	switch {
	case a.Shards != s.n:
		s.failLocked(fmt.Sprintf("shard %d was started with --shard-count %d, shard 0 with %d", a.Shard, a.Shards, s.n))
	case a.Shard < 0 || a.Shard >= s.n:
		s.failLocked(fmt.Sprintf("shard index %d is outside 0..%d", a.Shard, s.n-1))
	case s.seen[a.Shard] != "":
		s.failLocked(fmt.Sprintf("two shards claim index %d", a.Shard))
	case s.first != "" && a.PlanHash != s.first:
		s.failLocked(fmt.Sprintf("shard %d's plan %s differs from the first shard's %s (configuration, dataset or --random-seed differ)", a.Shard, short(a.PlanHash), short(s.first)))
	default:
		if s.first == "" {
			s.first = a.PlanHash
		}
		s.seen[a.Shard] = a.PlanHash
		if len(s.seen) == s.n {
			s.start = Start{In: Lead, UnixNs: s.now().Add(Lead).UnixNano()}
			close(s.done)
		}
	}
}

func (s *Server) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func (s *Server) failLocked(msg string) {
	s.fail = msg
	if !s.isDone() {
		close(s.done)
	}
}

func short(h string) string {
	if len(h) > 19 {
		return h[:19]
	}
	return h
}

func writeAnswer(w http.ResponseWriter, code int, a answer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(a)
}

// Wait presents shard index of n with planHash at the barrier url and
// blocks until every shard arrived. It retries while the barrier is not
// reachable yet (shard 0 still starting, DNS not yet published) and gives
// up after timeout. The returned Start's In counts from Wait's return.
func Wait(ctx context.Context, url string, index, n int, planHash string, timeout time.Duration) (Start, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, _ := json.Marshal(arrival{Shard: index, Shards: n, PlanHash: planHash})
	client := &http.Client{}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return Start{}, fmt.Errorf("start barrier %s: %w", url, err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err == nil {
			st, done, aerr := readAnswer(resp)
			if done {
				return st, aerr
			}
			last = aerr
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Start{}, fmt.Errorf("%w (%s at %s; last error: %v)", ErrTimeout, timeout, url, last)
			}
			return Start{}, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// readAnswer reads the barrier's answer; done is false when the request
// should be retried.
func readAnswer(resp *http.Response) (Start, bool, error) {
	defer resp.Body.Close()
	var a answer
	err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&a)
	switch {
	case resp.StatusCode == http.StatusOK && err == nil:
		return a.Start, true, nil
	case resp.StatusCode == http.StatusConflict:
		return Start{}, true, fmt.Errorf("%w: %s", ErrPlanMismatch, a.Error)
	case err != nil:
		return Start{}, false, fmt.Errorf("barrier answered %s: %w", resp.Status, err)
	}
	return Start{}, true, fmt.Errorf("barrier answered %s: %s", resp.Status, a.Error)
}
