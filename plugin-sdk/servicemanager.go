package sdk

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"time"
)

// CategoryServiceManager is the service_manager category's name.
const CategoryServiceManager = "service_manager"

// ServiceManagers is the service_manager category: where a profile runs
// (--service-manager). inprocess runs it in the CLI's own process; the
// others run --shards N copies of `aiperf profile`, each sending a disjoint
// stripe of the one plan, and hand back what each produced for the CLI to
// merge. Builtin only: a manager starts and supervises aiperf processes.
var ServiceManagers = define[ServiceManager](Category{Name: CategoryServiceManager, Cardinality: One, Order: 190,
	Description:   "Where a profile runs: this process, shards on this host, or a Kubernetes Indexed Job (--service-manager)",
	BuiltinReason: "it starts and supervises aiperf processes itself"})

// ServiceManager runs the shards of a sharded profile and reports each one.
// It never re-runs a failed shard: the others finish, and the report says
// which failed (the CLI then marks the merged result PARTIAL).
type ServiceManager interface {
	RunShards(ctx context.Context, job ShardJob) ([]ShardReport, error)
}

// ShardJob is what a service manager needs to start the shards.
type ShardJob struct {
	// Shards is the number of shards, N >= 1.
	Shards int
	// Args is the `aiperf profile` command line every shard runs (after
	// "profile"), without the flags that select or configure the service
	// manager and without --artifact-dir and --ui. The manager appends
	// --shard-index, --shard-count, --shard-barrier, --shard-barrier-listen,
	// --artifact-dir and --ui none (and --shard-emit-result where the
	// artifacts cannot be read from disk).
	Args []string
	// ArtifactDir is the merged run's directory; shard i's own artifacts
	// go under ShardDir(ArtifactDir, i) where the manager can write them.
	ArtifactDir string
	// Exact asks every shard to keep its per-request records for an exact
	// merge (--exact); a local manager always has them on disk.
	Exact bool
	// BarrierTimeout is how long a shard waits for all N at the start
	// barrier before it fails (--shard-barrier-timeout).
	BarrierTimeout time.Duration
	// Executable is the aiperf binary a local manager starts.
	Executable string
	// Progress receives one line per shard event (started, progress,
	// finished, failed), prefixed with the shard.
	Progress io.Writer
}

// ShardReport is what one shard produced.
type ShardReport struct {
	Index int
	// OK: the shard ran to its end and its result is complete.
	OK bool
	// ExitCode is the shard process's exit status (-1 when it never ran or
	// was killed by a signal).
	ExitCode int
	// Reason says why a shard failed ("" when OK).
	Reason string
	// Dir is the shard's artifact directory when its files are on this
	// machine (local manager), else "".
	Dir string
	// Result is the shard's result payload as the shard emitted it
	// (core/shardresult; already checked against its checksum) when its
	// files are not on this machine (kubernetes manager), else nil.
	Result []byte
}

// ShardDir is where shard i of a run whose merged artifacts go to
// artifactDir keeps its own artifacts: <artifactDir>/shards/shard-<i>.
func ShardDir(artifactDir string, i int) string {
	return filepath.Join(artifactDir, "shards", "shard-"+strconv.Itoa(i))
}

// ShardLog is where the launcher keeps shard i's log (its output, or its
// pod's log): <artifactDir>/shards/shard-<i>.log, beside ShardDir.
func ShardLog(artifactDir string, i int) string {
	return ShardDir(artifactDir, i) + ".log"
}

// Exit statuses a shard ends with when the whole sharded run must stop at
// once (a Kubernetes podFailurePolicy fails the Job on them): the shards do
// not share one plan, or not all of them reached the start barrier in time.
// core/app's exit codes name them too.
const (
	ShardExitPlanMismatch   = 6
	ShardExitBarrierTimeout = 7
)

// ShardBarrierPort is the port shard 0 serves the start barrier on inside a
// cluster (--shard-barrier-listen :7470).
const ShardBarrierPort = 7470
