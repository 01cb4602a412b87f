package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Check is one line of `aiperf plugins --validate`.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// String renders the check the way AIPerf prints it: "(OK) Name: detail"
// or "(FAIL) Name: detail".
func (c Check) String() string {
	status := "(OK)"
	if !c.OK {
		status = "(FAIL)"
	}
	if c.Detail == "" {
		return status + " " + c.Name
	}
	return status + " " + c.Name + ": " + c.Detail
}

// ValidateOptions tune ValidateAll.
type ValidateOptions struct {
	// Live loads every external plugin through its kind's Loader (gRPC
	// handshake + Describe, WASM compile + exports + API version) and checks
	// the value implements its category's interface.
	Live bool
	// LoadTimeout bounds each live load (0 = DefaultLoadTimeout), so a
	// plugin that hangs fails its check instead of hanging validation.
	LoadTimeout time.Duration
}

// DefaultLoadTimeout bounds one live load during validation.
const DefaultLoadTimeout = 30 * time.Second

// Passed reports whether every check is OK.
func Passed(checks []Check) bool {
	for _, c := range checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// ValidateAll runs every check in a fixed order: manifest schema, plugin
// names, categories and kinds, built-ins vs compiled code, external files
// and checksums, API versions, then (opts.Live) one live load per external
// plugin. A check that passes is one OK line; a check that fails gives one
// FAIL line per problem.
func (r *Registry) ValidateAll(ctx context.Context, opts ValidateOptions) []Check {
	var checks []Check
	group := func(name string, problems []error, okDetail string) {
		if len(problems) == 0 {
			checks = append(checks, Check{Name: name, OK: true, Detail: okDetail})
			return
		}
		for _, p := range problems {
			checks = append(checks, Check{Name: name, OK: false, Detail: p.Error()})
		}
	}
	byCheck := classify(r.problems)
	declared := r.declaredEntries()
	group(CheckSchema, append(byCheck[CheckSchema], r.descriptionProblems()...), plural(len(r.manifests), "manifest"))
	group(CheckNames, byCheck[CheckNames], plural(len(declared), "plugin"))
	group(CheckKinds, byCheck[CheckKinds], "")
	group(CheckBuiltins, r.builtinProblems(), "")

	var externals []*Entry
	for _, e := range declared {
		if e.Kind != KindBuiltin {
			externals = append(externals, e)
		}
	}
	usable := map[*Entry]bool{}
	var fileProblems, apiProblems []error
	for _, e := range externals {
		ferr := checkFile(e)
		if ferr != nil {
			fileProblems = append(fileProblems, ferr)
		}
		var aerr error
		if e.APIVersion != sdk.APIVersion {
			aerr = fmt.Errorf("%s: %s", e.Where(), apiVersionMismatch(e.APIVersion))
			apiProblems = append(apiProblems, aerr)
		}
		usable[e] = ferr == nil && aerr == nil
	}
	group(CheckFiles, fileProblems, plural(len(externals), "external plugin"))
	group(CheckAPI, apiProblems, fmt.Sprintf("v%d", sdk.APIVersion))

	if opts.Live {
		for _, e := range externals {
			if usable[e] {
				checks = append(checks, r.liveCheck(ctx, e, opts.LoadTimeout))
			}
		}
	}
	return checks
}

// liveCheck loads one external plugin through its Loader. The load runs in
// its own goroutine so a loader that ignores ctx cannot hang validation.
func (r *Registry) liveCheck(ctx context.Context, e *Entry, timeout time.Duration) Check {
	label := fmt.Sprintf("%s.%s (%s, %s)", e.Category, e.Name, e.Kind, e.Source)
	fail := func(format string, args ...any) Check {
		return Check{Name: CheckLive, OK: false, Detail: label + ": " + fmt.Sprintf(format, args...)}
	}
	l := r.loaders[e.Kind]
	if l == nil {
		return fail("no loader for %s plugins in this build", e.Kind)
	}
	if timeout <= 0 {
		timeout = DefaultLoadTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("loader panicked: %v", p)}
			}
		}()
		v, err := l.Load(ctx, e)
		done <- result{v, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		return fail("no answer within %s: %v", timeout, ctx.Err())
	}
	if res.err != nil {
		return fail("%v", res.err)
	}
	iface, ok := implementsCategory(e.Category, res.v)
	if !ok {
		return fail("the loaded plugin does not implement %s", iface)
	}
	detail := label + ": loaded"
	if iface != "" {
		detail += ", implements " + iface
	}
	return Check{Name: CheckLive, OK: true, Detail: detail}
}

// Validate checks that every builtin entry has an implementation and every
// built-in implementation is declared, so plugins.yaml stays the single
// source of truth. It returns one error per problem. ValidateAll is the
// complete check.
func (r *Registry) Validate() []error {
	return append(r.builtinProblems(), r.descriptionProblems()...)
}

// declaredEntries lists every entry the registry accepted, winners and
// losers of conflicts alike, in registration order.
func (r *Registry) declaredEntries() []*Entry {
	var out []*Entry
	for _, m := range r.manifests {
		for _, e := range m.Entries {
			if !r.rejected[e] {
				out = append(out, e)
			}
		}
	}
	return out
}

func (r *Registry) descriptionProblems() []error {
	var errs []error
	for _, e := range r.declaredEntries() {
		if strings.TrimSpace(e.Description) == "" {
			errs = append(errs, fmt.Errorf("%s: %s.%s has no description", e.Source, e.Category, e.Name))
		}
	}
	return errs
}

// builtinProblems compares builtin entries with the compiled constructors
// and finds empty categories.
func (r *Registry) builtinProblems() []error {
	var errs []error
	declared := map[string]bool{}
	for _, e := range r.declaredEntries() {
		if e.Kind != KindBuiltin {
			continue
		}
		declared[e.Category+"."+e.Name] = true
		f, ok := r.builtins[e.Category][e.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: builtin %s.%s has no implementation", e.Source, e.Category, e.Name))
			continue
		}
		v := f.New()
		if cat, known := sdk.LookupCategory(e.Category); known && !cat.Implements(v) {
			errs = append(errs, fmt.Errorf("%s: builtin %s.%s does not implement %s", e.Source, e.Category, e.Name, cat.InterfaceName()))
		}
		// The manifest's settings must decode into the plugin's own, as the
		// run will do (unknown keys, wrong types).
		if len(e.Config) > 0 {
			id := e.Category + "." + e.Name
			data, err := json.Marshal(e.Config)
			if err == nil {
				err = sdk.ApplyConfig(v, id, data)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %s: config: %w", e.Source, e.line, id, err))
			}
		}
	}
	for _, d := range r.builtinDups {
		errs = append(errs, fmt.Errorf("built-in %s is provided twice", d))
	}
	var undeclared []string
	for cat, byName := range r.builtins {
		for name := range byName {
			if !declared[cat+"."+name] {
				undeclared = append(undeclared, cat+"."+name)
			}
		}
	}
	sort.Strings(undeclared)
	for _, n := range undeclared {
		errs = append(errs, fmt.Errorf("built-in %s is implemented but not declared in plugins.yaml", n))
	}
	for _, c := range sdk.Categories {
		if len(r.entries[c.Name]) == 0 {
			errs = append(errs, fmt.Errorf("category %s has no plugins", c.Name))
		}
	}
	return errs
}

// classify sorts problems by the check they belong to; joined errors are
// split and anything that is not a ManifestError counts as a schema problem.
func classify(problems []error) map[string][]error {
	out := map[string][]error{}
	var walk func(err error)
	walk = func(err error) {
		switch e := err.(type) {
		case *ManifestError:
			out[e.Check] = append(out[e.Check], e)
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				walk(inner)
			}
		default:
			check := CheckSchema
			if me := (*ManifestError)(nil); errors.As(err, &me) {
				check = me.Check
			}
			out[check] = append(out[check], err)
		}
	}
	for _, p := range problems {
		walk(p)
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
