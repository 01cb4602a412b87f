// Package local is the local service_manager plugin: the shards of a
// sharded run as child aiperf processes on this host. It goes past one
// process's limits (a Go runtime, a file-descriptor table) and is the test
// bed of the sharding protocol: the same barrier, stripes and merge as on a
// cluster, with the records on this machine's disk, so the merge is exact.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/core/shardbarrier"
	"github.com/aiperf-go/aiperf/internal/lines"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "local"

// Manager starts the shards as child processes.
type Manager struct{}

var _ sdk.ServiceManager = (*Manager)(nil)

// New returns the manager.
func New() *Manager { return &Manager{} }

// completedExits are the exit statuses of a shard that ran to its end with
// complete records: passed, or a verdict on its own part of the load
// (thresholds, failed requests, validity), which the merged result decides
// for the whole run.
var completedExits = map[int]bool{0: true, 2: true, 3: true, 4: true}

// RunShards starts job.Shards children of job.Executable, each `aiperf
// profile` with its shard flags and its own artifact directory, waits for
// all of them and reports each. A shard that ends with a plan mismatch or
// a barrier timeout stops the others (they could not start either).
// Cancelling ctx (Ctrl-C) interrupts every child, which exports what it
// measured.
func (m *Manager) RunShards(ctx context.Context, job sdk.ShardJob) ([]sdk.ShardReport, error) {
	if job.Shards < 1 {
		return nil, fmt.Errorf("local service manager: %d shards", job.Shards)
	}
	if job.Executable == "" {
		return nil, errors.New("local service manager: no aiperf executable to start")
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	progress := job.Progress
	if progress == nil {
		progress = io.Discard
	}
	var pmu sync.Mutex
	say := func(format string, a ...any) {
		pmu.Lock()
		defer pmu.Unlock()
		fmt.Fprintf(progress, format+"\n", a...)
	}
	ctx, stopAll := context.WithCancelCause(ctx)
	defer stopAll(nil)

	reports := make([]sdk.ShardReport, job.Shards)
	var wg sync.WaitGroup
	for i := 0; i < job.Shards; i++ {
		dir := sdk.ShardDir(job.ArtifactDir, i)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("local service manager: shard %d: %w", i, err)
		}
		args := append([]string{"profile"}, job.Args...)
		args = append(args,
			"--shard-index", strconv.Itoa(i), "--shard-count", strconv.Itoa(job.Shards),
			"--shard-barrier", "http://"+addr+shardbarrier.Path, "--shard-barrier-listen", addr,
			"--artifact-dir", dir, "--ui", "none")
		if job.BarrierTimeout > 0 {
			args = append(args, "--shard-barrier-timeout", strconv.FormatFloat(job.BarrierTimeout.Seconds(), 'f', -1, 64))
		}
		logPath := sdk.ShardLog(job.ArtifactDir, i)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			reports[i] = runShard(ctx, job.Executable, args, i, dir, logPath, say)
			if c := reports[i].ExitCode; c == sdk.ShardExitPlanMismatch || c == sdk.ShardExitBarrierTimeout {
				stopAll(fmt.Errorf("shard %d: %s", i, reports[i].Reason))
			}
		}(i)
	}
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return reports, fmt.Errorf("sharded run stopped: %w", cause)
	}
	return reports, nil
}

// runShard runs one child to its end and reports it.
func runShard(ctx context.Context, exe string, args []string, i int, dir, logPath string, say func(string, ...any)) sdk.ShardReport {
	rep := sdk.ShardReport{Index: i, ExitCode: -1, Dir: dir}
	logFile, err := os.Create(logPath)
	if err != nil {
		rep.Reason = fmt.Sprintf("create %s: %v", logPath, err)
		say("shard %d: failed (%s)", i, rep.Reason)
		return rep
	}
	defer logFile.Close()
	cmd := exec.CommandContext(ctx, exe, args...)
	// Ctrl-C reaches a child as an interrupt, so it exports what it
	// measured; one that does not end within the grace is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	cmd.Stdout = logFile
	tail := &lastLine{}
	cmd.Stderr = io.MultiWriter(logFile, tail)
	if err := cmd.Start(); err != nil {
		rep.Reason = fmt.Sprintf("start %s: %v", exe, err)
		say("shard %d: failed (%s)", i, rep.Reason)
		return rep
	}
	say("shard %d: started (pid %d, log %s)", i, cmd.Process.Pid, logPath)
	err = cmd.Wait()
	rep.ExitCode = cmd.ProcessState.ExitCode()
	if completedExits[rep.ExitCode] {
		rep.OK = true
		say("shard %d: finished (exit %d)", i, rep.ExitCode)
		return rep
	}
	rep.Reason = fmt.Sprintf("exit %d", rep.ExitCode)
	if rep.ExitCode < 0 {
		rep.Reason = err.Error()
	}
	if l := tail.String(); l != "" {
		rep.Reason += ": " + l
	}
	say("shard %d: failed (%s)", i, rep.Reason)
	return rep
}

// freeLoopbackAddr picks a free port on the loopback interface for shard
// 0's barrier.
func freeLoopbackAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("local service manager: pick a barrier port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// lastLine keeps the last non-empty line written to it: a failed shard's
// reason (an unfinished last line counts, up to maxPartial bytes).
type lastLine struct {
	split lines.Splitter
	mu    sync.Mutex
	last  string
}

const maxPartial = 4096

func (l *lastLine) Write(p []byte) (int, error) {
	l.split.Write(p, maxPartial, func(b []byte) {
		if s := strings.TrimSpace(string(b)); s != "" {
			l.mu.Lock()
			l.last = s
			l.mu.Unlock()
		}
	})
	return len(p), nil
}

func (l *lastLine) String() string {
	if s := strings.TrimSpace(string(l.split.Pending())); s != "" {
		return s
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}
