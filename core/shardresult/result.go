package shardresult

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Version is the Result payload's format version; Decode refuses others,
// so a CLI never merges shards of a build that digests differently.
const Version = 1

// Result is what one shard hands back: its summary file (input_config and
// metadata for the merged summary), the profiling records' span, its
// accumulator in mergeable form (per metric count, sum, min, max, mean,
// M2 and a DDSketch, in the metric's base unit; the run-level counts and
// error groups) and, with --exact, its raw records.
type Result struct {
	Version    int    `json:"version"`
	ShardIndex int    `json:"shard_index"`
	ShardCount int    `json:"shard_count"`
	PlanHash   string `json:"plan_hash"`
	// Summary is the shard's profile_export_aiperf.json, verbatim.
	Summary []byte `json:"summary"`
	// Span bounds the shard's profiling records (epoch ns); Records counts
	// them.
	Span         Span             `json:"span"`
	Records      int              `json:"records"`
	WasCancelled bool             `json:"was_cancelled"`
	Partial      *metrics.Partial `json:"partial"`
	// RecordsJSONL is the shard's profile_export.jsonl, verbatim, when it
	// ran with --exact; nil otherwise.
	RecordsJSONL []byte `json:"records_jsonl,omitempty"`
}

// FromRunDir builds shard shardIndex's result payload from its artifact
// directory after its run, folding its records into an accumulator of cat
// and info (the run's own metric catalog) as an exact merge does. exact
// keeps the raw records in the payload too.
func FromRunDir(dir string, cat *metrics.Catalog, info sdk.RunInfo, shardIndex, shardCount int, planHash string, exact bool) ([]byte, error) {
	if cat == nil {
		return nil, errors.New("shard result: no metric catalog")
	}
	if err := artifacts.CheckRunDir(dir); err != nil {
		return nil, err
	}
	sumPath := filepath.Join(dir, artifacts.SummaryFile)
	summary, err := os.ReadFile(sumPath)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sumPath, err)
	}
	cancelled, err := SummaryCancelled(summary, sumPath)
	if err != nil {
		return nil, err
	}
	acc, err := metrics.NewAccumulator(cat, info)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sumPath, err)
	}
	recPath := filepath.Join(dir, artifacts.RecordsFile)
	span := NewSpan()
	n, err := FoldFile(acc, cat, recPath, io.Discard, &span)
	if err != nil {
		return nil, err
	}
	p, err := acc.Partial(metrics.DefaultRelativeAccuracy)
	if err != nil {
		return nil, fmt.Errorf("digest %s: %w", recPath, err)
	}
	r := Result{Version: Version, ShardIndex: shardIndex, ShardCount: shardCount, PlanHash: planHash,
		Summary: summary, Span: span, Records: n, WasCancelled: cancelled, Partial: p}
	if exact {
		if r.RecordsJSONL, err = os.ReadFile(recPath); err != nil {
			return nil, fmt.Errorf("read %s: %w", recPath, err)
		}
	}
	b, err := json.Marshal(&r)
	if err != nil {
		return nil, fmt.Errorf("encode shard %d's result: %w", shardIndex, err)
	}
	return b, nil
}

// Decode reads a result payload.
func Decode(payload []byte) (*Result, error) {
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(payload, &probe); err != nil {
		return nil, fmt.Errorf("shard result: not JSON: %w", err)
	}
	if probe.Version == nil {
		return nil, errors.New("shard result: no version field")
	}
	if *probe.Version != Version {
		return nil, fmt.Errorf("shard result: version %d, this aiperf reads version %d (run every shard with the same aiperf)", *probe.Version, Version)
	}
	var r Result
	if err := json.Unmarshal(payload, &r); err != nil {
		return nil, fmt.Errorf("shard result: %w", err)
	}
	switch {
	case r.ShardCount < 1 || r.ShardIndex < 0 || r.ShardIndex >= r.ShardCount:
		return nil, fmt.Errorf("shard result: shard %d of %d", r.ShardIndex, r.ShardCount)
	case len(r.Summary) == 0:
		return nil, fmt.Errorf("shard result of shard %d: no summary", r.ShardIndex)
	case r.Partial == nil:
		return nil, fmt.Errorf("shard result of shard %d: no metrics", r.ShardIndex)
	}
	return &r, nil
}

// HasRecords says whether the result carries its raw records.
func (r *Result) HasRecords() bool { return r.RecordsJSONL != nil }

// WriteRunDir writes the shard's summary and records into dir as a run
// directory an exact merge reads; the result must carry its records.
func (r *Result) WriteRunDir(dir string) error {
	if !r.HasRecords() {
		return fmt.Errorf("shard %d's result carries no records (its shards ran without --exact)", r.ShardIndex)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for _, f := range []struct {
		name string
		b    []byte
	}{{artifacts.SummaryFile, r.Summary}, {artifacts.RecordsFile, r.RecordsJSONL}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.b, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return nil
}
