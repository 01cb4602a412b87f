package grpcloader

import (
	"context"
	"fmt"
	"io"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
)

// newPlot is the plot adapter: a ComparisonPlot when the plugin's Describe
// says it draws several runs, else a single-run Plot.
func newPlot(c *conn) any {
	p := &Plot{conn: c}
	if c.proc.desc.GetComparisonPlot() {
		return &ComparisonPlot{p}
	}
	return p
}

// Plot is a gRPC single-run plot plugin. Each call streams the run in
// chunks (grpcplugin.CallPlotApplies, CallRenderPlot), so a run of any
// size crosses within gRPC's message limits.
//
// Applies has no error result: a failed Applies call answers true and the
// next Render returns the failure, so `aiperf plot` reports the plugin's
// error instead of taking it for missing data.
type Plot struct {
	*conn
	mu      sync.Mutex
	pending error // a failed Applies/AppliesToRuns, for the next render
}

var (
	_ sdk.Plot           = (*Plot)(nil)
	_ Described          = (*Plot)(nil)
	_ ExternalConfigurer = (*Plot)(nil)
)

// Applies implements sdk.Plot.
func (a *Plot) Applies(run *sdk.PlotRun) bool { return a.applies([]*sdk.PlotRun{run}, false) }

// Render implements sdk.Plot.
func (a *Plot) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	return a.render([]*sdk.PlotRun{run}, false, opts, w)
}

func (a *Plot) applies(runs []*sdk.PlotRun, comparison bool) bool {
	ok, err := a.appliesCall(runs, comparison)
	a.mu.Lock()
	a.pending = err
	a.mu.Unlock()
	return ok || err != nil
}

func (a *Plot) appliesCall(runs []*sdk.PlotRun, comparison bool) (bool, error) {
	const method = "PlotApplies"
	if err := a.deadError(method); err != nil {
		return false, err
	}
	call, err := pluginpb.MarshalPlotCall(runs, comparison, sdk.PlotOptions{})
	if err != nil {
		return false, fmt.Errorf("plugin %s: %s: %w", a.label, method, err)
	}
	ctx, cancel := a.callCtx(context.Background())
	defer cancel()
	ok, err := grpcplugin.CallPlotApplies(ctx, a.proc.rpc, call)
	if err != nil {
		return false, a.callError(method, err)
	}
	return ok, nil
}

func (a *Plot) render(runs []*sdk.PlotRun, comparison bool, opts sdk.PlotOptions, w io.Writer) error {
	const method = "RenderPlot"
	a.mu.Lock()
	pending := a.pending
	a.pending = nil
	a.mu.Unlock()
	if pending != nil {
		return pending
	}
	if err := a.deadError(method); err != nil {
		return err
	}
	call, err := pluginpb.MarshalPlotCall(runs, comparison, opts)
	if err != nil {
		return fmt.Errorf("plugin %s: %s: %w", a.label, method, err)
	}
	ctx, cancel := a.callCtx(context.Background())
	defer cancel()
	if err := grpcplugin.CallRenderPlot(ctx, a.proc.rpc, call, w); err != nil {
		return a.callError(method, err)
	}
	return nil
}

// ComparisonPlot is a gRPC plot plugin that draws several runs.
type ComparisonPlot struct{ *Plot }

var (
	_ sdk.ComparisonPlot = (*ComparisonPlot)(nil)
	_ Described          = (*ComparisonPlot)(nil)
	_ ExternalConfigurer = (*ComparisonPlot)(nil)
)

// AppliesToRuns implements sdk.ComparisonPlot.
func (a *ComparisonPlot) AppliesToRuns(runs []*sdk.PlotRun) bool { return a.applies(runs, true) }

// RenderRuns implements sdk.ComparisonPlot.
func (a *ComparisonPlot) RenderRuns(runs []*sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	return a.render(runs, true, opts, w)
}
