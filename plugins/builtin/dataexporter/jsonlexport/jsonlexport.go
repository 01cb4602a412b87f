// Package jsonlexport is the "jsonl" data exporter: it streams one line per
// request to profile_export.jsonl while the run executes, so an abrupt end
// loses at most the last flush interval of records. With its
// export_http_trace setting (--export-http-trace) each line also carries
// the request's HTTP trace as AIPerf 0.13's "trace_data".
package jsonlexport

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/streamfile"
)

// Name is the plugin name of this exporter.
const Name = "jsonl"

// DefaultFileName is AIPerf's per-request export name, used when the context names none.
const DefaultFileName = "profile_export.jsonl"

// Label is the console footer label of the written file.
const Label = "JSONL Export"

// Flush policy: buffered data reaches the file after at most this long or
// this many records, whichever comes first.
const (
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultFlushRecords  = 256
)

// maxPooledLine caps the encoding buffers kept for reuse.
const maxPooledLine = 1 << 20

// Export levels (--export-level).
const (
	LevelSummary = "summary"
	LevelRecords = "records"
	LevelRaw     = "raw"
)

// Exporter is both the streaming record sink and the data exporter that
// reports the file at the end of the run. WriteRecord is safe for
// concurrent use.
type Exporter struct {
	flushInterval time.Duration
	flushRecords  int
	// settings are decoded before Open and only read afterwards.
	settings Settings

	pool sync.Pool // *scratch

	mu     sync.Mutex
	w      *streamfile.Writer
	opened bool
	active bool
	closed bool
}

var (
	_ sdk.RecordSink   = (*Exporter)(nil)
	_ sdk.DataExporter = (*Exporter)(nil)
	_ sdk.Configurable = (*Exporter)(nil)
)

// New returns the jsonl exporter with the default flush policy.
func New() *Exporter {
	return &Exporter{flushInterval: DefaultFlushInterval, flushRecords: DefaultFlushRecords}
}

// Open creates the file when the export level asks for per-request records
// (records, raw, or unset, which defaults to records); at summary level the
// sink stays inactive and WriteRecord discards records.
func (e *Exporter) Open(ec *sdk.ExportContext) error {
	if ec == nil {
		return errors.New("jsonlexport: nil export context")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opened {
		return errors.New("jsonlexport: Open called twice")
	}
	switch ec.ExportLevel {
	case LevelSummary:
		e.opened = true
		return nil
	case "", LevelRecords, LevelRaw:
	default:
		return fmt.Errorf("jsonlexport: unknown export level %q (want summary, records or raw)", ec.ExportLevel)
	}
	name := ec.Files.RecordsJSONL
	if name == "" {
		name = DefaultFileName
	}
	w, err := streamfile.Open("jsonlexport", filepath.Join(ec.ArtifactDir, name), e.flushInterval, e.flushRecords)
	if err != nil {
		return err
	}
	e.w = w
	e.opened, e.active = true, true
	return nil
}

// WriteRecord appends one line. The line is encoded before taking the lock
// so concurrent writers only serialize on the copy into the buffer.
func (e *Exporter) WriteRecord(rec *sdk.RecordInfo) error {
	if rec == nil {
		return errors.New("jsonlexport: nil record")
	}
	s, _ := e.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{buf: make([]byte, 0, 2048)}
	}
	defer func() {
		if cap(s.buf) <= maxPooledLine { // don't pin memory for a rare huge record
			e.pool.Put(s)
		}
	}()
	line, err := appendRecord(s, rec, e.settings.ExportHTTPTrace)
	if err != nil {
		return fmt.Errorf("jsonlexport: encode record %s: %w", rec.Metadata.XRequestID, err)
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case !e.opened:
		return errors.New("jsonlexport: WriteRecord before Open")
	case e.closed:
		return errors.New("jsonlexport: WriteRecord after Close")
	case !e.active:
		return nil
	}
	return e.w.Write(line)
}

// Close flushes what is buffered and closes the file. It is idempotent.
func (e *Exporter) Close() error {
	e.mu.Lock()
	if e.closed || !e.active {
		e.closed = true
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	w := e.w
	e.mu.Unlock()
	return w.Close()
}

// Export reports the file written during the run; nothing at summary level.
func (e *Exporter) Export(ctx context.Context, _ *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jsonlexport: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.active {
		return nil, nil
	}
	return []sdk.ExportedFile{{Label: Label, Path: e.w.Path()}}, nil
}
