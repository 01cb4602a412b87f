package hfhub

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// DefaultEndpoint is the public Hugging Face hub.
const DefaultEndpoint = "https://huggingface.co"

// DefaultRevision is the branch used when no revision is given.
const DefaultRevision = "main"

// Options say where and how Resolve looks a hub repo id up. The zero value
// works: it means revision "main", the public hub, the default cache and
// http.DefaultClient's transport.
type Options struct {
	// Revision is a branch, tag or commit; "" means "main".
	Revision string
	// Token is the HF access token (HF_TOKEN), sent as a Bearer token.
	Token string
	// CacheDir is the resolved hub cache; "" means the default location.
	CacheDir string
	// Endpoint is the hub base URL; "" means https://huggingface.co.
	Endpoint string
	// Offline forbids all network access (HF_HUB_OFFLINE).
	Offline bool
	// HTTPClient sends the download; nil uses a client without a timeout
	// (bound the download with the context instead).
	HTTPClient *http.Client
}

// String prints the options with the token redacted, so logging an Options
// value can never leak it.
func (o Options) String() string {
	tok := ""
	if o.Token != "" {
		tok = "<redacted>"
	}
	return fmt.Sprintf("{Revision:%s Token:%s CacheDir:%s Endpoint:%s Offline:%t}",
		o.Revision, tok, o.CacheDir, o.Endpoint, o.Offline)
}

// GoString is String for %#v.
func (o Options) GoString() string { return "hfhub.Options" + o.String() }

// OptionsFromEnv reads the huggingface_hub environment variables through env
// (os.Getenv in production). HOME is read through env too, so tests are
// hermetic; the token file is the only thing read from disk.
func OptionsFromEnv(env func(string) string) Options {
	hfHome := hfHomeDir(env)
	return Options{
		Token:    tokenFromEnv(env, hfHome),
		CacheDir: cacheDirFromEnv(env, hfHome),
		Endpoint: strings.TrimRight(strings.TrimSpace(env("HF_ENDPOINT")), "/"),
		Offline:  isTrue(env("HF_HUB_OFFLINE")),
	}
}

// tokenFromEnv follows huggingface_hub: the environment wins over the token
// file that `huggingface-cli login` writes.
func tokenFromEnv(env func(string) string, hfHome string) string {
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if t := strings.TrimSpace(env(k)); t != "" {
			return t
		}
	}
	path := expandHome(env("HF_TOKEN_PATH"), env)
	if path == "" {
		path = filepath.Join(hfHome, "token")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "" // no stored login: anonymous access
	}
	return strings.TrimSpace(string(b))
}

func cacheDirFromEnv(env func(string) string, hfHome string) string {
	for _, k := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if d := env(k); d != "" {
			return expandHome(d, env)
		}
	}
	return filepath.Join(hfHome, "hub")
}

// hfHomeDir is $HF_HOME, else $XDG_CACHE_HOME/huggingface, else
// ~/.cache/huggingface.
func hfHomeDir(env func(string) string) string {
	if h := env("HF_HOME"); h != "" {
		return expandHome(h, env)
	}
	if x := env("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(expandHome(x, env), "huggingface")
	}
	return filepath.Join(homeDir(env), ".cache", "huggingface")
}

func homeDir(env func(string) string) string {
	if h := env("HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "."
}

// expandHome expands a leading "~" like Python's os.path.expanduser.
func expandHome(p string, env func(string) string) string {
	if p == "~" {
		return homeDir(env)
	}
	if strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(os.PathSeparator)) {
		return filepath.Join(homeDir(env), p[2:])
	}
	return p
}

// isTrue matches huggingface_hub's _is_true.
func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// withDefaults fills the zero fields Resolve needs.
func (o Options) withDefaults() Options {
	if o.Revision == "" {
		o.Revision = DefaultRevision
	}
	if o.Endpoint == "" {
		o.Endpoint = DefaultEndpoint
	}
	o.Endpoint = strings.TrimRight(o.Endpoint, "/")
	if o.CacheDir == "" {
		o.CacheDir = cacheDirFromEnv(os.Getenv, hfHomeDir(os.Getenv))
	}
	return o
}
