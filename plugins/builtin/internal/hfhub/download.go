package hfhub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxTokenizerBytes bounds a download: real tokenizer.json files are at most
// a few tens of MB, and a runaway body must not exhaust memory.
const maxTokenizerBytes = 512 << 20

// userAgent identifies us to the hub like huggingface_hub's "library/version".
const userAgent = "aiperf-go; hfhub; file_type/tokenizer"

// offlineHint is appended to network failures.
const offlineHint = "if the machine is offline, set HF_HUB_OFFLINE=1 to use only the local cache, or pass a local tokenizer.json path"

// fetched is a successful download.
type fetched struct {
	body   []byte
	commit string // from X-Repo-Commit; "" when the hub sent none
}

// resolveURL is {endpoint}/{repo}/resolve/{revision}/tokenizer.json, with the
// revision escaped whole as huggingface_hub does ("refs/pr/1" → "refs%2Fpr%2F1").
func resolveURL(endpoint, repoID, revision string) string {
	return endpoint + "/" + repoID + "/resolve/" + url.PathEscape(revision) + "/" + TokenizerFile
}

// download GETs the tokenizer.json of repoID at revision. Errors carry the
// URL but never the token.
func download(ctx context.Context, repoID string, o Options) (fetched, error) {
	rawURL := resolveURL(o.Endpoint, repoID, o.Revision)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fetched{}, newError(ErrDownload, fmt.Sprintf("tokenizer %s: bad hub URL %s (check HF_ENDPOINT): %v", repoID, rawURL, err), nil)
	}
	if o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+o.Token)
	}
	req.Header.Set("User-Agent", userAgent)

	var commit string
	client := redirectAwareClient(o.HTTPClient, req.URL, func(h http.Header) {
		if commit == "" {
			commit = strings.TrimSpace(h.Get("X-Repo-Commit"))
		}
	})
	resp, err := client.Do(req)
	if err != nil {
		return fetched{}, networkError(ctx, repoID, rawURL, err)
	}
	defer resp.Body.Close()
	if commit == "" {
		commit = strings.TrimSpace(resp.Header.Get("X-Repo-Commit"))
	}
	if resp.StatusCode != http.StatusOK {
		return fetched{}, statusError(repoID, o.Revision, rawURL, resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenizerBytes+1))
	if err != nil {
		return fetched{}, networkError(ctx, repoID, rawURL, err)
	}
	if len(body) > maxTokenizerBytes {
		return fetched{}, newError(ErrNotTokenizer, fmt.Sprintf("tokenizer %s from %s is not a tokenizer.json: larger than %d MiB", repoID, rawURL, maxTokenizerBytes>>20), nil)
	}
	if err := checkTokenizerJSON(body); err != nil {
		return fetched{}, newError(ErrNotTokenizer, fmt.Sprintf("tokenizer %s from %s is not a tokenizer.json: %v", repoID, rawURL, err), nil)
	}
	return fetched{body: body, commit: commit}, nil
}

// redirectAwareClient copies base (keeping its transport, jar and timeout)
// and adds a redirect policy that reports each redirect response's headers
// (the hub puts X-Repo-Commit on its redirect, not on the CDN's answer) and
// drops the token whenever a redirect leaves the endpoint's origin. Go only
// drops it on a different host name, and would still send it to another port
// or from https to http.
func redirectAwareClient(base *http.Client, origin *url.URL, onRedirect func(http.Header)) *http.Client {
	var c http.Client
	if base != nil {
		c = *base
	}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Response != nil {
			onRedirect(req.Response.Header)
		}
		if req.URL.Scheme != origin.Scheme || req.URL.Host != origin.Host {
			req.Header.Del("Authorization")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// networkError wraps a transport failure. The *url.Error's own URL may be a
// signed CDN link, so only its cause is kept, next to the hub URL.
func networkError(ctx context.Context, repoID, rawURL string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return newError(ErrDownload, fmt.Sprintf("downloading tokenizer %s from %s: %v", repoID, rawURL, ctxErr), ctxErr)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return newError(ErrDownload, fmt.Sprintf("downloading tokenizer %s from %s: %v (%s)", repoID, rawURL, err, offlineHint), err)
}

// statusError maps a hub error status to advice. The hub's X-Error-Code
// header (what huggingface_hub keys on) refines 401/404 when present.
func statusError(repoID, revision, rawURL string, resp *http.Response) error {
	code := resp.Header.Get("X-Error-Code")
	notFound := fmt.Sprintf("tokenizer %s not found on the hub (check the repo id and --tokenizer-revision %s)", repoID, revision)
	switch {
	case code == "RepoNotFound":
		// The hub answers 401 for private repos too, so it cannot tell which.
		return newError(ErrNotFound, notFound+"; if the repo is private, set HF_TOKEN", nil)
	case code == "RevisionNotFound":
		return newError(ErrNotFound, fmt.Sprintf("tokenizer %s has no revision %s on the hub (check --tokenizer-revision)", repoID, revision), nil)
	case code == "EntryNotFound":
		return newError(ErrNotFound, fmt.Sprintf("tokenizer %s (revision %s) has no %s on the hub; only fast tokenizers (tokenizer.json) are supported", repoID, revision, TokenizerFile), nil)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return newError(ErrGated, fmt.Sprintf("tokenizer %s is gated or private: accept its license on huggingface.co and set HF_TOKEN (HTTP %d from %s)", repoID, resp.StatusCode, rawURL), nil)
	case resp.StatusCode == http.StatusNotFound:
		return newError(ErrNotFound, notFound, nil)
	}
	detail := resp.Status
	if msg := resp.Header.Get("X-Error-Message"); msg != "" {
		detail += ": " + msg
	}
	return newError(ErrDownload, fmt.Sprintf("downloading tokenizer %s from %s: HTTP %s (%s)", repoID, rawURL, detail, offlineHint), nil)
}

// modelField records whether the top-level "model" value is an object
// without copying it (it holds the whole vocabulary).
type modelField bool

func (m *modelField) UnmarshalJSON(b []byte) error {
	*m = len(b) > 0 && b[0] == '{'
	return nil
}

// checkTokenizerJSON accepts a JSON object with a "model" object, which every
// tokenizers-library file has; an HTML error page or a JSON error body fails.
func checkTokenizerJSON(body []byte) error {
	var doc struct {
		Model modelField `json:"model"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if !doc.Model {
		return errors.New(`no "model" object at the top level`)
	}
	return nil
}
