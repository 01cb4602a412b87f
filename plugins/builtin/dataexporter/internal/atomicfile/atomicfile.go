// Package atomicfile writes export artifacts so that a crash, a kill or a
// failed write never leaves a half-written file under the final name: the
// content goes to a temporary sibling that is renamed into place only once
// it is complete.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// WriteFile creates path's directory if needed, lets write fill a temporary
// sibling (path's base name + ".partial-*"), gives it mode 0644 and renames it
// over path. On any failure the temporary file is removed and path is left
// as it was. An error returned by write is returned unchanged; the others are
// the os package's errors.
func WriteFile(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".partial-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
