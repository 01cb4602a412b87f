package sdktest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing, so a
// deliberately broken plugin makes the suite report without failing the
// real test. Everything else (TempDir, Cleanup, Helper, Logf) goes to the
// real test. Cleanups run when the check returns, as at the end of a test.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
	logs     []string
	cleanups []func()
	fatal    bool
}

func (r *recorder) Logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.mu.Lock()
	r.logs = append(r.logs, msg)
	r.mu.Unlock()
	r.TB.Log(msg)
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recorder) logged() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}

func (r *recorder) record(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, msg)
}

func (r *recorder) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }
func (r *recorder) Fail()                             { r.record("Fail called") }

// Fatalf records and stops the checking goroutine, like testing's FailNow.
func (r *recorder) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
	r.mu.Lock()
	r.fatal = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) FailNow()          { r.Fatalf("FailNow called") }

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failures) > 0
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

// runSuite runs check against a recorder on its own goroutine (so Fatalf
// can stop it) and returns what it reported.
func runSuite(t testing.TB, check func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r
}

// wantReport fails the real test unless some failure contains every part.
func (r *recorder) wantReport(t *testing.T, parts ...string) {
	t.Helper()
	for _, f := range r.all() {
		if containsAll(f, parts) {
			return
		}
	}
	t.Errorf("no reported failure contains %q; reported:\n  %s", parts, strings.Join(r.all(), "\n  "))
}

// wantClean fails the real test if the suite reported anything.
func (r *recorder) wantClean(t *testing.T) {
	t.Helper()
	if fs := r.all(); len(fs) > 0 {
		t.Errorf("the suite reported %d failures for a conforming plugin:\n  %s", len(fs), strings.Join(fs, "\n  "))
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func TestRecorderStopsOnFatalAndKeepsErrors(t *testing.T) {
	reached := false
	r := runSuite(t, func(tb testing.TB) {
		tb.Errorf("first %d", 1)
		tb.Fatalf("second %s", "fatal")
		reached = true
	})
	if reached {
		t.Error("Fatalf did not stop the check")
	}
	if got := r.all(); len(got) != 2 || got[0] != "first 1" || got[1] != "second fatal" || !r.fatal {
		t.Errorf("recorded %q (fatal %v), want [first 1, second fatal] and fatal", got, r.fatal)
	}
}
