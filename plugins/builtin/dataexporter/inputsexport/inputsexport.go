// Package inputsexport is the "inputs" data exporter: it writes inputs.json,
// the exact request bodies sent, keyed by session so per-request records
// join to them (conversation_id = session_id, turn_index = payload index).
package inputsexport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
)

// Name is the plugin name of this exporter.
const Name = "inputs"

// DefaultFileName is AIPerf's inputs file name, used when the context names none.
const DefaultFileName = "inputs.json"

// Label is the console footer label of the written file.
const Label = "Inputs Export"

// Exporter writes inputs.json.
type Exporter struct{}

var _ sdk.DataExporter = (*Exporter)(nil)

// New returns the inputs exporter.
func New() *Exporter { return &Exporter{} }

// Export streams the file entry by entry (datasets can be large) into a
// temporary sibling and renames it into place once complete.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("inputsexport: nil export context")
	}
	name := ec.Files.Inputs
	if name == "" {
		name = DefaultFileName
	}
	path := filepath.Join(ec.ArtifactDir, name)
	var werr error // Write's own error, returned as is
	err := atomicfile.WriteFile(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		if werr = Write(ctx, bw, ec.Inputs); werr != nil {
			return werr
		}
		return bw.Flush()
	})
	if werr != nil {
		return nil, werr
	}
	if err != nil {
		return nil, fmt.Errorf("inputsexport: write %s: %w", path, err)
	}
	return []sdk.ExportedFile{{Label: Label, Path: path}}, nil
}

// entry is one element of "data"; field order is the file's key order.
type entry struct {
	SessionID string            `json:"session_id"`
	Payloads  []json.RawMessage `json:"payloads"`
}

// Write renders {"data":[...]} with 2-space indentation. Payload bytes are
// embedded as raw JSON: re-indented, never re-encoded, so key order and
// number literals stay exactly as sent.
func Write(ctx context.Context, w *bufio.Writer, inputs []sdk.InputEntry) error {
	if len(inputs) == 0 {
		_, err := w.WriteString("{\n  \"data\": []\n}\n")
		return err
	}
	w.WriteString("{\n  \"data\": [")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // prompts are text, keep "<" and "&" readable
	enc.SetIndent("    ", "  ")
	for i, in := range inputs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("inputsexport: %w", err)
		}
		e := entry{SessionID: in.SessionID, Payloads: make([]json.RawMessage, len(in.Payloads))}
		for j, p := range in.Payloads {
			if !json.Valid(p) {
				return fmt.Errorf("inputsexport: session %q turn %d: payload is not valid JSON", in.SessionID, j)
			}
			e.Payloads[j] = p
		}
		buf.Reset()
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("inputsexport: session %q: %w", in.SessionID, err)
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    ")
		w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
	}
	_, err := w.WriteString("\n  ]\n}\n")
	return err
}
