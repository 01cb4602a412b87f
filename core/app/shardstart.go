package app

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/shardbarrier"
)

// ExitCodeError is an error that ends the command with a given status.
type ExitCodeError struct {
	Code int
	Err  error
}

func (e *ExitCodeError) Error() string { return e.Err.Error() }
func (e *ExitCodeError) Unwrap() error { return e.Err }

// planHash identifies what a shard is about to run: the run's
// configuration as exported (without what differs between shards by
// design: their artifact directories, UI and log level), the seed, and
// every prepared request body in order. Shards whose hashes differ would
// not send disjoint stripes of one plan.
func planHash(inputConfig map[string]any, seed int64, reqs []engine.PreparedRequest) string {
	cfg := maps.Clone(inputConfig)
	for _, k := range []string{"artifacts", "runtime", "logging"} {
		delete(cfg, k)
	}
	h := sha256.New()
	b, _ := json.Marshal(cfg) // maps marshal with sorted keys
	h.Write(b)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(seed))
	h.Write(n[:])
	// Each field length-prefixed, so no two plans hash the same bytes.
	field := func(b []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for i := range reqs {
		field([]byte(reqs[i].ConversationID))
		field(reqs[i].Payload)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// awaitShards takes this shard to the start barrier (serving it on shard
// 0), waits for the common start instant and puts this process's wall
// clock on shard 0's there. A plan that differs from the others' or a
// barrier that times out ends the run with its own exit status, before
// anything is sent.
func (r *Runner) awaitShards(ctx context.Context, hash string) error {
	sh := r.Settings.Shard
	if sh.Index == 0 && sh.Listen != "" {
		srv, err := shardbarrier.Listen(sh.Listen, sh.Count)
		if err != nil {
			return err
		}
		// Shutdown lets the answers to the other shards finish.
		defer func() { go srv.Close() }()
	}
	r.Log.Info("waiting for every shard at the start barrier", "shard", sh.Index, "shards", sh.Count, "plan", hash, "barrier", sh.Barrier)
	st, err := shardbarrier.Wait(ctx, sh.Barrier, sh.Index, sh.Count, hash, sh.Timeout)
	got := clock.Now()
	switch {
	case errors.Is(err, shardbarrier.ErrPlanMismatch):
		return &ExitCodeError{Code: ExitShardPlanMismatch, Err: fmt.Errorf("shard %d: %w", sh.Index, err)}
	case errors.Is(err, shardbarrier.ErrTimeout):
		return &ExitCodeError{Code: ExitShardBarrierTimeout, Err: fmt.Errorf("shard %d: %w", sh.Index, err)}
	case err != nil:
		return fmt.Errorf("shard %d: %w", sh.Index, err)
	}
	start := got + st.In.Nanoseconds()
	if !clock.Sleep(ctx, time.Duration(start-clock.Now())) {
		return ctx.Err()
	}
	clock.AlignWall(start, st.UnixNs)
	r.Log.Info("all shards started", "shard", sh.Index, "shards", sh.Count)
	return nil
}
