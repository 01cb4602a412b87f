// Package traceanalysis computes AIPerf 0.13's `analyze-trace` statistics of
// a mooncake-format trace: ISL/OSL distributions, shared-context and unique
// prompt lengths, prefix reuse and theoretical (infinite-cache) hit rates
// for a KV-cache block size. It mirrors
// aiperf.dataset.synthesis.prefix_analyzer.PrefixAnalyzer.
package traceanalysis

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/aiperf-go/aiperf/core/metrics"
)

// DefaultBlockSize is AIPerf's analyze-trace --block-size default.
const DefaultBlockSize = 512

// Record is one mooncake trace line; other fields (timestamp, session_id,
// …) are ignored, as AIPerf ignores them. Missing lengths count as 0.
type Record struct {
	InputLength  int     `json:"input_length"`
	OutputLength int     `json:"output_length"`
	HashIDs      []int64 `json:"hash_ids"`
}

// MetricStats is AIPerf's MetricStats (population std_dev, numpy linear
// percentiles).
type MetricStats struct {
	Mean   PyFloat `json:"mean"`
	StdDev PyFloat `json:"std_dev"`
	Min    PyFloat `json:"min"`
	P25    PyFloat `json:"p25"`
	Median PyFloat `json:"median"`
	P75    PyFloat `json:"p75"`
	Max    PyFloat `json:"max"`
}

// Stats is AIPerf's AnalysisStats, with its JSON field names and order.
type Stats struct {
	TotalRequests           int          `json:"total_requests"`
	UniquePrefixes          int          `json:"unique_prefixes"`
	NumPrefixGroups         int          `json:"num_prefix_groups"`
	CacheHitRate            PyFloat      `json:"cache_hit_rate"`
	MinISL                  int          `json:"min_isl"`
	MaxISL                  int          `json:"max_isl"`
	AvgISL                  PyFloat      `json:"avg_isl"`
	MinOSL                  int          `json:"min_osl"`
	MaxOSL                  int          `json:"max_osl"`
	AvgOSL                  PyFloat      `json:"avg_osl"`
	PrefixReuseRatio        PyFloat      `json:"prefix_reuse_ratio"`
	ISLStats                *MetricStats `json:"isl_stats"`
	OSLStats                *MetricStats `json:"osl_stats"`
	ContextLengthStats      *MetricStats `json:"context_length_stats"`
	UniquePromptLengthStats *MetricStats `json:"unique_prompt_length_stats"`
	HitRateStats            *MetricStats `json:"hit_rate_stats"`
}

// trieNode is one hash-id prefix; count is how many requests share it.
type trieNode struct {
	children map[int64]*trieNode
	count    int
}

type posHash struct {
	pos  int
	hash int64
}

// Analyzer accumulates records one at a time. It keeps per-request lengths
// and hash ids (the context-length pass needs the whole trace's
// (position, hash) counts before it can classify any request), a prefix
// trie in place of AIPerf's Counter of prefix tuples, and the running
// infinite-cache state. The zero value is not usable; call New.
type Analyzer struct {
	blockSize int

	isls, osls []int
	hashIDs    [][]int64

	root           trieNode
	uniquePrefixes int
	prefixTotal    int // sum of all prefix counts
	prefixReused   int // sum of counts of prefixes seen 2+ times

	posCount    map[posHash]int
	firstBlocks map[int64]int
	seen        map[int64]struct{}
	hitRates    []float64
}

// New returns an Analyzer for a KV-cache block size.
func New(blockSize int) *Analyzer {
	return &Analyzer{
		blockSize:   blockSize,
		root:        trieNode{children: map[int64]*trieNode{}},
		posCount:    map[posHash]int{},
		firstBlocks: map[int64]int{},
		seen:        map[int64]struct{}{},
	}
}

// Add records one trace line.
func (a *Analyzer) Add(r Record) {
	a.isls = append(a.isls, r.InputLength)
	a.osls = append(a.osls, r.OutputLength)
	h := r.HashIDs
	if len(h) == 0 {
		a.hashIDs = append(a.hashIDs, nil)
		return
	}
	a.hashIDs = append(a.hashIDs, h)

	node := &a.root
	for _, id := range h {
		child := node.children[id]
		if child == nil {
			child = &trieNode{children: map[int64]*trieNode{}}
			node.children[id] = child
			a.uniquePrefixes++
		}
		child.count++
		a.prefixTotal++
		switch {
		case child.count == 2:
			a.prefixReused += 2
		case child.count > 2:
			a.prefixReused++
		}
		node = child
	}
	for pos, id := range h {
		a.posCount[posHash{pos, id}]++
	}
	a.firstBlocks[h[0]]++

	// Infinite-cache hit rate (dynamo's algorithm): the leading run of
	// already-seen blocks over the request's block count.
	firstUnseen := len(h)
	for i, id := range h {
		if _, ok := a.seen[id]; !ok {
			firstUnseen = i
			break
		}
	}
	a.hitRates = append(a.hitRates, float64(firstUnseen)/float64(len(h)))
	for _, id := range h {
		a.seen[id] = struct{}{}
	}
}

// Stats computes the analysis of everything added so far.
func (a *Analyzer) Stats() Stats {
	n := len(a.isls)
	ctx := make([]float64, n)
	uniq := make([]float64, n)
	for i, h := range a.hashIDs {
		isl := a.isls[i]
		if len(h) == 0 {
			uniq[i] = float64(isl)
			continue
		}
		repeated := 0
		for pos, id := range h {
			if a.posCount[posHash{pos, id}] > 1 {
				repeated++
			}
		}
		if repeated == len(h) {
			ctx[i] = float64(isl)
		} else {
			c := repeated * a.blockSize
			ctx[i] = float64(c)
			uniq[i] = float64(isl - c)
		}
	}
	s := Stats{
		TotalRequests:           n,
		UniquePrefixes:          a.uniquePrefixes,
		ISLStats:                metricStats(ints(a.isls)),
		OSLStats:                metricStats(ints(a.osls)),
		ContextLengthStats:      metricStats(ctx),
		UniquePromptLengthStats: metricStats(uniq),
		HitRateStats:            metricStats(a.hitRates),
	}
	for _, c := range a.firstBlocks {
		if c > 1 {
			s.NumPrefixGroups++
		}
	}
	if len(a.hitRates) > 0 {
		sum := 0.0
		for _, r := range a.hitRates {
			sum += r
		}
		s.CacheHitRate = PyFloat(sum / float64(len(a.hitRates)))
	}
	if a.prefixTotal > 0 {
		s.PrefixReuseRatio = PyFloat(float64(a.prefixReused) / float64(a.prefixTotal))
	}
	if n > 0 {
		s.MinISL, s.MaxISL, s.AvgISL = minMaxAvg(a.isls)
		s.MinOSL, s.MaxOSL, s.AvgOSL = minMaxAvg(a.osls)
	}
	return s
}

func ints(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func minMaxAvg(v []int) (lo, hi int, avg PyFloat) {
	lo, hi = v[0], v[0]
	sum := 0
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
		sum += x
	}
	return lo, hi, PyFloat(float64(sum) / float64(len(v)))
}

func metricStats(v []float64) *MetricStats {
	if len(v) == 0 {
		return nil
	}
	st := metrics.ComputeStats(v)
	return &MetricStats{
		Mean: PyFloat(st.Avg), StdDev: PyFloat(st.Std), Min: PyFloat(st.Min),
		P25: PyFloat(st.P25), Median: PyFloat(st.P50), P75: PyFloat(st.P75),
		Max: PyFloat(st.Max),
	}
}

// AnalyzeReader reads a mooncake JSONL trace line by line; blank lines are
// skipped as AIPerf skips them. name labels errors ("name:line: …").
func AnalyzeReader(r io.Reader, name string, blockSize int) (Stats, error) {
	a := New(blockSize)
	br := bufio.NewReaderSize(r, 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				return Stats{}, fmt.Errorf("%s:%d: malformed trace line: %w", name, lineNo, jerr)
			}
			a.Add(rec)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Stats{}, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
	}
	return a.Stats(), nil
}

// AnalyzeFile analyzes the trace at path.
func AnalyzeFile(path string, blockSize int) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Stats{}, fmt.Errorf("input file not found: %s", path)
		}
		return Stats{}, err
	}
	defer f.Close()
	return AnalyzeReader(f, path, blockSize)
}
