package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
)

// FileSHA256 returns the lowercase hex sha256 of a file, the form a
// manifest's sha256 field takes.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkFile checks an external plugin's file: it exists, is a regular file
// (executable for grpc), and matches the manifest's sha256 when one is given.
func checkFile(e *Entry) error {
	p := e.ResolvedPath()
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: plugin file %s not found", e.Where(), p)
	case err != nil:
		return fmt.Errorf("%s: %w", e.Where(), err)
	case fi.IsDir():
		return fmt.Errorf("%s: plugin path %s is a directory, not a file", e.Where(), p)
	case e.Kind == KindGRPC && runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s: plugin file %s is not executable (chmod +x it)", e.Where(), p)
	}
	if e.SHA256 == "" {
		return nil
	}
	// The loaders accept an optional "sha256:" prefix; so does validation.
	want := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(e.SHA256)), "sha256:")
	if _, err := hex.DecodeString(want); err != nil || len(want) != 2*sha256.Size {
		return fmt.Errorf("%s: sha256 %q is not 64 hex digits", e.Where(), e.SHA256)
	}
	got, err := FileSHA256(p)
	if err != nil {
		return fmt.Errorf("%s: %w", e.Where(), err)
	}
	if got != want {
		return fmt.Errorf("%s: sha256 mismatch for %s: manifest says %s, file has %s", e.Where(), p, want, got)
	}
	return nil
}
