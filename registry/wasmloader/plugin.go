package wasmloader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
	"google.golang.org/protobuf/proto"
)

// instantiateTimeout bounds creating an instance (the Go runtime and the
// guest's init run then); generous because it is not a per-call cost.
const instantiateTimeout = 10 * time.Second

// plugin is one loaded plugin: its pool of instances and the call plumbing
// the category adapters share.
type plugin struct {
	name                string // category.name, for messages
	category, entryName string // the manifest entry, for Configure
	timeout             time.Duration
	memMB               int
	pool                *pool

	// setup holds the lifecycle calls made so far (Configure, then Init),
	// replayed in order on every instance before its first call after a
	// change: each instance holds its own copy of the plugin's state.
	setup   atomic.Pointer[setupState]
	setupMu sync.Mutex // serializes changes of setup
	setupN  uint64     // generations handed out, under setupMu

	// described is the latest Describe answer: at load, then after every
	// Configure and Init, since the endpoint metadata and the declared
	// metrics may follow the settings.
	described atomic.Pointer[description]
}

type setupCall struct {
	method wasmguest.Method
	req    proto.Message
}

type setupState struct {
	gen   uint64
	calls []setupCall
}

// description is one Describe answer, converted once.
type description struct {
	md      sdk.EndpointMetadata
	metrics []sdk.MetricSpec
}

func newPlugin(category, entryName string, mod *module, cfg instanceConfig, timeout time.Duration, size int) *plugin {
	name := category + "." + entryName
	p := &plugin{name: name, category: category, entryName: entryName, timeout: timeout, memMB: cfg.memMB}
	p.pool = newPool(size, func(ctx context.Context) (*instance, error) {
		ctx, cancel := context.WithTimeout(ctx, max(timeout, instantiateTimeout))
		defer cancel()
		in, err := newInstance(ctx, mod, name, cfg)
		if err != nil {
			return nil, fmt.Errorf("wasm plugin %s: %w", name, err)
		}
		return in, nil
	})
	return p
}

func (p *plugin) close() { p.pool.close() }

// describe asks the plugin (on an instance with the setup applied) and
// keeps the answer.
func (p *plugin) describe(ctx context.Context) (*pluginpb.DescribeResponse, error) {
	var d pluginpb.DescribeResponse
	if err := p.call(ctx, wasmguest.MethodDescribe, &pluginpb.DescribeRequest{}, &d); err != nil {
		return nil, err
	}
	p.described.Store(&description{md: pluginpb.ToEndpointMetadata(d.GetEndpoint()), metrics: pluginpb.ToMetricSpecs(d.GetMetrics())})
	return &d, nil
}

// ExternalConfigurer is implemented by every adapter this loader returns:
// the core delivers a manifest entry's settings through it, once, before
// Init, and only when the entry has settings. It is the registry's
// ConfigSink for WASM plugins; the method set matches registry.ConfigSink
// exactly:
//
//	Configure(ctx context.Context, configJSON []byte) error
//
// configJSON is the entry's settings as one JSON object. The guest decodes
// it strictly: an unknown key is an error naming the plugin and the key.
type ExternalConfigurer interface {
	Configure(ctx context.Context, configJSON []byte) error
}

var _ ExternalConfigurer = (*plugin)(nil)

// Configure sends the entry's settings (the Configure method, with the
// entry's category and name), replayed on every instance like Init, then
// describes the plugin again.
func (p *plugin) Configure(ctx context.Context, configJSON []byte) error {
	req := &pluginpb.ConfigureRequest{Category: p.category, Name: p.entryName, ConfigJson: bytes.Clone(configJSON)}
	if err := p.addSetup(ctx, wasmguest.MethodConfigure, req); err != nil {
		if strings.Contains(err.Error(), fmt.Sprintf("unknown method %d ", wasmguest.MethodConfigure)) {
			return fmt.Errorf("wasm plugin %s: %s: the plugin takes no settings: it does not answer Configure (built against an older plugin SDK); remove its settings or rebuild it",
				p.name, wasmguest.MethodConfigure)
		}
		return err
	}
	_, err := p.describe(ctx)
	return err
}

// initRun records the run info for every instance and describes the plugin
// again.
func (p *plugin) initRun(ctx context.Context, m wasmguest.Method, req proto.Message) error {
	if err := p.addSetup(ctx, m, req); err != nil {
		return err
	}
	_, err := p.describe(ctx)
	return err
}

// addSetup appends a lifecycle call for every instance (a new Init
// replaces an earlier one) and runs it on one instance now, so a failing
// call surfaces immediately; a failed call is forgotten again.
func (p *plugin) addSetup(ctx context.Context, m wasmguest.Method, req proto.Message) error {
	p.setupMu.Lock()
	defer p.setupMu.Unlock()
	prev := p.setup.Load()
	var calls []setupCall
	if prev != nil {
		for _, c := range prev.calls {
			if m != wasmguest.MethodInitRecordProcessor || c.method != m {
				calls = append(calls, c)
			}
		}
	}
	p.setupN++
	p.setup.Store(&setupState{gen: p.setupN, calls: append(calls, setupCall{method: m, req: req})})
	if err := p.call(ctx, 0, nil, nil); err != nil {
		p.setup.Store(prev)
		return err
	}
	return nil
}

// call runs method m on a pooled instance (m == 0 only brings the instance
// up to date with the setup). A broken instance is discarded, and so is
// one whose setup failed: its state is unknown.
func (p *plugin) call(ctx context.Context, m wasmguest.Method, req, resp proto.Message) error {
	in, err := p.pool.get(ctx)
	if err != nil {
		if errors.Is(err, errClosed) || ctx.Err() != nil {
			return fmt.Errorf("wasm plugin %s: %s: %w", p.name, m, err)
		}
		return err
	}
	if err := p.ensureSetup(ctx, in); err != nil {
		p.pool.discard(in)
		return err
	}
	if m != 0 {
		err = p.run(ctx, in, m, req, resp)
	}
	var b *brokenError
	if errors.As(err, &b) {
		p.pool.discard(in)
	} else {
		p.pool.put(in)
	}
	return err
}

// ensureSetup replays the setup calls on an instance that has not seen the
// latest ones (all of them: decoding the same settings again and a second
// Init leave an instance as one pass does).
func (p *plugin) ensureSetup(ctx context.Context, in *instance) error {
	st := p.setup.Load()
	if st == nil || in.setupGen == st.gen {
		return nil
	}
	for _, c := range st.calls {
		if err := p.run(ctx, in, c.method, c.req, nil); err != nil {
			return err
		}
	}
	in.setupGen = st.gen
	return nil
}

// run makes one call under the per-call deadline and names the plugin and
// method in any error.
func (p *plugin) run(ctx context.Context, in *instance, m wasmguest.Method, req, resp proto.Message) error {
	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	err := in.invoke(cctx, m, req, resp, p.memMB)
	if err == nil {
		return nil
	}
	var b *brokenError
	if !errors.As(err, &b) {
		return fmt.Errorf("wasm plugin %s: %s: %w", p.name, m, err)
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("exceeded its %v call deadline (limits.call_timeout_ms); the instance was stopped and will be replaced", p.timeout)
	} else {
		err = fmt.Errorf("%w; the instance was discarded", err)
	}
	return broken(fmt.Errorf("wasm plugin %s: %s: %w", p.name, m, err))
}
