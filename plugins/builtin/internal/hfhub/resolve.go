package hfhub

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// Resolve returns the path of a local tokenizer.json for name: a local file,
// a local directory's tokenizer.json, or a hub repo's tokenizer.json from
// the cache, downloading it on a miss unless opts.Offline. Concurrent calls
// for the same repo download it once per process; ctx bounds the download.
func Resolve(ctx context.Context, name string, opts Options) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", newError(ErrInvalidName, "tokenizer name is empty", nil)
	}
	if path, ok, err := resolveLocal(name); ok {
		return path, err
	}
	if err := ValidateRepoID(name); err != nil {
		return "", newError(ErrInvalidName, fmt.Sprintf("tokenizer %q is not a local file and not a valid Hugging Face repo id: %v", name, err), nil)
	}
	o := opts.withDefaults()
	if err := validateRevision(o.Revision); err != nil {
		return "", newError(ErrInvalidName, fmt.Sprintf("tokenizer %s: invalid --tokenizer-revision: %v", name, err), nil)
	}
	cache := newRepoCache(o.CacheDir, name)
	if path, ok := cache.lookup(o.Revision); ok {
		return path, nil
	}
	if o.Offline {
		return "", newError(ErrNotCached, fmt.Sprintf("tokenizer %s (revision %s) is not in the Hugging Face cache at %s and HF_HUB_OFFLINE is set", name, o.Revision, o.CacheDir), nil)
	}
	if err := checkEndpoint(o.Endpoint); err != nil {
		return "", err
	}

	unlock, err := downloads.lock(ctx, cache.dir+"\x00"+o.Revision)
	if err != nil {
		return "", newError(ErrDownload, fmt.Sprintf("waiting for the download of tokenizer %s: %v", name, err), err)
	}
	defer unlock()
	// Another goroutine may have published it while we waited.
	if path, ok := cache.lookup(o.Revision); ok {
		return path, nil
	}
	got, err := download(ctx, name, o)
	if err != nil {
		return "", err
	}
	commit := got.commit
	if commit == "" {
		commit = o.Revision
	}
	// The header names a directory: a hostile mirror must not escape the cache.
	if err := validateRevision(commit); err != nil {
		return "", newError(ErrDownload, fmt.Sprintf("tokenizer %s: the hub sent an unusable X-Repo-Commit: %v", name, err), nil)
	}
	path, err := cache.publish(o.Revision, commit, got.body)
	if err != nil {
		return "", newError(ErrDownload, fmt.Sprintf("caching tokenizer %s in %s: %v", name, o.CacheDir, err), err)
	}
	return path, nil
}

// checkEndpoint refuses endpoints that are not absolute http(s) URLs before
// any request is built, so a typo in HF_ENDPOINT gets a clear message.
func checkEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return newError(ErrDownload, fmt.Sprintf("hub endpoint %q is not an http(s) URL (check HF_ENDPOINT)", endpoint), nil)
	}
	return nil
}
