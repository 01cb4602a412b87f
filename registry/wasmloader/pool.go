package wasmloader

import (
	"context"
	"errors"
	"sync/atomic"
)

var errClosed = errors.New("plugin is closed")

// pool hands each caller an instance of its own: an instance is
// single-threaded. Instances are created on demand up to the pool size;
// a broken one is discarded and its slot frees up for a fresh one.
type pool struct {
	idle   chan *instance
	slots  chan struct{}
	create func(ctx context.Context) (*instance, error)
	closed atomic.Bool
}

func newPool(size int, create func(ctx context.Context) (*instance, error)) *pool {
	return &pool{idle: make(chan *instance, size), slots: make(chan struct{}, size), create: create}
}

func (p *pool) get(ctx context.Context) (*instance, error) {
	if p.closed.Load() {
		return nil, errClosed
	}
	select {
	case in := <-p.idle:
		return in, nil
	default:
	}
	select {
	case in := <-p.idle:
		return in, nil
	case p.slots <- struct{}{}:
		in, err := p.create(ctx)
		if err != nil {
			<-p.slots
			return nil, err
		}
		return in, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// put returns a healthy instance. idle has room for every slot, so it
// never blocks.
func (p *pool) put(in *instance) {
	if p.closed.Load() {
		p.discard(in)
		return
	}
	p.idle <- in
}

func (p *pool) discard(in *instance) {
	in.close()
	<-p.slots
}

// close closes the idle instances; busy ones are closed when returned.
func (p *pool) close() {
	p.closed.Store(true)
	for {
		select {
		case in := <-p.idle:
			p.discard(in)
		default:
			return
		}
	}
}
