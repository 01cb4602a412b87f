package hfhub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxTreePageBytes bounds one page of a tree listing (the hub pages them;
// a page of a thousand entries is a few hundred KB).
const maxTreePageBytes = 32 << 20

// maxTreePages bounds how many pages a listing follows.
const maxTreePages = 1000

// TreeEntry is one entry of a repo folder, as the hub's tree API lists it.
type TreeEntry struct {
	Type string `json:"type"` // "file" or "directory"
	Path string `json:"path"` // from the repo root, slash-separated
	Size int64  `json:"size"`
	// LFS is set for files stored in LFS; its OID is the SHA-256 of the
	// content.
	LFS *struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	} `json:"lfs,omitempty"`
}

// TreeURL is {endpoint}/api/{type}s/{repo}/tree/{revision}/{dir}, both the
// revision and the folder escaped whole (huggingface_hub's list_repo_tree
// quotes them with safe="").
func TreeURL(endpoint string, repo Repo, revision, dir string) string {
	u := strings.TrimRight(endpoint, "/") + "/api/" + repo.kind() + "s/" + repo.ID + "/tree/" + url.PathEscape(revision)
	if dir != "" {
		u += "/" + url.PathEscape(dir)
	}
	return u
}

// ListTree lists the folder dir of repo at o.Revision (not recursively),
// following the hub's Link rel="next" pages. The token goes only to the
// endpoint's origin.
func ListTree(ctx context.Context, repo Repo, dir string, o Options) ([]TreeEntry, error) {
	o = o.withDefaults()
	if err := repo.validate(); err != nil {
		return nil, newError(ErrInvalidName, fmt.Sprintf("hub %v: %v", repo, err), nil)
	}
	if err := validateRevision(o.Revision); err != nil {
		return nil, newError(ErrInvalidName, fmt.Sprintf("%s: invalid revision: %v", repo, err), nil)
	}
	if dir != "" {
		if err := validateFilePath(dir); err != nil {
			return nil, newError(ErrInvalidName, fmt.Sprintf("%s: %v", repo, err), nil)
		}
	}
	if o.Offline {
		return nil, newError(ErrNotCached, fmt.Sprintf("listing %s folder %s needs the hub and HF_HUB_OFFLINE is set", repo, dir), nil)
	}
	if err := checkEndpoint(o.Endpoint); err != nil {
		return nil, err
	}
	origin, _ := url.Parse(o.Endpoint)
	first := TreeURL(o.Endpoint, repo, o.Revision, dir)
	var out []TreeEntry
	next := first
	for page := 0; next != ""; page++ {
		if page == maxTreePages {
			return nil, newError(ErrDownload, fmt.Sprintf("listing %s folder %s: more than %d pages at %s", repo, dir, maxTreePages, first), nil)
		}
		entries, link, err := treePage(ctx, repo, dir, next, origin, o)
		if err != nil {
			return nil, err
		}
		out = append(out, entries...)
		next = link
	}
	return out, nil
}

func treePage(ctx context.Context, repo Repo, dir, rawURL string, origin *url.URL, o Options) ([]TreeEntry, string, error) {
	what := fmt.Sprintf("listing %s folder %s", repo, dir)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, "", newError(ErrDownload, fmt.Sprintf("%s: bad URL %s (check HF_ENDPOINT): %v", what, rawURL, err), nil)
	}
	if o.Token != "" && req.URL.Scheme == origin.Scheme && req.URL.Host == origin.Host {
		req.Header.Set("Authorization", "Bearer "+o.Token)
	}
	req.Header.Set("User-Agent", fileUserAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := redirectAwareClient(o.HTTPClient, origin, func(http.Header) {}).Do(req)
	if err != nil {
		return nil, "", fileNetworkError(ctx, what, rawURL, repo.Dir(o.CacheDir), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fileStatusError(repo, o.Revision, dir, rawURL, repo.Dir(o.CacheDir), resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTreePageBytes+1))
	if err != nil {
		return nil, "", fileNetworkError(ctx, what, rawURL, repo.Dir(o.CacheDir), err)
	}
	if len(body) > maxTreePageBytes {
		return nil, "", newError(ErrDownload, fmt.Sprintf("%s: a page of %s is larger than %d MiB", what, rawURL, maxTreePageBytes>>20), nil)
	}
	var entries []TreeEntry
	if err := json.Unmarshal(body, &entries); err != nil {
		return nil, "", newError(ErrDownload, fmt.Sprintf("%s: %s did not answer a JSON list of entries: %v", what, rawURL, err), nil)
	}
	next, err := nextLink(resp.Header, req.URL)
	if err != nil {
		return nil, "", newError(ErrDownload, fmt.Sprintf("%s: %s: %v", what, rawURL, err), nil)
	}
	return entries, next, nil
}

// nextLink returns the rel="next" target of a Link header (GitHub's
// pagination format, which the hub uses), resolved against base; "" when
// there is none.
func nextLink(h http.Header, base *url.URL) (string, error) {
	for _, v := range h.Values("Link") {
		for part := range strings.SplitSeq(v, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
			if !ok {
				continue
			}
			target = strings.TrimSpace(target)
			if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			isNext := false
			for p := range strings.SplitSeq(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(k, "rel") && slicesContainsFold(strings.Fields(strings.Trim(val, `"`)), "next") {
					isNext = true
				}
			}
			if !isNext {
				continue
			}
			u, err := base.Parse(target[1 : len(target)-1])
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				return "", fmt.Errorf("unusable next-page link %q", target)
			}
			return u.String(), nil
		}
	}
	return "", nil
}

func slicesContainsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
