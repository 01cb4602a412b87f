package hfhub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// The functions below serve any file of any repo (datasets included) with
// the tokenizer's rules: the same cache layout, token, endpoint and offline
// switch, and the token sent to the endpoint's origin only. Unlike Resolve
// they stream the body to disk, so a file of gigabytes never sits in
// memory, and they check it before it gets its name in the cache.

// fileUserAgent identifies us to the hub for file downloads.
const fileUserAgent = "aiperf-go; hfhub; file_type/dataset"

// FileCheck says how a downloaded file is verified before it is published.
type FileCheck struct {
	// SHA256 is the expected content hash, e.g. a tree listing's lfs.oid.
	// Empty: the hub's X-Linked-Etag is used when it is a SHA-256 (it is
	// for every LFS file), else the content is not hashed against anything.
	SHA256 string
	// Verify inspects the complete file (not yet under its name); an error
	// keeps it out of the cache.
	Verify func(path string) error
}

// SnapshotPath is where file of repo at commit lives in the cache (a
// symlink into blobs/ when huggingface_hub wrote it).
func SnapshotPath(cacheDir string, repo Repo, commit, file string) string {
	return filepath.Join(repo.Dir(cacheDir), "snapshots", filepath.FromSlash(commit), filepath.FromSlash(file))
}

// CachedCommit returns the commit revision names in the cache: the
// revision itself when it is a commit hash, else the content of
// refs/<revision>. It touches only the disk.
func CachedCommit(cacheDir string, repo Repo, revision string) (string, bool) {
	if isCommitHash(revision) {
		return revision, true
	}
	if validateRevision(revision) != nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(repo.Dir(cacheDir), "refs", filepath.FromSlash(revision)))
	if err != nil {
		return "", false
	}
	commit := strings.TrimSpace(string(b))
	// The ref names a directory: refuse contents that could escape.
	if validateRevision(commit) != nil {
		return "", false
	}
	return commit, true
}

// CachedFile returns the cached path of file at revision; a dangling blob
// link or a missing file is a miss. It touches only the disk.
func CachedFile(cacheDir string, repo Repo, revision, file string) (string, bool) {
	if validateFilePath(file) != nil {
		return "", false
	}
	commit, ok := CachedCommit(cacheDir, repo, revision)
	if !ok {
		return "", false
	}
	path := SnapshotPath(cacheDir, repo, commit, file)
	info, err := os.Stat(path) // follows the blobs/ symlink
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return path, true
}

// WriteRef points revision at commit, as huggingface_hub's refs/ files do
// (a commit hash needs no ref). Call it once every file the revision's
// users need is in the snapshot: a ref never leads to a partial snapshot.
func WriteRef(cacheDir string, repo Repo, revision, commit string) error {
	if isCommitHash(revision) {
		return nil
	}
	if err := validateRevision(revision); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(repo.Dir(cacheDir), "refs", filepath.FromSlash(revision)), []byte(commit))
}

// Fetch returns the cached path of file of repo at o.Revision, downloading
// it on a miss (unless o.Offline) and then pointing the revision at its
// commit. Concurrent calls for the same file download it once per process.
func Fetch(ctx context.Context, repo Repo, file string, o Options, check FileCheck) (string, error) {
	o = o.withDefaults()
	if err := checkFileArgs(repo, o.Revision, file); err != nil {
		return "", err
	}
	if path, ok := CachedFile(o.CacheDir, repo, o.Revision, file); ok {
		return path, nil
	}
	if o.Offline {
		return "", newError(ErrNotCached, fmt.Sprintf("%s file %s (revision %s) is not in the Hugging Face cache (looked for %s) and HF_HUB_OFFLINE is set",
			repo, file, o.Revision, expectedPath(o.CacheDir, repo, o.Revision, file)), nil)
	}
	unlock, err := downloads.lock(ctx, repo.Dir(o.CacheDir)+"\x00"+o.Revision+"\x00"+file)
	if err != nil {
		return "", newError(ErrDownload, fmt.Sprintf("waiting for the download of %s file %s: %v", repo, file, err), err)
	}
	defer unlock()
	if path, ok := CachedFile(o.CacheDir, repo, o.Revision, file); ok {
		return path, nil
	}
	path, commit, err := Download(ctx, repo, file, o, check)
	if err != nil {
		return "", err
	}
	if err := WriteRef(o.CacheDir, repo, o.Revision, commit); err != nil {
		return "", newError(ErrDownload, fmt.Sprintf("caching %s file %s in %s: %v", repo, file, o.CacheDir, err), err)
	}
	return path, nil
}

// expectedPath names the snapshot file a lookup tried, for messages: the
// real path when the ref exists, else one with <commit> in its place.
func expectedPath(cacheDir string, repo Repo, revision, file string) string {
	commit, ok := CachedCommit(cacheDir, repo, revision)
	if !ok {
		commit = "<commit of " + revision + ">"
	}
	return SnapshotPath(cacheDir, repo, commit, file)
}

func checkFileArgs(repo Repo, revision, file string) error {
	if err := repo.validate(); err != nil {
		return newError(ErrInvalidName, fmt.Sprintf("hub %v: %v", repo, err), nil)
	}
	if err := validateRevision(revision); err != nil {
		return newError(ErrInvalidName, fmt.Sprintf("%s: invalid revision: %v", repo, err), nil)
	}
	if err := validateFilePath(file); err != nil {
		return newError(ErrInvalidName, fmt.Sprintf("%s: %v", repo, err), nil)
	}
	return nil
}

// Download streams file of repo at o.Revision into the snapshot of the
// commit the hub names (X-Repo-Commit; the revision when it names none)
// and returns its path and that commit. It writes no ref (see WriteRef),
// and never reads the cache: callers decide when a cached copy will do.
// Errors name the URL and the cache path, never the token.
func Download(ctx context.Context, repo Repo, file string, o Options, check FileCheck) (path, commit string, err error) {
	o = o.withDefaults()
	if err := checkFileArgs(repo, o.Revision, file); err != nil {
		return "", "", err
	}
	if err := checkEndpoint(o.Endpoint); err != nil {
		return "", "", err
	}
	rawURL := FileURL(o.Endpoint, repo, o.Revision, file)
	what := fmt.Sprintf("%s file %s", repo, file)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", "", newError(ErrDownload, fmt.Sprintf("%s: bad hub URL %s (check HF_ENDPOINT): %v", what, rawURL, err), nil)
	}
	if o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+o.Token)
	}
	req.Header.Set("User-Agent", fileUserAgent)

	var linkedEtag string
	client := redirectAwareClient(o.HTTPClient, req.URL, func(h http.Header) {
		if commit == "" {
			commit = strings.TrimSpace(h.Get("X-Repo-Commit"))
		}
		if linkedEtag == "" {
			linkedEtag = h.Get("X-Linked-Etag")
		}
	})
	resp, err := client.Do(req)
	if err != nil {
		return "", "", fileNetworkError(ctx, "downloading "+what, rawURL, repo.Dir(o.CacheDir), err)
	}
	defer resp.Body.Close()
	if commit == "" {
		commit = strings.TrimSpace(resp.Header.Get("X-Repo-Commit"))
	}
	if linkedEtag == "" {
		linkedEtag = resp.Header.Get("X-Linked-Etag")
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", fileStatusError(repo, o.Revision, file, rawURL, repo.Dir(o.CacheDir), resp)
	}
	if commit == "" {
		commit = o.Revision
	}
	// The header names a directory: a hostile mirror must not escape the cache.
	if err := validateRevision(commit); err != nil {
		return "", "", newError(ErrDownload, fmt.Sprintf("%s from %s: the hub sent an unusable X-Repo-Commit: %v", what, rawURL, err), nil)
	}
	if check.SHA256 == "" {
		if e := normalizeEtag(linkedEtag); isSHA256(e) {
			check.SHA256 = e
		}
	}
	path = SnapshotPath(o.CacheDir, repo, commit, file)
	// The temp file lives in blobs/ (the folder huggingface_hub keeps
	// contents in): the same file system as the snapshot, so the final
	// rename is atomic.
	tmpDir := filepath.Join(repo.Dir(o.CacheDir), "blobs")
	if err := streamToFile(ctx, resp.Body, tmpDir, path, check); err != nil {
		return "", "", wrapStreamError(ctx, what, rawURL, path, err)
	}
	return path, commit, nil
}

// FetchURL downloads rawURL (a file outside the hub, such as a GitHub raw
// file) to dest unless dest exists, streaming it through a temp file next
// to dest. No token is sent; o.Offline forbids the download; o.HTTPClient
// sends it.
func FetchURL(ctx context.Context, rawURL, dest string, o Options, check FileCheck) error {
	if info, err := os.Stat(dest); err == nil && info.Mode().IsRegular() {
		return nil
	}
	if o.Offline {
		return newError(ErrNotCached, fmt.Sprintf("%s is not cached at %s and HF_HUB_OFFLINE is set; fetch it with: curl -L --create-dirs -o %s %s", rawURL, dest, dest, rawURL), nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return newError(ErrDownload, fmt.Sprintf("bad URL %s: %v", rawURL, err), nil)
	}
	req.Header.Set("User-Agent", fileUserAgent)
	client := http.DefaultClient
	if o.HTTPClient != nil {
		client = o.HTTPClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fileNetworkError(ctx, "downloading", rawURL, dest, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return newError(ErrDownload, fmt.Sprintf("downloading %s into %s: HTTP %s", rawURL, dest, resp.Status), nil)
	}
	if err := streamToFile(ctx, resp.Body, filepath.Dir(dest), dest, check); err != nil {
		return wrapStreamError(ctx, rawURL, rawURL, dest, err)
	}
	return nil
}

// corruptError marks a body that arrived whole but failed its checks.
type corruptError struct{ err error }

func (e corruptError) Error() string { return e.err.Error() }
func (e corruptError) Unwrap() error { return e.err }

// streamToFile copies body to a temp file in tmpDir, hashing it when a
// hash is expected, runs the checks, and renames it to dest.
func streamToFile(ctx context.Context, body io.Reader, tmpDir, dest string, check FileCheck) error {
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(tmpDir, "."+filepath.Base(dest)+".*.incomplete")
	if err != nil {
		return fmt.Errorf("creating temp file in %s: %w", tmpDir, err)
	}
	tmpName := tmp.Name()
	published := false
	defer func() {
		if !published {
			_ = os.Remove(tmpName)
		}
	}()
	h := sha256.New()
	var w io.Writer = tmp
	if check.SHA256 != "" {
		w = io.MultiWriter(tmp, h)
	}
	_, werr := io.CopyBuffer(w, body, make([]byte, 1<<20))
	if werr == nil {
		werr = ctx.Err()
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	if check.SHA256 != "" {
		if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, check.SHA256) {
			return corruptError{fmt.Errorf("content SHA-256 %s does not match the expected %s", got, check.SHA256)}
		}
	}
	if check.Verify != nil {
		if err := check.Verify(tmpName); err != nil {
			return corruptError{err}
		}
	}
	if err := os.Chmod(tmpName, 0o644); err != nil { // CreateTemp makes 0600; caches are shared like Python's
		return err
	}
	if err := os.Rename(tmpName, dest); err != nil {
		return err
	}
	published = true
	return nil
}

func wrapStreamError(ctx context.Context, what, rawURL, dest string, err error) error {
	var ce corruptError
	switch {
	case ctx.Err() != nil:
		return newError(ErrDownload, fmt.Sprintf("downloading %s from %s into %s: %v", what, rawURL, dest, ctx.Err()), ctx.Err())
	case errors.As(err, &ce):
		return newError(ErrCorrupt, fmt.Sprintf("%s from %s failed verification and was not cached at %s: %v", what, rawURL, dest, ce.err), ce.err)
	}
	return newError(ErrDownload, fmt.Sprintf("downloading %s from %s into %s: %v (%s)", what, rawURL, dest, err, fileOfflineHint), err)
}

// fileOfflineHint is appended to network failures of file downloads.
const fileOfflineHint = "if the machine is offline, set HF_HUB_OFFLINE=1 to use only the local cache"

// fileNetworkError wraps a transport failure of action ("downloading
// ...", "listing ...") with the URL and the cache path; a *url.Error's own
// URL may be a signed CDN link, so only its cause is kept.
func fileNetworkError(ctx context.Context, action, rawURL, cachePath string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return newError(ErrDownload, fmt.Sprintf("%s from %s (cache %s): %v", action, rawURL, cachePath, ctxErr), ctxErr)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return newError(ErrDownload, fmt.Sprintf("%s from %s (cache %s): %v (%s)", action, rawURL, cachePath, err, fileOfflineHint), err)
}

// fileStatusError maps a hub error status to advice, naming the URL and
// the cache folder.
func fileStatusError(repo Repo, revision, file, rawURL, cachePath string, resp *http.Response) error {
	code := resp.Header.Get("X-Error-Code")
	where := fmt.Sprintf("(GET %s, cache %s)", rawURL, cachePath)
	switch {
	case code == "RepoNotFound":
		return newError(ErrNotFound, fmt.Sprintf("%s not found on the hub %s; if it is private or gated, set HF_TOKEN", repo, where), nil)
	case code == "RevisionNotFound":
		return newError(ErrNotFound, fmt.Sprintf("%s has no revision %s on the hub %s", repo, revision, where), nil)
	case code == "EntryNotFound":
		return newError(ErrNotFound, fmt.Sprintf("%s (revision %s) has no %s on the hub %s", repo, revision, file, where), nil)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return newError(ErrGated, fmt.Sprintf("%s is gated or private: accept its terms on its hub page and set HF_TOKEN (HTTP %d %s)", repo, resp.StatusCode, where), nil)
	case resp.StatusCode == http.StatusNotFound:
		return newError(ErrNotFound, fmt.Sprintf("%s (revision %s): %s not found on the hub %s", repo, revision, file, where), nil)
	}
	detail := resp.Status
	if msg := resp.Header.Get("X-Error-Message"); msg != "" {
		detail += ": " + msg
	}
	return newError(ErrDownload, fmt.Sprintf("%s file %s: HTTP %s %s (%s)", repo, file, detail, where, fileOfflineHint), nil)
}

// normalizeEtag strips the weak prefix and quotes of an ETag.
func normalizeEtag(e string) string {
	return strings.Trim(strings.TrimPrefix(strings.TrimSpace(e), "W/"), `"`)
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}
