// Package registry resolves plugin category + name to an implementation.
// Manifests (plugins.yaml) declare what exists; built-in constructors bind
// builtin entries to Go values. Loaders for grpc and wasm kinds plug in here
// later; callers only ever see the category interface.
package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Loader instantiates external plugins of one kind (grpc, wasm). The value
// it returns implements the category interface of e.Category, so callers
// never know the kind. Close releases everything it started (plugin
// processes, WASM runtimes).
type Loader interface {
	Load(ctx context.Context, e *Entry) (any, error)
	Close() error
}

// Factory builds one built-in plugin: its category, its name, and a
// constructor typed by the category's interface, so a factory whose value
// does not implement the category does not compile.
type Factory struct {
	Category string
	Name     string
	build    func() any
}

// Provide binds a typed constructor to (category, name). The distribution
// (cmd/aiperf) lists one Provide per built-in.
func Provide[T any](c sdk.CategoryOf[T], name string, ctor func() T) Factory {
	return Factory{Category: c.Name, Name: name, build: func() any { return ctor() }}
}

// New builds a fresh instance.
func (f Factory) New() any { return f.build() }

// Builtins are the built-in plugins a binary carries, in any order.
type Builtins []Factory

// index maps category -> name -> factory; duplicates are kept for
// builtinProblems to report.
func (b Builtins) index() (map[string]map[string]Factory, []string) {
	out := map[string]map[string]Factory{}
	var dups []string
	for _, f := range b {
		byName := out[f.Category]
		if byName == nil {
			byName = map[string]Factory{}
			out[f.Category] = byName
		}
		if _, dup := byName[f.Name]; dup {
			dups = append(dups, f.Category+"."+f.Name)
		}
		byName[f.Name] = f
	}
	return out, dups
}

// Registry holds the resolved plugin entries.
type Registry struct {
	loaders map[Kind]Loader
	// loadCtx bounds every external plugin load (BindContext); nil is
	// context.Background().
	loadCtx context.Context

	entries map[string]map[string]*Entry
	// order keeps each category's names in declaration order: the order in
	// which "many" categories run (e.g. the metrics table before the error
	// summary).
	order    map[string][]string
	builtins map[string]map[string]Factory
	// builtinDups are factories given twice; ValidateAll reports them.
	builtinDups []string
	// manifests are every manifest given, in registration order; bySource
	// finds an entry's manifest.
	manifests []*Manifest
	bySource  map[string]*Manifest
	// problems are what a lenient build skipped (broken manifests, entries
	// in unknown categories or of kinds a category refuses); rejected marks
	// those entries. ValidateAll reports them.
	problems []error
	rejected map[*Entry]bool
	// Warnings collects non-fatal notes from conflict resolution.
	Warnings []string
}

// New builds a registry from manifests in registration order (the embedded
// one first) and the built-in constructors. The first entry the registry
// cannot accept is an error.
func New(builtins Builtins, manifests ...*Manifest) (*Registry, error) {
	r := newRegistry(builtins)
	for _, m := range manifests {
		r.addManifest(m)
		for _, e := range m.Entries {
			if err := r.add(e); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// NewLenient is New for `aiperf plugins --validate`: it never fails. Entries
// New would refuse are skipped, and they and the broken manifests (parse
// errors from ParseManifestFile) are kept for ValidateAll to report.
func NewLenient(builtins Builtins, manifests []*Manifest, broken ...error) *Registry {
	r := newRegistry(builtins)
	for _, err := range broken {
		if err != nil {
			r.problems = append(r.problems, err)
		}
	}
	for _, m := range manifests {
		r.addManifest(m)
		for _, e := range m.Entries {
			if err := r.add(e); err != nil {
				r.problems = append(r.problems, err)
				r.rejected[e] = true
			}
		}
	}
	return r
}

func newRegistry(builtins Builtins) *Registry {
	idx, dups := builtins.index()
	return &Registry{
		entries:     map[string]map[string]*Entry{},
		order:       map[string][]string{},
		builtins:    idx,
		builtinDups: dups,
		bySource:    map[string]*Manifest{},
		rejected:    map[*Entry]bool{},
	}
}

func (r *Registry) addManifest(m *Manifest) {
	r.manifests = append(r.manifests, m)
	if _, dup := r.bySource[m.Source]; !dup {
		r.bySource[m.Source] = m
	}
	for _, e := range m.Entries {
		if _, dup := r.bySource[e.Source]; !dup {
			r.bySource[e.Source] = m
		}
	}
}

func (r *Registry) add(e *Entry) error {
	cat, ok := sdk.LookupCategory(e.Category)
	if !ok {
		return &ManifestError{Source: e.Source, Line: e.line, Check: CheckKinds,
			Err: fmt.Errorf("%s.%s: unknown plugin category %q; valid categories: %s", e.Category, e.Name, e.Category, strings.Join(CategoryNames(), ", "))}
	}
	if !cat.Accepts(string(e.Kind)) {
		return &ManifestError{Source: e.Source, Line: e.line, Check: CheckKinds,
			Err: fmt.Errorf("%s.%s: kind %s not allowed: %s", e.Category, e.Name, e.Kind, refusal(cat))}
	}
	byName := r.entries[e.Category]
	if byName == nil {
		byName = map[string]*Entry{}
		r.entries[e.Category] = byName
	}
	old, exists := byName[e.Name]
	switch {
	case !exists:
		byName[e.Name] = e
		r.order[e.Category] = append(r.order[e.Category], e.Name)
	case wins(e, old):
		byName[e.Name] = e
	case e.Priority == old.Priority && e.Kind != KindBuiltin && old.Kind != KindBuiltin:
		r.Warnings = append(r.Warnings, fmt.Sprintf("plugin %s.%s declared by both %s and %s with equal priority; keeping the first (%s)",
			e.Category, e.Name, old.Source, e.Source, old.Source))
	}
	return nil
}

// wins reports whether candidate replaces incumbent: higher priority wins;
// at equal priority an external plugin beats a builtin; otherwise the first
// registered stays.
func wins(candidate, incumbent *Entry) bool {
	if candidate.Priority != incumbent.Priority {
		return candidate.Priority > incumbent.Priority
	}
	return candidate.Kind != KindBuiltin && incumbent.Kind == KindBuiltin
}

// CategoryNames lists the contract's categories.
func CategoryNames() []string {
	names := make([]string, len(sdk.Categories))
	for i, c := range sdk.Categories {
		names[i] = c.Name
	}
	return names
}

// Names lists the plugin names of a category in declaration order.
func (r *Registry) Names(category string) []string {
	return append([]string(nil), r.order[category]...)
}

// Entries lists the entries of a category in declaration order.
func (r *Registry) Entries(category string) []*Entry {
	out := make([]*Entry, 0, len(r.entries[category]))
	for _, n := range r.Names(category) {
		out = append(out, r.entries[category][n])
	}
	return out
}

// Resolve finds the entry for category and (un-normalized) name.
func (r *Registry) Resolve(category, name string) (*Entry, error) {
	if _, ok := sdk.LookupCategory(category); !ok {
		return nil, fmt.Errorf("unknown plugin category %q; valid categories: %s", category, strings.Join(CategoryNames(), ", "))
	}
	e, ok := r.entries[category][Normalize(name)]
	if !ok {
		return nil, fmt.Errorf("unknown %s %q; valid: %s", category, name, strings.Join(r.Names(category), ", "))
	}
	return e, nil
}

// Instantiate builds the plugin for category and name.
func (r *Registry) Instantiate(category, name string) (any, error) {
	e, err := r.Resolve(category, name)
	if err != nil {
		return nil, err
	}
	switch e.Kind {
	case KindBuiltin:
		f, ok := r.builtins[e.Category][e.Name]
		if !ok {
			return nil, fmt.Errorf("%s: builtin %s.%s has no implementation in this binary", e.Source, e.Category, e.Name)
		}
		return f.New(), nil
	default:
		if e.APIVersion != sdk.APIVersion {
			return nil, fmt.Errorf("%s: %s", e.Where(), apiVersionMismatch(e.APIVersion))
		}
		l := r.loaders[e.Kind]
		if l == nil {
			return nil, fmt.Errorf("%s: %s.%s: no loader for %s plugins in this build", e.Source, e.Category, e.Name, e.Kind)
		}
		ctx := r.loadCtx
		if ctx == nil {
			ctx = context.Background()
		}
		v, err := l.Load(ctx, e)
		if err != nil {
			return nil, fmt.Errorf("plugin %s.%s (%s, %s): %w", e.Category, e.Name, e.Kind, e.Source, err)
		}
		return v, nil
	}
}

// BindContext makes every later external plugin load end when ctx is
// done: a plugin still starting when the user presses Ctrl-C is stopped
// instead of waited for.
func (r *Registry) BindContext(ctx context.Context) { r.loadCtx = ctx }

// SetLoader installs the loader for external plugins of one kind.
func (r *Registry) SetLoader(kind Kind, l Loader) {
	if r.loaders == nil {
		r.loaders = map[Kind]Loader{}
	}
	r.loaders[kind] = l
}

// Close closes every loader (stopping plugin processes and runtimes).
func (r *Registry) Close() error {
	var errs []error
	for kind, l := range r.loaders {
		if err := l.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s loader: %w", kind, err))
		}
	}
	return errors.Join(errs...)
}

// Get instantiates a plugin of category c by (un-normalized) name, typed by
// the category's interface.
func Get[T any](r *Registry, c sdk.CategoryOf[T], name string) (T, error) {
	var zero T
	v, err := r.Instantiate(c.Name, name)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("plugin %s.%s does not implement %s", c.Name, Normalize(name), c.InterfaceName())
	}
	return t, nil
}

// Named is an instantiated plugin with its registry identity, so every
// message about it can name it (category.name).
type Named[T any] struct {
	Category, Name string
	Plugin         T
}

// ID is "category.name".
func (n Named[T]) ID() string { return n.Category + "." + n.Name }

// All instantiates every plugin of a category, in declaration order.
func All[T any](r *Registry, c sdk.CategoryOf[T]) ([]Named[T], error) {
	var out []Named[T]
	for _, n := range r.Names(c.Name) {
		t, err := Get(r, c, n)
		if err != nil {
			return nil, err
		}
		out = append(out, Named[T]{Category: c.Name, Name: n, Plugin: t})
	}
	return out, nil
}

// ConfigSink is implemented by adapters of external plugins: they deliver
// the plugin entry's settings (a JSON object) over the plugin protocol
// (Configure) instead of decoding them in process.
type ConfigSink interface {
	Configure(ctx context.Context, configJSON []byte) error
}
