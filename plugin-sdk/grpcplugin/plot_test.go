package grpcplugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// linePlot writes "<requests> requests <format> <width>x<height>" unless
// the run's directory asks it to fail or panic.
type linePlot struct{}

func (linePlot) Applies(run *sdk.PlotRun) bool {
	if run.Dir == "panic" {
		panic("applies exploded")
	}
	return len(run.Requests) > 0
}

func (linePlot) Render(run *sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	switch run.Dir {
	case "fail":
		return errors.New("no TTFT in this run")
	case "panic":
		panic("render exploded")
	case "big":
		// Larger than one chunk: the image streams back in several.
		_, err := w.Write(bytes.Repeat([]byte("x"), 3*pluginpb.PlotChunkBytes+1))
		return err
	}
	_, err := fmt.Fprintf(w, "%d requests %s %dx%d", len(run.Requests), opts.Format, opts.Width, opts.Height)
	return err
}

// sweepPlot compares runs.
type sweepPlot struct{ linePlot }

func (sweepPlot) Applies(*sdk.PlotRun) bool { return false }

func (sweepPlot) AppliesToRuns(runs []*sdk.PlotRun) bool { return len(runs) > 1 }

func (sweepPlot) RenderRuns(runs []*sdk.PlotRun, opts sdk.PlotOptions, w io.Writer) error {
	if runs[0].Dir == "panic" {
		panic("sweep exploded")
	}
	dirs := make([]string, len(runs))
	for i, r := range runs {
		dirs[i] = r.Dir
	}
	_, err := fmt.Fprintf(w, "%s %s", strings.Join(dirs, ","), opts.Theme)
	return err
}

func plotRun(dir string, n int) *sdk.PlotRun {
	return &sdk.PlotRun{Dir: dir, Requests: make([]sdk.PlotRequest, n)}
}

func applies(t *testing.T, rpc pluginpb.PluginClient, comparison bool, runs ...*sdk.PlotRun) (bool, error) {
	t.Helper()
	call, err := pluginpb.MarshalPlotCall(runs, comparison, sdk.PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return CallPlotApplies(context.Background(), rpc, call)
}

func render(t *testing.T, rpc pluginpb.PluginClient, comparison bool, opts sdk.PlotOptions, runs ...*sdk.PlotRun) (string, error) {
	t.Helper()
	call, err := pluginpb.MarshalPlotCall(runs, comparison, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = CallRenderPlot(context.Background(), rpc, call, &buf)
	return buf.String(), err
}

func TestPlotOverGRPC(t *testing.T) {
	rpc := serve(t, linePlot{})
	desc, err := rpc.Describe(context.Background(), &pluginpb.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(desc.GetCategories(), ",") != sdk.CategoryPlot || desc.GetComparisonPlot() {
		t.Errorf("Describe: categories %v, comparison %v", desc.GetCategories(), desc.GetComparisonPlot())
	}
	if ok, err := applies(t, rpc, false, plotRun("r", 3)); err != nil || !ok {
		t.Errorf("Applies(3 requests) = %v, %v", ok, err)
	}
	if ok, err := applies(t, rpc, false, plotRun("r", 0)); err != nil || ok {
		t.Errorf("Applies(no requests) = %v, %v", ok, err)
	}
	opts := sdk.PlotOptions{Format: "svg", Width: 800, Height: 600, DPI: 100, Theme: "dark"}
	if got, err := render(t, rpc, false, opts, plotRun("r", 3)); err != nil || got != "3 requests svg 800x600" {
		t.Errorf("Render = %q, %v", got, err)
	}
	got, err := render(t, rpc, false, opts, plotRun("big", 1))
	if err != nil || len(got) != 3*pluginpb.PlotChunkBytes+1 {
		t.Errorf("big Render: %d bytes, %v", len(got), err)
	}

	for _, tc := range []struct {
		name    string
		call    func() error
		code    codes.Code
		message string
	}{
		{"render error", func() error { _, err := render(t, rpc, false, opts, plotRun("fail", 1)); return err },
			codes.Unknown, "no TTFT in this run"},
		{"render panic", func() error { _, err := render(t, rpc, false, opts, plotRun("panic", 1)); return err },
			codes.Internal, "panic in Render: render exploded"},
		{"applies panic", func() error { _, err := applies(t, rpc, false, plotRun("panic", 1)); return err },
			codes.Internal, "panic in Applies: applies exploded"},
		{"comparison call", func() error { _, err := applies(t, rpc, true, plotRun("a", 1), plotRun("b", 1)); return err },
			codes.FailedPrecondition, "this plot draws one run: it does not implement sdk.ComparisonPlot"},
		{"two runs", func() error { _, err := render(t, rpc, false, opts, plotRun("a", 1), plotRun("b", 1)); return err },
			codes.InvalidArgument, "single-run plot call with 2 runs, want 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if st, _ := status.FromError(err); st.Code() != tc.code || st.Message() != tc.message {
				t.Errorf("err = %v, want %v %q", err, tc.code, tc.message)
			}
		})
	}
	// The process survived the panics.
	if got, err := render(t, rpc, false, opts, plotRun("r", 1)); err != nil || got != "1 requests svg 800x600" {
		t.Errorf("Render after panics = %q, %v", got, err)
	}
}

func TestComparisonPlotOverGRPC(t *testing.T) {
	rpc := serve(t, sweepPlot{})
	desc, err := rpc.Describe(context.Background(), &pluginpb.DescribeRequest{})
	if err != nil || !desc.GetComparisonPlot() {
		t.Fatalf("Describe: comparison_plot %v, %v", desc.GetComparisonPlot(), err)
	}
	if ok, err := applies(t, rpc, true, plotRun("c1", 1), plotRun("c4", 1)); err != nil || !ok {
		t.Errorf("AppliesToRuns = %v, %v", ok, err)
	}
	if ok, err := applies(t, rpc, false, plotRun("c1", 1)); err != nil || ok {
		t.Errorf("Applies(one run) = %v, %v", ok, err)
	}
	opts := sdk.PlotOptions{Format: "png", Theme: "dark"}
	if got, err := render(t, rpc, true, opts, plotRun("c1", 1), plotRun("c4", 2), plotRun("c8", 0)); err != nil || got != "c1,c4,c8 dark" {
		t.Errorf("RenderRuns = %q, %v", got, err)
	}
	_, err = render(t, rpc, true, opts, plotRun("panic", 1), plotRun("x", 1))
	if st, _ := status.FromError(err); st.Code() != codes.Internal || st.Message() != "panic in RenderRuns: sweep exploded" {
		t.Errorf("err = %v", err)
	}
	_, err = applies(t, rpc, true)
	if st, _ := status.FromError(err); st.Code() != codes.InvalidArgument || st.Message() != "comparison plot call without runs" {
		t.Errorf("no runs: err = %v", err)
	}
}

func TestPlotCallsUnimplemented(t *testing.T) {
	rpc := serve(t, echoEndpoint{})
	if _, err := applies(t, rpc, false, plotRun("r", 1)); status.Code(err) != codes.Unimplemented {
		t.Errorf("PlotApplies on an endpoint: %v", err)
	}
	if _, err := render(t, rpc, false, sdk.PlotOptions{}, plotRun("r", 1)); status.Code(err) != codes.Unimplemented ||
		!strings.Contains(err.Error(), "does not implement category plot") {
		t.Errorf("RenderPlot on an endpoint: %v", err)
	}
}
