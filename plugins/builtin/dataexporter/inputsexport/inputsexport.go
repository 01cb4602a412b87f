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
	if ec.SkipInputs {
		return nil, nil
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

// Write renders {"data":[...]} with 2-space indentation. Payload bytes are
// embedded as raw JSON: re-indented once (json.Indent, which also checks
// them), never re-encoded, so key order and number literals stay exactly
// as sent. The layout is encoding/json's indented encoding of
// {"session_id", "payloads"} per entry.
func Write(ctx context.Context, w *bufio.Writer, inputs []sdk.InputEntry) error {
	if len(inputs) == 0 {
		_, err := w.WriteString("{\n  \"data\": []\n}\n")
		return err
	}
	w.WriteString("{\n  \"data\": [")
	var id, buf bytes.Buffer
	enc := json.NewEncoder(&id)
	enc.SetEscapeHTML(false) // keep "<" and "&" readable, as in the payloads
	for i, in := range inputs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("inputsexport: %w", err)
		}
		id.Reset()
		if err := enc.Encode(in.SessionID); err != nil {
			return fmt.Errorf("inputsexport: session %q: %w", in.SessionID, err)
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n    {\n      \"session_id\": ")
		w.Write(bytes.TrimRight(id.Bytes(), "\n"))
		w.WriteString(",\n      \"payloads\": [")
		for j, p := range in.Payloads {
			buf.Reset()
			if err := json.Indent(&buf, p, "        ", "  "); err != nil {
				return fmt.Errorf("inputsexport: session %q turn %d: payload is not valid JSON: %w", in.SessionID, j, err)
			}
			if j > 0 {
				w.WriteByte(',')
			}
			w.WriteString("\n        ")
			w.Write(bytes.TrimSpace(buf.Bytes()))
		}
		if len(in.Payloads) > 0 {
			w.WriteString("\n      ")
		}
		w.WriteString("]\n    }")
	}
	_, err := w.WriteString("\n  ]\n}\n")
	return err
}
