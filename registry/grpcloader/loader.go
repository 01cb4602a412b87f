// Package grpcloader loads `kind: grpc` plugins: it starts the plugin binary
// through hashicorp/go-plugin (magic cookie + plugin API version handshake),
// checks the manifest's sha256 first, forwards the plugin's stderr to our
// log under its name, asks it to Describe itself, and returns an adapter
// that implements the entry's category interface (sdk.Endpoint with
// sdk.RecordParser, sdk.RecordProcessor, sdk.CustomDatasetLoader,
// sdk.DataExporter, the telemetry collectors, sdk.Plot or
// sdk.ComparisonPlot), so the core never knows the plugin is a process.
package grpcloader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// Defaults for Options.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultCallTimeout  = 30 * time.Second
)

// Options configure a Loader.
type Options struct {
	// Logger receives plugin stderr/stdout lines and go-plugin's messages,
	// tagged plugin=<category>.<name>. Nil discards them.
	Logger *slog.Logger
	// StartTimeout bounds process start plus handshake (default 10 s).
	StartTimeout time.Duration
	// CallTimeout is the per-call deadline when the manifest sets no
	// limits.call_timeout_ms (default 30 s).
	CallTimeout time.Duration
	// SkipHashCheck turns the manifest sha256 check off (it is on by
	// default, so the zero Options are the safe ones).
	SkipHashCheck bool
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	return o
}

// Loader starts gRPC plugin processes; one process per binary path, shared
// by every entry that names the same binary. It is safe for concurrent use.
type Loader struct {
	opts Options

	mu     sync.Mutex
	procs  map[string]*process // by absolute binary path
	closed bool
}

var _ registry.Loader = (*Loader)(nil)

// New returns a loader.
func New(opts Options) *Loader {
	return &Loader{opts: opts.withDefaults(), procs: map[string]*process{}}
}

// Load starts (or reuses) the entry's plugin process and returns the
// adapter for e.Category.
func (l *Loader) Load(ctx context.Context, e *registry.Entry) (any, error) {
	label := e.Category + "." + e.Name
	if e.Path == "" {
		return nil, fmt.Errorf("plugin %s: the manifest entry has no path to the plugin binary", label)
	}
	path, err := filepath.Abs(e.ResolvedPath())
	if err != nil {
		return nil, fmt.Errorf("plugin %s: resolving path %q: %w", label, e.ResolvedPath(), err)
	}
	if !supported(e.Category) {
		return nil, fmt.Errorf("plugin %s: category %s is not available to grpc plugins (supported: %s)", label, e.Category, supportedList())
	}

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("plugin %s: the grpc loader is closed", label)
	}
	p := l.procs[path]
	if p != nil && p.exited() {
		// A crashed process is not reused: the entry gets a fresh one.
		delete(l.procs, path)
		p = nil
	}
	if p == nil {
		if err := checkBinary(label, path); err != nil {
			return nil, err
		}
	}
	var digest string
	if e.SHA256 != "" && !l.opts.SkipHashCheck {
		if digest, err = verifyChecksum(label, path, e.SHA256, p); err != nil {
			return nil, err
		}
	}
	if p == nil {
		if p, err = l.start(ctx, label, path); err != nil {
			return nil, err
		}
		p.digest = digest
		l.procs[path] = p
	}
	if err := checkCategory(label, e.Category, p.desc.GetCategories()); err != nil {
		return nil, err
	}
	if e.Category == sdk.CategoryRecordProcessor && len(p.current.Load().metrics) == 0 {
		l.opts.Logger.Warn("record processor plugin declares no metrics (Describe reports none; built against an older plugin SDK?)",
			"plugin", label)
	}
	return newAdapter(e.Category, &conn{proc: p, label: label, category: e.Category, name: e.Name,
		timeout: l.callTimeout(e), logger: l.opts.Logger})
}

func (l *Loader) callTimeout(e *registry.Entry) time.Duration {
	if e.Limits.CallTimeoutMS > 0 {
		return time.Duration(e.Limits.CallTimeoutMS) * time.Millisecond
	}
	return l.opts.CallTimeout
}

// Close stops every plugin process this loader started and waits for
// them to exit. Later Loads fail.
func (l *Loader) Close() error {
	l.mu.Lock()
	procs := l.procs
	l.procs, l.closed = map[string]*process{}, true
	l.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, 0, len(procs))
	var errMu sync.Mutex
	for _, p := range procs {
		wg.Go(func() {
			if err := p.kill(); err != nil {
				errMu.Lock()
				errs = append(errs, err)
				errMu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
