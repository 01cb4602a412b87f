package app

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// Exit statuses of `aiperf profile`, the one place they are defined (README
// "Exit codes", docs/METRICS.md). When several verdicts apply the most
// fundamental wins: too many failed requests, then an invalid run, then
// breached thresholds, then an error of aiperf itself (an export failed).
const (
	// ExitOK: the run completed and passed every check; also a run
	// cancelled with Ctrl-C (AIPerf 0.13).
	ExitOK = 0
	// ExitFailed: bad input (flags, config file, dataset, tokenizer,
	// plugin settings, rejected before any request is sent) or aiperf
	// could not carry out or export the run. AIPerf 0.13 exits 1 for all
	// of these.
	ExitFailed = 1
	// ExitBadInput is ExitFailed, named for the bad-input case.
	ExitBadInput = ExitFailed
	// ExitThresholds: a --threshold was breached, or could not be
	// measured.
	ExitThresholds = 2
	// ExitFailedRequests: too many requests failed: every request failed
	// (AIPerf exits 1 there), or --failed-request-threshold stopped the run.
	ExitFailedRequests = 3
	// ExitInvalidRun: the run-validity verdict found a client-limited run
	// (its numbers describe aiperf, not the server) and
	// --fail-on-client-limited was given (validity.go).
	ExitInvalidRun = 4
	// ExitPartial: a sharded run (--shards) lost a shard; the others
	// finished and the merged result, marked PARTIAL, is theirs alone.
	// --allow-partial makes it ExitOK.
	ExitPartial = 5
	// ExitShardPlanMismatch: a shard's plan (configuration, dataset) is not
	// the others' (sdk.ShardExitPlanMismatch).
	ExitShardPlanMismatch = sdk.ShardExitPlanMismatch
	// ExitShardBarrierTimeout: not every shard reached the start barrier
	// within --shard-barrier-timeout (sdk.ShardExitBarrierTimeout).
	ExitShardBarrierTimeout = sdk.ShardExitBarrierTimeout
	// ExitInterrupted: Ctrl-C before the benchmark started (plugins or the
	// dataset still loading: nothing sent, nothing to export), or a second
	// Ctrl-C forcing an immediate exit. 128+SIGINT, as shells report it.
	ExitInterrupted = 130
	// ExitRegression: `aiperf compare` found a significant regression
	// beyond a --tolerance, a breached gate like a --threshold.
	ExitRegression = ExitThresholds
)

// ExitMeaning is the verdict an exit status stands for.
func ExitMeaning(code int) string {
	switch code {
	case ExitOK:
		return "passed"
	case ExitFailed:
		return "error"
	case ExitThresholds:
		return "thresholds breached"
	case ExitFailedRequests:
		return "too many failed requests"
	case ExitInvalidRun:
		return "invalid run"
	case ExitPartial:
		return "partial (a shard failed)"
	case ExitShardPlanMismatch:
		return "shards disagree on the plan"
	case ExitShardBarrierTimeout:
		return "shards missed the start barrier"
	case ExitInterrupted:
		return "interrupted"
	}
	return "exit status"
}
