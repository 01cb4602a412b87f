package wasmloader

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

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
	name    string // category.name, for messages
	timeout time.Duration
	memMB   int
	pool    *pool

	// init is replayed on every instance before its first call after an
	// Init: each instance holds its own copy of the plugin's state.
	init    atomic.Pointer[initCall]
	initSeq atomic.Uint64
}

type initCall struct {
	gen    uint64
	method wasmguest.Method
	req    proto.Message
}

func newPlugin(name string, mod *module, cfg instanceConfig, timeout time.Duration, size int) *plugin {
	p := &plugin{name: name, timeout: timeout, memMB: cfg.memMB}
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

func (p *plugin) describe(ctx context.Context) (*pluginpb.DescribeResponse, error) {
	var d pluginpb.DescribeResponse
	if err := p.call(ctx, wasmguest.MethodDescribe, &pluginpb.DescribeRequest{}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// setInit records an init call for every instance and runs it on one now,
// so a failing Init surfaces immediately.
func (p *plugin) setInit(ctx context.Context, m wasmguest.Method, req proto.Message) error {
	p.init.Store(&initCall{gen: p.initSeq.Add(1), method: m, req: req})
	return p.call(ctx, 0, nil, nil)
}

// call runs method m on a pooled instance (m == 0 only brings the instance
// up to date with the latest init). A broken instance is discarded.
func (p *plugin) call(ctx context.Context, m wasmguest.Method, req, resp proto.Message) error {
	in, err := p.pool.get(ctx)
	if err != nil {
		if errors.Is(err, errClosed) || ctx.Err() != nil {
			return fmt.Errorf("wasm plugin %s: %s: %w", p.name, m, err)
		}
		return err
	}
	err = p.ensureInit(ctx, in)
	if err == nil && m != 0 {
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

func (p *plugin) ensureInit(ctx context.Context, in *instance) error {
	st := p.init.Load()
	if st == nil || in.initGen == st.gen {
		return nil
	}
	if err := p.run(ctx, in, st.method, st.req, nil); err != nil {
		return err
	}
	in.initGen = st.gen
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
