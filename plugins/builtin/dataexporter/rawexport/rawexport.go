// Package rawexport is the "raw" data exporter: at --export-level raw it
// streams one line per request to profile_export_raw.jsonl while the run
// executes, as AIPerf 0.13 does. A line is the exchange itself: the record's
// metadata (the same block as profile_export.jsonl), the start time, the
// request headers sent (credentials redacted), the status, every response
// unit as received, the error of a failed request and the exact request
// body. At the other levels the exporter stays inactive and costs nothing.
//
// It is a record sink like the jsonl exporter: the record pipeline's
// collector hands it each sdk.RecordInfo, whose Request field is the request
// record (sdk.RequestRecord.RequestHeaders and RequestBody are what the
// engine sent). Lines are encoded into pooled buffers and written through a
// 64 KiB buffer flushed every 100 ms or 256 records, so nothing is held for
// the whole run and an abrupt end loses at most the last flush interval.
package rawexport

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/streamfile"
)

// Name is the plugin name of this exporter.
const Name = "raw"

// DefaultFileName is AIPerf's raw export name, used when the context names
// no per-request file.
const DefaultFileName = "profile_export_raw.jsonl"

// Label is the console footer label of the written file (AIPerf's).
const Label = "Raw Records"

// Flush policy: buffered data reaches the file after at most this long or
// this many records, whichever comes first.
const (
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultFlushRecords  = 256
)

// maxPooledLine caps the encoding buffers kept for reuse: a raw line holds
// every response of a request, so long generations make large lines.
const maxPooledLine = 4 << 20

// Export levels (--export-level); only LevelRaw activates the exporter.
const (
	LevelSummary = "summary"
	LevelRecords = "records"
	LevelRaw     = "raw"
)

// FileName is the raw export's name for the run's per-request file name,
// AIPerf's rule: the records file's stem plus "_raw.jsonl"
// (profile_export.jsonl gives profile_export_raw.jsonl, and with
// --profile-export-prefix foo, foo.jsonl gives foo_raw.jsonl).
func FileName(files sdk.ArtifactFiles) string {
	if files.RecordsJSONL == "" {
		return DefaultFileName
	}
	return strings.TrimSuffix(files.RecordsJSONL, ".jsonl") + "_raw.jsonl"
}

// Exporter is both the streaming record sink and the data exporter that
// reports the file at the end of the run. WriteRecord is safe for
// concurrent use.
type Exporter struct {
	flushInterval time.Duration
	flushRecords  int

	pool sync.Pool // *scratch

	// active is set by Open at raw level; WriteRecord checks it before
	// encoding anything, so the other levels pay one atomic load.
	active atomic.Bool

	mu     sync.Mutex
	w      *streamfile.Writer
	opened bool
	closed bool
}

var (
	_ sdk.RecordSink   = (*Exporter)(nil)
	_ sdk.DataExporter = (*Exporter)(nil)
)

// New returns the raw exporter with the default flush policy.
func New() *Exporter {
	return &Exporter{flushInterval: DefaultFlushInterval, flushRecords: DefaultFlushRecords}
}

// Open creates the file at raw level; at the other levels (summary,
// records, or unset, which defaults to records) the sink stays inactive and
// WriteRecord discards records.
func (e *Exporter) Open(ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("rawexport: nil export context")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opened {
		return errors.New("rawexport: Open called twice")
	}
	switch ec.ExportLevel {
	case "", LevelSummary, LevelRecords:
		e.opened = true
		return nil
	case LevelRaw:
	default:
		return fmt.Errorf("rawexport: unknown export level %q (want summary, records or raw)", ec.ExportLevel)
	}
	w, err := streamfile.Open("rawexport", filepath.Join(ec.ArtifactDir, FileName(ec.Files)), e.flushInterval, e.flushRecords)
	if err != nil {
		return err
	}
	e.w = w
	e.opened = true
	e.active.Store(true)
	return nil
}

// WriteRecord appends the raw line of rec, which must carry its request
// record (rec.Request). Inactive, it returns at once. The line is encoded
// before taking the lock so concurrent writers only serialize on the copy
// into the buffer.
func (e *Exporter) WriteRecord(rec *sdk.RecordInfo) error {
	if rec == nil {
		return errors.New("rawexport: nil record")
	}
	if !e.active.Load() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if !e.opened {
			return errors.New("rawexport: WriteRecord before Open")
		}
		return nil
	}
	if rec.Request == nil {
		return fmt.Errorf("rawexport: record %s has no request record to export", rec.Metadata.XRequestID)
	}
	s, _ := e.pool.Get().(*scratch)
	if s == nil {
		s = newScratch()
	}
	defer func() {
		if cap(s.buf) <= maxPooledLine { // don't pin memory for a rare huge record
			e.pool.Put(s)
		}
	}()
	line, err := appendRaw(s, rec)
	if err != nil {
		return fmt.Errorf("rawexport: encode record %s: %w", rec.Metadata.XRequestID, err)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errors.New("rawexport: WriteRecord after Close")
	}
	return e.w.Write(line)
}

// Close flushes what is buffered and closes the file. It is idempotent.
func (e *Exporter) Close() error {
	e.mu.Lock()
	if e.closed || !e.active.Load() {
		e.closed = true
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	w := e.w
	e.mu.Unlock()
	return w.Close()
}

// Export reports the file written during the run; nothing below raw level.
func (e *Exporter) Export(ctx context.Context, _ *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rawexport: %w", err)
	}
	if !e.active.Load() {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return []sdk.ExportedFile{{Label: Label, Path: e.w.Path()}}, nil
}
