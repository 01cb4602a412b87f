// Package consoletext is the "console_text" data exporter: it saves what the
// run's console exporters print as profile_export_console.txt, the plain-text
// copy of the console AIPerf 0.13 writes into every artifact directory.
package consoletext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/internal/atomicfile"
)

// Name is the plugin name of this exporter.
const Name = "console_text"

// DefaultFileName is AIPerf's console copy name, used when the context names none.
const DefaultFileName = "profile_export_console.txt"

// FileName is the console copy's name as AIPerf derives it:
// profile_export_console.txt, or <prefix>_console.txt next to a
// --profile-export-prefix summary (<prefix>.json).
func FileName(summaryJSON string) string {
	stem := strings.TrimSuffix(summaryJSON, ".json")
	if stem == "" || stem == "profile_export_aiperf" {
		return DefaultFileName
	}
	return stem + "_console.txt"
}

// Exporter writes the console text file.
type Exporter struct{}

var _ sdk.DataExporter = (*Exporter)(nil)

// New returns the console_text exporter.
func New() *Exporter { return &Exporter{} }

// Export writes ec.ConsoleText (the console exporters' output, rendered by
// the core without colour) atomically. The file is written even when the
// console printed nothing, as AIPerf does. It reports no file: AIPerf's
// console footer does not list it either.
func (e *Exporter) Export(ctx context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	if ec == nil {
		return nil, errors.New("consoletext: nil export context")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("consoletext: %w", err)
	}
	path := filepath.Join(ec.ArtifactDir, FileName(ec.Files.SummaryJSON))
	if err := atomicfile.WriteFile(path, func(w io.Writer) error {
		_, err := w.Write(ec.ConsoleText)
		return err
	}); err != nil {
		return nil, fmt.Errorf("consoletext: write %s: %w", path, err)
	}
	return nil, nil
}
