package local

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// shardScript is a stand-in for the aiperf executable: a real child
// process that records its arguments and ends as SHARD_<index> says
// ("exit N", "fail" with a message on stderr, "mismatch": exit 6 once
// shards 0 and 2 wait, or "wait": until interrupted,
// then exit 130 as aiperf does, or 0 after a minute; it says when it is
// ready for the interrupt with a ready-<index> file).
const shardScript = `#!/bin/sh
idx=""; prev=""
for a in "$@"; do [ "$prev" = "--shard-index" ] && idx=$a; prev=$a; done
echo "$@" > "$ARGS_DIR/args-$idx"
eval "what=\$SHARD_$idx"
case "$what" in
  wait) sleep 60 & trap 'kill $!; exit 130' INT; : > "$ARGS_DIR/ready-$idx"; wait; exit 0 ;;
  fail) echo "first line" >&2; echo "Error: the shard broke" >&2; exit 1 ;;
  mismatch) while [ ! -e "$ARGS_DIR/ready-0" ] || [ ! -e "$ARGS_DIR/ready-2" ]; do sleep 0.01; done; exit 6 ;;
  *) exit "$what" ;;
esac
`

func fakeAiperf(t *testing.T, outcomes ...string) (exe, argsDir string) {
	t.Helper()
	dir := t.TempDir()
	exe = filepath.Join(dir, "aiperf")
	if err := os.WriteFile(exe, []byte(shardScript), 0o755); err != nil {
		t.Fatal(err)
	}
	argsDir = filepath.Join(dir, "args")
	if err := os.Mkdir(argsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARGS_DIR", argsDir)
	for i, o := range outcomes {
		t.Setenv("SHARD_"+string(rune('0'+i)), o)
	}
	return exe, argsDir
}

func TestRunShardsReportsEveryShard(t *testing.T) {
	exe, argsDir := fakeAiperf(t, "0", "3", "fail")
	out := t.TempDir()
	var progress strings.Builder
	reports, err := New().RunShards(context.Background(), sdk.ShardJob{Shards: 3, Args: []string{"-m", "m", "--concurrency", "6"},
		ArtifactDir: out, Executable: exe, BarrierTimeout: 90 * time.Second, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 3 {
		t.Fatalf("%d reports for 3 shards", len(reports))
	}
	// Exit 3 is a verdict on the shard's own stripe: it completed.
	for i, want := range []bool{true, true, false} {
		r := reports[i]
		if r.Index != i || r.OK != want || r.Dir != sdk.ShardDir(out, i) {
			t.Errorf("shard %d: report %+v, want OK=%v in %s", i, r, want, sdk.ShardDir(out, i))
		}
		if _, err := os.Stat(filepath.Join(out, "shards", "shard-"+string(rune('0'+i))+".log")); err != nil {
			t.Errorf("shard %d has no log: %v", i, err)
		}
	}
	if r := reports[2]; r.ExitCode != 1 || r.Reason != "exit 1: Error: the shard broke" {
		t.Errorf("failed shard: exit %d, reason %q; want its last stderr line", r.ExitCode, r.Reason)
	}
	args, err := os.ReadFile(filepath.Join(argsDir, "args-1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"profile -m m --concurrency 6 --shard-index 1 --shard-count 3 --shard-barrier http://127.0.0.1:",
		"--artifact-dir " + sdk.ShardDir(out, 1) + " --ui none --shard-barrier-timeout 90"} {
		if !strings.Contains(string(args), want) {
			t.Errorf("shard 1 ran with %q, want it to contain %q", args, want)
		}
	}
	if !strings.Contains(progress.String(), "shard 2: failed (exit 1: Error: the shard broke)") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// A shard whose plan differs from the others' stops the run: the waiting
// shards are interrupted rather than left to time out at the barrier.
func TestRunShardsStopsTheOthersOnAPlanMismatch(t *testing.T) {
	exe, _ := fakeAiperf(t, "wait", "mismatch", "wait")
	reports, err := New().RunShards(context.Background(), sdk.ShardJob{Shards: 3, ArtifactDir: t.TempDir(), Executable: exe})
	if err == nil || !strings.Contains(err.Error(), "shard 1") {
		t.Fatalf("err = %v, want the run stopped by shard 1", err)
	}
	if reports[1].ExitCode != sdk.ShardExitPlanMismatch {
		t.Errorf("shard 1 exit %d, want %d", reports[1].ExitCode, sdk.ShardExitPlanMismatch)
	}
	// Left alone they would end with exit 0 (OK) after a minute.
	for _, i := range []int{0, 2} {
		if r := reports[i]; r.OK {
			t.Errorf("shard %d: %+v, want interrupted", i, r)
		}
	}
}

// Ctrl-C (ctx cancelled) interrupts every shard so each exports what it
// measured; the run itself is not an error.
func TestRunShardsInterruptsEveryShardOnCancel(t *testing.T) {
	exe, argsDir := fakeAiperf(t, "wait", "wait")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancel once both children are ready for the interrupt.
		for {
			_, err0 := os.Stat(filepath.Join(argsDir, "ready-0"))
			_, err1 := os.Stat(filepath.Join(argsDir, "ready-1"))
			if err0 == nil && err1 == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	reports, err := New().RunShards(ctx, sdk.ShardJob{Shards: 2, ArtifactDir: t.TempDir(), Executable: exe})
	if err != nil {
		t.Fatalf("err = %v, want none for a Ctrl-C", err)
	}
	for i, r := range reports {
		if r.ExitCode != 130 {
			t.Errorf("shard %d: %+v, want interrupted (exit 130)", i, r)
		}
	}
}

func TestRunShardsRefusesABadJob(t *testing.T) {
	if _, err := New().RunShards(context.Background(), sdk.ShardJob{Shards: 0, Executable: "x"}); err == nil {
		t.Error("0 shards accepted")
	}
	if _, err := New().RunShards(context.Background(), sdk.ShardJob{Shards: 2}); err == nil {
		t.Error("no executable accepted")
	}
}

func TestLastLineKeepsTheLastNonEmptyLine(t *testing.T) {
	var l lastLine
	for _, w := range []string{"one\n", "tw", "o\n\n  \n", "thr"} {
		_, _ = l.Write([]byte(w))
	}
	if got := l.String(); got != "thr" {
		t.Errorf("after an unfinished line: %q, want %q", got, "thr")
	}
	_, _ = l.Write([]byte("ee\n\n"))
	if got := l.String(); got != "three" {
		t.Errorf("got %q, want %q", got, "three")
	}
}
