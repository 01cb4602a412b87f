package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// Host builds plugins through the registry and applies the one plugin
// lifecycle (sdk/lifecycle.go) in one place: settings decoded strictly, Init
// with the run's facts, Validate, and Close in reverse order of
// construction — also for plugins built before one that failed.
type Host struct {
	reg *registry.Registry
	run sdk.RunInfo
	// settings are --plugin-config values by "category.name"; overlays the
	// run-wide settings the selection table derives from AIPerf's flags.
	settings map[string]map[string]any
	overlays map[string]map[string]any
	// selected names the plugin of each run-wide single-choice category.
	selected map[string]string
	used     map[string]bool
	built    []built
	// log is the run's logger, handed to plugins that implement
	// sdk.Logging; nil until UseLogger (plugins then log nowhere).
	log *slog.Logger
}

// UseLogger gives the plugins built from now on the run's logger.
func (h *Host) UseLogger(log *slog.Logger) { h.log = log }

type built struct {
	id string
	v  any
}

// newHost prepares a host for one run.
func newHost(reg *registry.Registry, run sdk.RunInfo, settings []config.PluginSetting, sel Selection) *Host {
	h := &Host{reg: reg, run: run, settings: map[string]map[string]any{}, overlays: sel.Settings,
		selected: sel.Names, used: map[string]bool{}}
	for _, s := range settings {
		m := h.settings[s.ID()]
		if m == nil {
			m = map[string]any{}
			h.settings[s.ID()] = m
		}
		m[s.Key] = s.Value
	}
	return h
}

// SetRun replaces the run facts later plugins are initialized with (the
// endpoint and goodput are known only after the endpoint was built).
func (h *Host) SetRun(run sdk.RunInfo) { h.run = run }

// Run returns the run facts plugins are initialized with.
func (h *Host) Run() sdk.RunInfo { return h.run }

// UseSelected builds the plugin the selection names for category c.
func UseSelected[T any](ctx context.Context, h *Host, c sdk.CategoryOf[T]) (T, error) {
	return Use(ctx, h, c, h.selected[c.Name], nil, "")
}

// Selected builds the plugin the selection names for category c, untyped:
// the engine asks for the routing plugins it uses this way, so a new
// category the engine uses needs no wiring here.
func (h *Host) Selected(ctx context.Context, c sdk.Category) (any, error) {
	name := h.selected[c.Name]
	if name == "" {
		return nil, fmt.Errorf("no %s plugin selected for this run", c.Name)
	}
	v, err := h.use(ctx, c, name, nil, "")
	if err != nil {
		return nil, err
	}
	if !c.Implements(v) {
		return nil, fmt.Errorf("plugin %s.%s does not implement %s", c.Name, name, c.InterfaceName())
	}
	return v, nil
}

// Use builds, configures, initializes and validates the plugin of category
// c named name. Its settings are layered: the manifest's config, then the
// run-wide settings the selection table derived from AIPerf's flags, then
// overlay (per-phase flags, e.g. --request-rate for
// timing_strategy.request_rate), then --plugin-config. phase, when set, is
// the phase a per-phase plugin serves.
func Use[T any](ctx context.Context, h *Host, c sdk.CategoryOf[T], name string, overlay map[string]any, phase string) (T, error) {
	var zero T
	v, err := h.use(ctx, c.Category, name, overlay, phase)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("plugin %s.%s does not implement %s", c.Name, registry.Normalize(name), c.InterfaceName())
	}
	return t, nil
}

func (h *Host) use(ctx context.Context, c sdk.Category, name string, overlay map[string]any, phase string) (any, error) {
	e, err := h.reg.Resolve(c.Name, name)
	if err != nil {
		return nil, err
	}
	v, err := h.reg.Instantiate(c.Name, e.Name)
	if err != nil {
		return nil, err
	}
	id := c.Name + "." + e.Name
	h.built = append(h.built, built{id: id, v: v})
	run := h.run
	run.Phase = phase
	if err := h.start(ctx, id, v, h.merged(id, e, overlay), run); err != nil {
		return nil, err
	}
	return v, nil
}

// UseAll builds every plugin of a "many" category, in declaration order.
func UseAll[T any](ctx context.Context, h *Host, c sdk.CategoryOf[T]) ([]registry.Named[T], error) {
	var out []registry.Named[T]
	for _, n := range h.reg.Names(c.Name) {
		v, err := Use(ctx, h, c, n, nil, "")
		if err != nil {
			return nil, err
		}
		out = append(out, registry.Named[T]{Category: c.Name, Name: n, Plugin: v})
	}
	return out, nil
}

// merged layers the plugin's settings: manifest config < run-wide flags <
// per-phase flags < --plugin-config.
func (h *Host) merged(id string, e *registry.Entry, overlay map[string]any) map[string]any {
	out := map[string]any{}
	maps.Copy(out, e.Config)
	maps.Copy(out, h.overlays[id])
	maps.Copy(out, overlay)
	if s, ok := h.settings[id]; ok {
		maps.Copy(out, s)
		h.used[id] = true
	}
	return out
}

// start applies the lifecycle to one plugin. Every error names the plugin.
func (h *Host) start(ctx context.Context, id string, v any, settings map[string]any, run sdk.RunInfo) error {
	if lg, ok := v.(sdk.Logging); ok && h.log != nil {
		lg.SetLogger(h.log.With("plugin", id))
	}
	if err := configure(ctx, id, v, settings); err != nil {
		return named(id, "", err)
	}
	if in, ok := v.(sdk.Initializer); ok {
		if err := in.Init(ctx, run); err != nil {
			return named(id, "init: ", err)
		}
	}
	if val, ok := v.(sdk.Validator); ok {
		if err := val.Validate(); err != nil {
			return named(id, "", err)
		}
	}
	return nil
}

// named prefixes err with the plugin's id unless the plugin already did.
func named(id, step string, err error) error {
	if msg := err.Error(); strings.HasPrefix(msg, id+":") || strings.Contains(msg, "plugin "+id) {
		return err
	}
	return fmt.Errorf("plugin %s: %s%w", id, step, err)
}

// configure delivers settings: over the protocol for external plugins
// (registry.ConfigSink), else by the SDK's rule (sdk.ApplyConfig: decoded
// strictly into PluginConfig, or refused when the plugin takes none).
func configure(ctx context.Context, id string, v any, settings map[string]any) error {
	if len(settings) == 0 {
		return nil
	}
	data, err := json.Marshal(settings)
	if err != nil {
		return fmt.Errorf("plugin %s: settings: %w", id, err)
	}
	if sink, ok := v.(registry.ConfigSink); ok {
		return sink.Configure(ctx, data)
	}
	return sdk.ApplyConfig(v, id, data)
}

// Unused lists --plugin-config targets no plugin of this run used, so a
// setting for a plugin the run never built is not silently ignored.
func (h *Host) Unused() []string {
	var out []string
	for id := range h.settings {
		if !h.used[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// Close closes every plugin built, in reverse order, and returns every
// failure, each naming its plugin. It is safe to call more than once.
func (h *Host) Close() error {
	var errs []error
	for i := len(h.built) - 1; i >= 0; i-- {
		b := h.built[i]
		if c, ok := b.v.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("plugin %s: close: %w", b.id, err))
			}
		}
	}
	h.built = nil
	return errors.Join(errs...)
}
