package hfhub

import (
	"context"
	"sync"
)

// downloads serializes downloads of the same repo and revision within the
// process, so N concurrent Resolve calls fetch the file once.
var downloads = &keyLocks{m: map[string]chan struct{}{}}

// keyLocks is a set of mutexes by key whose Lock honours a context. Entries
// are never removed: there are only as many as distinct tokenizers resolved.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

func (k *keyLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	k.mu.Lock()
	ch, ok := k.m[key]
	if !ok {
		ch = make(chan struct{}, 1)
		k.m[key] = ch
	}
	k.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
