package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/shardresult"
	"github.com/aiperf-go/aiperf/core/version"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/google/uuid"
)

// shardPayload is the result payload of shard index of count from its run
// directory, digested with this binary's metric catalog, as a merge reads
// it (shardresult.FromRunDir).
func shardPayload(dir string, index, count int, planHash string, exact bool) ([]byte, error) {
	in, err := readMergeInput(dir)
	if err != nil {
		return nil, err
	}
	reg, err := plotRegistry(io.Discard, nil)
	if err != nil {
		return nil, err
	}
	defer reg.Close()
	mc, err := mergeCatalog(reg, in)
	if err != nil {
		return nil, err
	}
	return shardresult.FromRunDir(dir, mc.cat, mc.info, index, count, planHash, exact)
}

// shardMerge says how the shards of a sharded run were merged.
type shardMerge struct {
	Shards, Completed int
	Failed            []sdk.ShardFailure
	Partial           bool
	Method            string
	// Results is the merged result (nil when the merge failed before
	// summarizing); the launcher's gate judges it.
	Results *sdk.Results
}

// mergeShardReports merges the completed shards of a sharded run into out
// and prints the console tables. Shards whose files are on this machine
// (Dir) and shards whose result carries its records (--exact) are merged
// exactly, every record folded by the single-run code; otherwise the
// shards' digests are merged: counts, sums, min, max, mean, std and the
// throughputs exact, percentiles from the merged DDSketches. Per-shard
// percentiles are never averaged. exact insists on the exact merge.
func mergeShardReports(ctx context.Context, stdout, stderr io.Writer, reports []sdk.ShardReport, out string, exact bool) (*shardMerge, error) {
	reports = slices.Clone(reports)
	slices.SortStableFunc(reports, func(a, b sdk.ShardReport) int { return a.Index - b.Index })
	m := &shardMerge{Shards: len(reports)}
	var ok []sdk.ShardReport
	for _, r := range reports {
		if r.OK {
			ok = append(ok, r)
			continue
		}
		reason := r.Reason
		if reason == "" {
			reason = "exit status " + strconv.Itoa(r.ExitCode)
		}
		m.Failed = append(m.Failed, sdk.ShardFailure{Shard: r.Index, Reason: reason})
	}
	m.Completed, m.Partial = len(ok), len(ok) < len(reports)
	if len(ok) == 0 {
		return m, fmt.Errorf("none of the %d shards completed; nothing to merge", len(reports))
	}

	// Decode what came through logs; note whether every shard has records.
	results := make([]*shardresult.Result, len(ok))
	allRecords := true
	for i, r := range ok {
		switch {
		case r.Result != nil:
			res, err := shardresult.Decode(r.Result)
			if err != nil {
				return m, fmt.Errorf("shard %d: %w", r.Index, err)
			}
			if res.ShardIndex != r.Index {
				return m, fmt.Errorf("shard %d: its result says it is shard %d", r.Index, res.ShardIndex)
			}
			results[i] = res
			allRecords = allRecords && res.HasRecords()
		case r.Dir == "":
			return m, fmt.Errorf("shard %d completed but left neither an artifact directory nor a result", r.Index)
		}
	}
	if err := samePlan(ok, results); err != nil {
		return m, err
	}
	if exact && !allRecords {
		return m, errors.New("--exact: some shard results carry no records (were the shards started with --exact?)")
	}

	sharding := func(method string) *sdk.ShardingInfo {
		m.Method = method
		sh := &sdk.ShardingInfo{Shards: m.Shards, Completed: m.Completed, Failed: m.Failed, Partial: m.Partial, Percentiles: method}
		if method == sdk.PercentilesDDSketch {
			sh.RelativeAccuracy = relativeAccuracy(results)
		}
		return sh
	}
	cmdline := fmt.Sprintf("aiperf profile (%d shards merged)", m.Shards)
	if allRecords {
		dirs := make([]string, len(ok))
		for i, r := range ok {
			dirs[i] = r.Dir
			if results[i] != nil {
				dirs[i] = sdk.ShardDir(out, r.Index)
				if err := results[i].WriteRunDir(dirs[i]); err != nil {
					return m, err
				}
			}
		}
		res, err := mergeRunDirs(ctx, stdout, stderr, dirs, out, cmdline, sharding(sdk.PercentilesExact))
		m.Results = res
		return m, err
	}
	// Shards on disk among digests: digest them too.
	for i, r := range ok {
		if results[i] != nil {
			continue
		}
		b, err := shardPayload(r.Dir, r.Index, m.Shards, "", false)
		if err != nil {
			return m, fmt.Errorf("shard %d: %w", r.Index, err)
		}
		if results[i], err = shardresult.Decode(b); err != nil {
			return m, fmt.Errorf("shard %d: %w", r.Index, err)
		}
	}
	res, err := mergeDigests(ctx, stdout, stderr, results, out, cmdline, sharding(sdk.PercentilesDDSketch))
	m.Results = res
	return m, err
}

// relativeAccuracy is the α of the shards' sketches (they merge only when
// equal): the default when no metric has one.
func relativeAccuracy(results []*shardresult.Result) float64 {
	for _, r := range results {
		if r == nil {
			continue
		}
		for _, d := range r.Partial.Metrics {
			return d.RelativeAccuracy()
		}
	}
	return metrics.DefaultRelativeAccuracy
}

// samePlan refuses results of shards that ran different plans (their
// barrier should have stopped them; a stale log must not slip in).
func samePlan(ok []sdk.ShardReport, results []*shardresult.Result) error {
	first := -1
	for i, r := range results {
		if r == nil {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		f := results[first]
		if r.PlanHash != f.PlanHash || r.ShardCount != f.ShardCount {
			return fmt.Errorf("shards %d and %d ran different plans (plan %s of %d shards vs %s of %d)",
				ok[first].Index, ok[i].Index, f.PlanHash, f.ShardCount, r.PlanHash, r.ShardCount)
		}
	}
	return nil
}

// mergeDigests is the sketch merge: the shards' partial accumulators
// merged and summarized by core/metrics, the throughputs over the union
// span, written to out through the exporters an exact merge uses. Each
// shard's summary is kept in its shard directory.
func mergeDigests(ctx context.Context, stdout, stderr io.Writer, results []*shardresult.Result, out, cmdline string, sharding *sdk.ShardingInfo) (*sdk.Results, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var inputs []mergeInput
	for _, r := range results {
		dir := sdk.ShardDir(out, r.ShardIndex)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", dir, err)
		}
		path := filepath.Join(dir, artifacts.SummaryFile)
		if err := os.WriteFile(path, r.Summary, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		var err error
		if inputs, err = addMergeInput(inputs, dir); err != nil {
			return nil, err
		}
	}
	reg, mc, err := openMergeCatalog(stderr, inputs[0])
	if err != nil {
		return nil, err
	}
	defer closeRegistry(stderr, reg)
	p := results[0].Partial
	span := shardresult.NewSpan()
	cancelled, n := false, 0
	for i, r := range results {
		if i > 0 {
			if err := p.Merge(r.Partial); err != nil {
				return nil, fmt.Errorf("shard %d: %w", r.ShardIndex, err)
			}
		}
		span.Widen(r.Span)
		cancelled = cancelled || r.WasCancelled
		n += r.Records
	}
	if n == 0 {
		return nil, errors.New("no profiling records in any shard")
	}
	res, err := metrics.SummarizePartial(mc.cat, mc.info, p, span.Start, span.End)
	if err != nil {
		return nil, err
	}
	res.StartTime, res.EndTime = time.Unix(0, span.Start), time.Unix(0, span.End)
	res.WasCancelled = cancelled
	inputConfig, err := shardresult.SummaryInputConfig(results[0].Summary, filepath.Join(inputs[0].dir, artifacts.SummaryFile))
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create the artifact directory %s: %w", out, err)
	}
	ec := &sdk.ExportContext{
		ArtifactDir: out, Files: (&config.RunConfig{}).ExportFiles(), ExportLevel: "summary", Results: res,
		Endpoint: mc.md, Streaming: mc.info.Streaming, AIPerfVersion: version.Version,
		BenchmarkID: strings.ReplaceAll(uuid.NewString(), "-", "")[:12],
		CLICommand:  cmdline, InputConfig: inputConfig, Sharding: sharding,
	}
	return res, exportMerged(ctx, stdout, reg, mc.info, mc.cat, ec, len(results), n)
}
