// Package wasmloader loads `kind: wasm` plugins with wazero. A module is
// compiled once per content digest (and cached on disk across runs), runs
// in a sandbox (memory cap, per-call deadline, no filesystem, network,
// environment or arguments unless the manifest grants read-only
// directories) and is served by a pool of instances, because one instance
// is single-threaded. Load returns a value implementing the entry's
// category interface, exactly like a built-in. The ABI is documented in
// plugin-sdk/wasmguest.
package wasmloader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/tetratelabs/wazero"
)

// Options configure a Loader. Zero values take the documented defaults.
type Options struct {
	// CacheDir holds wazero's compilation cache; default
	// $XDG_CACHE_HOME/aiperf/wazero or ~/.cache/aiperf/wazero.
	CacheDir string
	// Logger receives the plugins' stdout/stderr lines and loader warnings.
	Logger *slog.Logger
	// DefaultMemoryMB caps an instance's memory when the manifest sets no
	// limits.memory_mb (default 64).
	DefaultMemoryMB int
	// DefaultCallTimeout bounds one call when the manifest sets no
	// limits.call_timeout_ms (default 5 s).
	DefaultCallTimeout time.Duration
	// PoolSize is the most instances per loaded plugin (default GOMAXPROCS).
	PoolSize int
}

// Loader implements registry.Loader for kind wasm.
type Loader struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	cache   wazero.CompilationCache
	modules map[moduleKey]*module
	plugins []*plugin
	closed  bool
}

var _ registry.Loader = (*Loader)(nil)

// New returns a loader; nothing is compiled until the first Load.
func New(opts Options) *Loader {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.DefaultMemoryMB <= 0 {
		opts.DefaultMemoryMB = 64
	}
	if opts.DefaultCallTimeout <= 0 {
		opts.DefaultCallTimeout = 5 * time.Second
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = runtime.GOMAXPROCS(0)
	}
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	return &Loader{opts: opts, log: opts.Logger, modules: map[moduleKey]*module{}}
}

// DefaultCacheDir is $XDG_CACHE_HOME/aiperf/wazero, else
// ~/.cache/aiperf/wazero ("" when neither can be found).
func DefaultCacheDir() string {
	if dir := os.Getenv("XDG_CACHE_HOME"); dir != "" {
		return filepath.Join(dir, "aiperf", "wazero")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "aiperf", "wazero")
	}
	return ""
}

// adapterCategories are the categories a WASM module can serve: those
// whose descriptors accept wasm plugins (the protocol has no calls for the
// others, and data exporters would need a writable filesystem the sandbox
// never grants). Load has an adapter for each.
var adapterCategories = func() []string {
	var out []string
	for _, c := range sdk.Categories {
		if c.Accepts(sdk.KindWASM) {
			out = append(out, c.Name)
		}
	}
	return out
}()

// maxMemoryMB is the most memory a wasm32 module can address.
const maxMemoryMB = 4096

// Load compiles (or reuses) the entry's module, checks it, and returns the
// adapter for e.Category.
func (l *Loader) Load(ctx context.Context, e *registry.Entry) (any, error) {
	if err := checkEntry(e); err != nil {
		return nil, err
	}
	path := e.ResolvedPath()
	bin, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read wasm module: %w", err)
	}
	sum := sha256.Sum256(bin)
	if want := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(e.SHA256)), "sha256:"); want != "" {
		if got := hex.EncodeToString(sum[:]); got != want {
			return nil, fmt.Errorf("sha256 mismatch for %s: manifest says %s, file has %s", path, want, got)
		}
	}
	dirs, err := readDirs(e)
	if err != nil {
		return nil, err
	}
	memMB := e.Limits.MemoryMB
	if memMB <= 0 {
		memMB = l.opts.DefaultMemoryMB
	}
	// wasm32 addresses 4 GiB (65536 pages of 64 KiB) at most.
	if memMB > maxMemoryMB {
		return nil, fmt.Errorf("limits.memory_mb %d is above the %d MiB a 32-bit WASM module can address", memMB, maxMemoryMB)
	}
	timeout := time.Duration(e.Limits.CallTimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = l.opts.DefaultCallTimeout
	}
	mod, err := l.module(ctx, moduleKey{digest: sum, memMB: memMB}, bin)
	if err != nil {
		return nil, err
	}
	p := newPlugin(e.Category, e.Name, mod, instanceConfig{readDirs: dirs, log: l.log, memMB: memMB}, timeout, l.opts.PoolSize)
	desc, err := p.describe(ctx)
	if err != nil {
		p.close()
		return nil, err
	}
	if err := checkDescribe(desc, e.Category); err != nil {
		p.close()
		return nil, err
	}
	if err := l.track(p); err != nil {
		return nil, err
	}
	switch e.Category {
	case sdk.CategoryEndpoint:
		return &endpoint{plugin: p}, nil
	case sdk.CategoryRecordProcessor:
		if len(desc.GetMetrics()) == 0 {
			l.log.Warn("record processor plugin declares no metrics (Describe reports none; built against an older plugin SDK?)",
				"plugin", p.name)
		}
		return &recordProcessor{plugin: p}, nil
	case sdk.CategoryCustomDataset:
		return &datasetLoader{plugin: p, log: l.log}, nil
	}
	l.forget(p)
	return nil, fmt.Errorf("category %s accepts wasm plugins but this loader has no adapter for it", e.Category)
}

// forget closes a tracked plugin that will not be used.
func (l *Loader) forget(p *plugin) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.plugins = slices.DeleteFunc(l.plugins, func(q *plugin) bool { return q == p })
	p.close()
}

func checkEntry(e *registry.Entry) error {
	if e.Grants.Network {
		return errors.New("grants.network is not supported for wasm plugins (WASI preview 1 has no sockets)")
	}
	if e.APIVersion != 0 && e.APIVersion != sdk.APIVersion {
		return fmt.Errorf("manifest declares api_version %d, this aiperf speaks plugin API version %d", e.APIVersion, sdk.APIVersion)
	}
	for _, c := range adapterCategories {
		if c == e.Category {
			return nil
		}
	}
	return fmt.Errorf("category %s cannot be served by a wasm plugin (supported: %s)", e.Category, strings.Join(adapterCategories, ", "))
}

// readDirs resolves the granted read-only directories (relative ones
// against the manifest's directory) and checks that they exist.
func readDirs(e *registry.Entry) ([]string, error) {
	out := make([]string, 0, len(e.Grants.ReadDirs))
	for _, d := range e.Grants.ReadDirs {
		if !filepath.IsAbs(d) && e.Dir != "" {
			d = filepath.Join(e.Dir, d)
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("grants.read_dirs %q: %w", d, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("grants.read_dirs %q is not a readable directory", d)
		}
		out = append(out, abs)
	}
	return out, nil
}

func checkDescribe(d *pluginpb.DescribeResponse, category string) error {
	if d.GetApiVersion() != sdk.APIVersion {
		return fmt.Errorf("plugin was built for plugin API version %d, this aiperf speaks version %d", d.GetApiVersion(), sdk.APIVersion)
	}
	for _, c := range d.GetCategories() {
		if c == category {
			return nil
		}
	}
	return fmt.Errorf("module does not implement category %s (it implements: %s)", category, strings.Join(d.GetCategories(), ", "))
}

func (l *Loader) track(p *plugin) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		p.close()
		return errors.New("wasm loader is closed")
	}
	l.plugins = append(l.plugins, p)
	return nil
}

// Close stops every plugin and releases the runtimes and the cache.
func (l *Loader) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	for _, p := range l.plugins {
		p.close()
	}
	ctx := context.Background()
	var errs []error
	for _, m := range l.modules {
		errs = append(errs, m.rt.Close(ctx))
	}
	if l.cache != nil {
		errs = append(errs, l.cache.Close(ctx))
	}
	return errors.Join(errs...)
}
