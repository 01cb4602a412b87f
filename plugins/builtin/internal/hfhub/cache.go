package hfhub

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// repoCache is one repo's folder in the hub cache.
type repoCache struct {
	dir string // <cache>/models--org--name
}

func newRepoCache(cacheDir, repoID string) repoCache {
	return repoCache{dir: filepath.Join(cacheDir, repoFolderName(repoID))}
}

// snapshotFile is where the tokenizer of commit lives (possibly a symlink
// into blobs/ when huggingface_hub wrote it).
func (c repoCache) snapshotFile(commit string) string {
	return filepath.Join(c.dir, "snapshots", filepath.FromSlash(commit), TokenizerFile)
}

func (c repoCache) refFile(revision string) string {
	return filepath.Join(c.dir, "refs", filepath.FromSlash(revision))
}

// lookup returns the cached tokenizer.json of revision, touching only the
// local disk. A ref pointing at a snapshot without tokenizer.json, or a
// dangling blob symlink, is a miss.
func (c repoCache) lookup(revision string) (string, bool) {
	commit := revision
	if !isCommitHash(revision) {
		b, err := os.ReadFile(c.refFile(revision))
		if err != nil {
			return "", false
		}
		commit = strings.TrimSpace(string(b))
		// The ref file names a directory: refuse contents that could escape.
		if validateRevision(commit) != nil {
			return "", false
		}
	}
	path := c.snapshotFile(commit)
	info, err := os.Stat(path) // follows the blobs/ symlink
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return path, true
}

// publish stores body as the tokenizer of commit and points revision at it.
// Every file appears by rename, so a concurrent reader (or another process
// downloading the same repo) sees either nothing or a complete file.
func (c repoCache) publish(revision, commit string, body []byte) (string, error) {
	path := c.snapshotFile(commit)
	if err := writeFileAtomic(path, body); err != nil {
		return "", err
	}
	// The tokenizer is in place before the ref names it, so a ref never
	// leads to a half-written snapshot. A commit revision needs no ref.
	if !isCommitHash(revision) {
		if err := writeFileAtomic(c.refFile(revision), []byte(commit)); err != nil {
			return "", err
		}
	}
	return path, nil
}

// writeFileAtomic writes data to a temp file next to path and renames it
// over path. An interrupted write leaves only a temp file behind.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.incomplete")
	if err != nil {
		return fmt.Errorf("creating temp file in %s: %w", dir, err)
	}
	tmpName := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmpName, 0o644) // CreateTemp makes 0600; cache files are shared like Python's
	}
	if werr == nil {
		werr = os.Rename(tmpName, path)
	}
	if werr != nil {
		_ = os.Remove(tmpName)
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}
