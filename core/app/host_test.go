package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// lifecycleRamp records the lifecycle calls made on it, in order, into a
// log shared by every plugin of the test.
type lifecycleRamp struct {
	name     string
	log      *[]string
	cfg      rampSettings
	failInit bool
}

type rampSettings struct {
	Steps int    `json:"steps"`
	Label string `json:"label"`
}

func (r *lifecycleRamp) Value(_, _ time.Duration, _, target float64) float64 { return target }
func (r *lifecycleRamp) PluginConfig() any                                   { return &r.cfg }
func (r *lifecycleRamp) Init(_ context.Context, run sdk.RunInfo) error {
	*r.log = append(*r.log, r.name+".init:"+run.Phase)
	if r.failInit {
		return errors.New("no GPU here")
	}
	return nil
}
func (r *lifecycleRamp) Validate() error {
	*r.log = append(*r.log, r.name+".validate")
	if r.cfg.Steps < 0 {
		return errors.New("steps must be >= 0")
	}
	return nil
}
func (r *lifecycleRamp) SetLogger(l *slog.Logger) {
	*r.log = append(*r.log, r.name+".logger")
	l.Info("ready")
}
func (r *lifecycleRamp) Close() error {
	*r.log = append(*r.log, r.name+".close")
	return nil
}

// plainRamp has no lifecycle and takes no settings.
type plainRamp struct{}

func (plainRamp) Value(_, _ time.Duration, _, target float64) float64 { return target }

func hostRegistry(t *testing.T, log *[]string, manifestConfig string) *registry.Registry {
	t.Helper()
	b := registry.Builtins{
		registry.Provide(sdk.Ramps, "first", func() sdk.Ramp { return &lifecycleRamp{name: "first", log: log} }),
		registry.Provide(sdk.Ramps, "second", func() sdk.Ramp { return &lifecycleRamp{name: "second", log: log} }),
		registry.Provide(sdk.Ramps, "broken", func() sdk.Ramp { return &lifecycleRamp{name: "broken", log: log, failInit: true} }),
		registry.Provide(sdk.Ramps, "plain", func() sdk.Ramp { return plainRamp{} }),
	}
	src := "ramp:\n  first:\n    description: d\n" + manifestConfig +
		"  second:\n    description: d\n  broken:\n    description: d\n  plain:\n    description: d\n"
	m, err := registry.ParseManifest([]byte(src), "plugins.yaml")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.New(b, m)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func setting(t *testing.T, item string) config.PluginSetting {
	t.Helper()
	s, err := config.ParsePluginSetting(item)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHostAppliesTheLifecycleInOrderAndClosesInReverse(t *testing.T) {
	var log []string
	h := newHost(hostRegistry(t, &log, ""), sdk.RunInfo{}, nil, Selection{})
	ctx := context.Background()
	if _, err := Use(ctx, h, sdk.Ramps, "First", nil, "warmup"); err != nil {
		t.Fatal(err)
	}
	if _, err := Use(ctx, h, sdk.Ramps, "second", nil, "profiling"); err != nil {
		t.Fatal(err)
	}
	// A plugin that fails to start is still closed, with every one before it.
	_, err := Use(ctx, h, sdk.Ramps, "broken", nil, "")
	if err == nil || err.Error() != "plugin ramp.broken: init: no GPU here" {
		t.Fatalf("broken Init: %v", err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	want := "first.init:warmup first.validate second.init:profiling second.validate broken.init: broken.close second.close first.close"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("lifecycle\n got %s\nwant %s", got, want)
	}
	// Closing again closes nothing twice.
	if err := h.Close(); err != nil || len(log) != strings.Count(want, " ")+1 {
		t.Errorf("second Close: %v, calls %d", err, len(log))
	}
}

func TestHostLayersSettings(t *testing.T) {
	var log []string
	reg := hostRegistry(t, &log, "    config:\n      steps: 1\n      label: manifest\n")
	run := map[string]map[string]any{"ramp.first": {"label": "run flag", "steps": 2}, "ramp.second": {"label": "run flag"}}
	h := newHost(reg, sdk.RunInfo{}, []config.PluginSetting{setting(t, "ramp.first.label=cli")}, Selection{Settings: run})
	r, err := Use(context.Background(), h, sdk.Ramps, "first", map[string]any{"steps": 7}, "")
	if err != nil {
		t.Fatal(err)
	}
	// manifest < run-wide flags < per-phase flags < --plugin-config.
	if cfg := r.(*lifecycleRamp).cfg; cfg.Steps != 7 || cfg.Label != "cli" {
		t.Errorf("settings = %+v", cfg)
	}
	r, err = Use(context.Background(), h, sdk.Ramps, "second", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg := r.(*lifecycleRamp).cfg; cfg.Label != "run flag" {
		t.Errorf("run-wide settings = %+v", cfg)
	}
	if u := h.Unused(); len(u) != 0 {
		t.Errorf("Unused = %v", u)
	}
}

func TestHostRefusesBadSettingsNamingPluginAndKey(t *testing.T) {
	cases := map[string]struct {
		plugin   string
		settings []string
		want     string
	}{
		"unknown key":          {"first", []string{"ramp.first.stpes=2"}, `plugin ramp.first: unknown setting "stpes"`},
		"wrong type":           {"first", []string{`ramp.first.steps="x"`}, `plugin ramp.first: setting "steps": string is not a int`},
		"validate":             {"first", []string{"ramp.first.steps=-1"}, "plugin ramp.first: steps must be >= 0"},
		"plugin takes none":    {"plain", []string{"ramp.plain.steps=1"}, `plugin ramp.plain takes no settings (got "steps")`},
		"unknown plugin":       {"nope", nil, `unknown ramp "nope"; valid: first, second, broken, plain`},
		"normalized spellings": {"SECOND", []string{"Ramp.Second.steps=2"}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var log []string
			var settings []config.PluginSetting
			for _, s := range c.settings {
				settings = append(settings, setting(t, s))
			}
			h := newHost(hostRegistry(t, &log, ""), sdk.RunInfo{}, settings, Selection{})
			defer h.Close()
			_, err := Use(context.Background(), h, sdk.Ramps, c.plugin, nil, "")
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Use = %v, want %q", err, c.want)
			}
		})
	}
}

func TestHostReportsSettingsForPluginsTheRunNeverBuilt(t *testing.T) {
	var log []string
	h := newHost(hostRegistry(t, &log, ""), sdk.RunInfo{}, []config.PluginSetting{setting(t, "ramp.second.steps=3")}, Selection{})
	if _, err := Use(context.Background(), h, sdk.Ramps, "first", nil, ""); err != nil {
		t.Fatal(err)
	}
	if u := h.Unused(); len(u) != 1 || u[0] != "ramp.second" {
		t.Errorf("Unused = %v", u)
	}
}

// Selected builds the plugin the selection names for a category: how the
// engine gets its routing plugins without wiring in the app.
func TestHostSelectedBuildsTheSelectedPlugin(t *testing.T) {
	var log []string
	h := newHost(hostRegistry(t, &log, ""), sdk.RunInfo{}, nil, Selection{Names: map[string]string{sdk.CategoryRamp: "Second"}})
	v, err := h.Selected(context.Background(), sdk.Ramps.Category)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := v.(*lifecycleRamp); !ok || r.name != "second" {
		t.Fatalf("Selected = %#v", v)
	}
	if _, err := h.Selected(context.Background(), sdk.UIs.Category); err == nil || err.Error() != "no ui plugin selected for this run" {
		t.Errorf("unselected category: %v", err)
	}
	if err := h.Close(); err != nil || strings.Join(log, " ") != "second.init: second.validate second.close" {
		t.Errorf("lifecycle %v, close %v", log, err)
	}
}

// A plugin that logs gets the run's logger, tagged with its id, before its
// settings.
func TestHostHandsPluginsTheRunLogger(t *testing.T) {
	var log []string
	var out bytes.Buffer
	h := newHost(hostRegistry(t, &log, ""), sdk.RunInfo{}, nil, Selection{})
	h.UseLogger(slog.New(slog.NewTextHandler(&out, nil)))
	if _, err := Use(context.Background(), h, sdk.Ramps, "first", nil, ""); err != nil {
		t.Fatal(err)
	}
	if len(log) == 0 || log[0] != "first.logger" {
		t.Errorf("lifecycle %v, want the logger first", log)
	}
	if !strings.Contains(out.String(), "msg=ready plugin=ramp.first") {
		t.Errorf("log %q lacks the plugin's tagged line", out.String())
	}
}
