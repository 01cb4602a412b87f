// Package burstgpttrace is the "burst_gpt_trace" custom dataset loader:
// BurstGPT CSV traces of real-world bursty LLM traffic
// (https://github.com/HPMLL/BurstGPT), read as AIPerf 0.13 does
// (dataset/loader/burst_gpt.py, models.BurstGPTTrace).
//
// The file is a CSV with a header row, in BurstGPT's layout:
//
//	Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
//	5,ChatGPT,472,18,490,Conversation log
//
// Only Timestamp (seconds since the trace start → Turn.TimestampMs, ×1000),
// Request tokens (the prompt length) and Response tokens (→ Turn.MaxTokens)
// are read; the other columns are ignored. Every row is an independent
// single-turn conversation with a seeded UUID session id, in file order. No
// prompt text is stored: each prompt is a fresh corpus window of exactly
// Request tokens tokens under the run's tokenizer (BurstGPT has no hash
// ids, so there is no block size to set).
//
// As in AIPerf, a header without the three columns is an error and rows
// whose values do not parse are skipped; unlike AIPerf, each skipped row is
// reported through Warn, naming the file, line and column, and rows AIPerf
// would turn into unusable requests (Request tokens below 1, negative
// Response tokens, a negative, NaN or infinite Timestamp) are skipped the
// same way.
package burstgpttrace

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/internal/sessions"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/internal/jsonl"
)

// Name is the loader's registry name (--custom-dataset-type burst_gpt_trace).
const Name = "burst_gpt_trace"

// The columns AIPerf requires (the header may have others, in any order).
const (
	ColTimestamp      = "Timestamp"
	ColRequestTokens  = "Request tokens"
	ColResponseTokens = "Response tokens"
)

var required = []string{ColTimestamp, ColRequestTokens, ColResponseTokens}

// maxWarnings bounds the per-row skip warnings; the rest are counted.
const maxWarnings = 10

// Loader reads BurstGPT CSV traces. Safe for concurrent use.
type Loader struct {
	// Warn, when set, is told about skipped rows and about prompts that
	// could not be made to re-encode to their exact length.
	Warn func(msg string)
}

var _ sdk.CustomDatasetLoader = (*Loader)(nil)

// New returns a burst_gpt_trace loader.
func New() *Loader { return &Loader{} }

func newReader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // short or long rows are the row parser's business, as with DictReader
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	return cr
}

// columns maps the required columns to their index in header, and lists
// the missing ones.
func columns(header []string) (map[string]int, []string) {
	idx := map[string]int{}
	for i, h := range header {
		if _, dup := idx[h]; !dup {
			idx[h] = i
		}
	}
	var missing []string
	for _, c := range required {
		if _, ok := idx[c]; !ok {
			missing = append(missing, c)
		}
	}
	return idx, missing
}

// CanLoad reports whether the file's header row has the Timestamp, Request
// tokens and Response tokens columns (AIPerf's can_load).
func (*Loader) CanLoad(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	header, err := newReader(f).Read()
	if err != nil {
		return false
	}
	_, missing := columns(header)
	return len(missing) == 0
}

// row is one parsed data row.
type row struct {
	timestampMs float64
	isl, osl    int
}

// parseRow reads the required columns of rec. Errors name the column.
func parseRow(rec []string, idx map[string]int) (row, error) {
	field := func(c string) (string, error) {
		i := idx[c]
		if i >= len(rec) {
			return "", fmt.Errorf("%s: missing (the row has %d fields)", c, len(rec))
		}
		return strings.TrimSpace(rec[i]), nil
	}
	var r row
	s, err := field(ColTimestamp)
	if err != nil {
		return r, err
	}
	ts, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		return r, fmt.Errorf("%s: %q is not a number", ColTimestamp, s)
	case math.IsNaN(ts) || math.IsInf(ts, 0) || ts < 0:
		return r, fmt.Errorf("%s: %q, want a finite number of seconds ≥ 0", ColTimestamp, s)
	}
	r.timestampMs = ts * 1000
	for _, c := range []struct {
		name string
		dst  *int
		min  int
	}{{ColRequestTokens, &r.isl, 1}, {ColResponseTokens, &r.osl, 0}} {
		s, err := field(c.name)
		if err != nil {
			return r, err
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return r, fmt.Errorf("%s: %q is not an integer", c.name, s)
		}
		if n < c.min {
			return r, fmt.Errorf("%s: %d, want at least %d", c.name, n, c.min)
		}
		*c.dst = n
	}
	return r, nil
}

// Load reads the trace at path. Errors name the file, and the line where
// there is one.
func (l *Loader) Load(ctx context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: open dataset: %w", Name, err)
	}
	defer f.Close()
	cr := newReader(f)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s: empty file, want a CSV header with columns %q", Name, path, required)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, csvError(path, err))
	}
	idx, missing := columns(header)
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: %s:1: missing required columns %q (header: %q)", Name, path, missing, header)
	}

	pb := mooncaketrace.NewPromptBuilder(opts, mooncaketrace.DefaultBlockSize, l.Warn)
	g := sessions.New(opts.RandomSeed)
	skipped := 0
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, csvError(path, err))
		}
		if n%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line, _ := cr.FieldPos(0)
		r, err := parseRow(rec, idx)
		if err != nil {
			skipped++
			if l.Warn != nil && skipped <= maxWarnings {
				l.Warn(fmt.Sprintf("skipping row %v", &jsonl.Error{Path: path, Line: line, Err: err}))
			}
			continue
		}
		text, err := pb.Prompt(r.isl, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, &jsonl.Error{Path: path, Line: line, Err: err})
		}
		ts, osl := r.timestampMs, r.osl
		g.Add("", sdk.Turn{Texts: []string{text}, TimestampMs: &ts, MaxTokens: &osl})
	}
	if l.Warn != nil && skipped > maxWarnings {
		l.Warn(fmt.Sprintf("%s: skipped %d rows in all (the first %d are listed above)", path, skipped, maxWarnings))
	}
	convs := g.Conversations()
	if len(convs) == 0 {
		return nil, fmt.Errorf("%s: %s: no usable rows (%d skipped)", Name, path, skipped)
	}
	return convs, nil
}

// csvError names the file and line of a CSV syntax error.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &jsonl.Error{Path: path, Line: pe.Line, Err: fmt.Errorf("column %d: %w", pe.Column, pe.Err)}
	}
	return fmt.Errorf("reading %s: %w", path, err)
}

var _ sdk.Logging = (*Loader)(nil)

// SetLogger implements sdk.Logging: notes go to the run's log.
func (l *Loader) SetLogger(log *slog.Logger) {
	l.Warn = func(msg string) { log.Warn(msg) }
}
