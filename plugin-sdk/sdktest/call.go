package sdktest

import (
	"fmt"
	"testing"
	"time"
)

// callTimeout bounds one call into the plugin, so a hanging plugin fails
// the suite instead of hanging it. A variable so the suite's own tests can
// shorten it.
var callTimeout = 30 * time.Second

// call runs fn on its own goroutine and reports a panic or a hang as a
// failure naming what was called. ok is false in both cases; v and err are
// fn's results otherwise. The goroutine of a hung call is abandoned: an
// in-process call cannot be interrupted.
func call[T any](t testing.TB, what string, fn func() (T, error)) (v T, ok bool, err error) {
	t.Helper()
	type result struct {
		v        T
		err      error
		panicked any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			// panic(nil) arrives as *runtime.PanicNilError, so nil means no panic.
			r.panicked = recover()
			done <- r
		}()
		r.v, r.err = fn()
	}()
	timer := time.NewTimer(callTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.panicked != nil {
			t.Errorf("sdktest: %s panicked: %v", what, r.panicked)
			return v, false, nil
		}
		return r.v, true, r.err
	case <-timer.C:
		t.Errorf("sdktest: %s did not return within %v", what, callTimeout)
		return v, false, nil
	}
}

// callNoErr is call for functions without an error result.
func callNoErr[T any](t testing.TB, what string, fn func() T) (T, bool) {
	t.Helper()
	v, ok, _ := call(t, what, func() (T, error) { return fn(), nil })
	return v, ok
}

// quote shortens data for failure messages.
func quote(data []byte) string {
	const limit = 80
	if len(data) > limit {
		return fmt.Sprintf("%q…", data[:limit])
	}
	return fmt.Sprintf("%q", data)
}
