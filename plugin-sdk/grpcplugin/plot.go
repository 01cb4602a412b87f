package grpcplugin

import (
	"context"
	"errors"
	"fmt"
	"io"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Plot calls stream: the host sends one serialized PlotCall in PlotChunks
// and closes its side; PlotApplies answers one message, RenderPlot the
// image in PlotChunks (pluginpb/plot.go). No message exceeds 1 MiB, so a
// plugin in another language works with its gRPC's default limits.

// PlotApplies implements the plot's Applies (AppliesToRuns for a
// comparison call).
func (s *Server) PlotApplies(stream grpc.ClientStreamingServer[pluginpb.PlotChunk, pluginpb.PlotAppliesResponse]) (err error) {
	if s.plot == nil {
		return unimplemented(sdk.CategoryPlot)
	}
	runs, comparison, _, err := s.recvPlotCall(stream.Recv)
	if err != nil {
		return err
	}
	method := "Applies"
	if comparison {
		method = "AppliesToRuns"
	}
	defer recoverPanic(method, &err)
	var ok bool
	if comparison {
		ok = s.compare.AppliesToRuns(runs)
	} else {
		ok = s.plot.Applies(runs[0])
	}
	return stream.SendAndClose(&pluginpb.PlotAppliesResponse{Applies: ok})
}

// RenderPlot implements the plot's Render (RenderRuns for a comparison
// call), streaming the image back as the implementation writes it.
func (s *Server) RenderPlot(stream grpc.BidiStreamingServer[pluginpb.PlotChunk, pluginpb.PlotChunk]) (err error) {
	if s.plot == nil {
		return unimplemented(sdk.CategoryPlot)
	}
	runs, comparison, opts, err := s.recvPlotCall(stream.Recv)
	if err != nil {
		return err
	}
	method := "Render"
	if comparison {
		method = "RenderRuns"
	}
	defer recoverPanic(method, &err)
	w := &pluginpb.ChunkWriter{Send: stream.Send}
	if comparison {
		err = s.compare.RenderRuns(runs, opts, w)
	} else {
		err = s.plot.Render(runs[0], opts, w)
	}
	if err != nil {
		return implError(err)
	}
	return w.Flush()
}

// recvPlotCall reads and decodes the call, and checks it suits the plot: a
// single-run call carries one run, a comparison call at least one and
// only for a comparison plot.
func (s *Server) recvPlotCall(recv func() (*pluginpb.PlotChunk, error)) ([]*sdk.PlotRun, bool, sdk.PlotOptions, error) {
	var opts sdk.PlotOptions
	data, err := pluginpb.RecvChunks(recv)
	if err != nil {
		if _, ok := status.FromError(err); ok {
			return nil, false, opts, err
		}
		return nil, false, opts, status.Error(codes.InvalidArgument, err.Error())
	}
	runs, comparison, opts, err := pluginpb.UnmarshalPlotCall(data)
	switch {
	case err != nil:
		return nil, false, opts, status.Error(codes.InvalidArgument, err.Error())
	case comparison && s.compare == nil:
		return nil, false, opts, status.Error(codes.FailedPrecondition,
			"this plot draws one run: it does not implement sdk.ComparisonPlot")
	case comparison && len(runs) == 0:
		return nil, false, opts, status.Error(codes.InvalidArgument, "comparison plot call without runs")
	case !comparison && len(runs) != 1:
		return nil, false, opts, status.Errorf(codes.InvalidArgument, "single-run plot call with %d runs, want 1", len(runs))
	}
	return runs, comparison, opts, nil
}

// CallPlotApplies is the host's side of PlotApplies: it streams call (from
// pluginpb.MarshalPlotCall) and returns the plugin's answer.
func CallPlotApplies(ctx context.Context, rpc pluginpb.PluginClient, call []byte) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := rpc.PlotApplies(ctx)
	if err != nil {
		return false, err
	}
	// io.EOF from Send means the plugin ended the call: CloseAndRecv says why.
	if err := pluginpb.SendChunks(stream.Send, call); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return false, err
	}
	return resp.GetApplies(), nil
}

// CallRenderPlot is the host's side of RenderPlot: it streams call and
// writes the image to w as its chunks arrive.
func CallRenderPlot(ctx context.Context, rpc pluginpb.PluginClient, call []byte, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := rpc.RenderPlot(ctx)
	if err != nil {
		return err
	}
	if err := pluginpb.SendChunks(stream.Send, call); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	n := 0
	for {
		c, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if n += len(c.GetData()); n > pluginpb.MaxPlotBytes {
			return fmt.Errorf("the plot image exceeds %d MiB", pluginpb.MaxPlotBytes>>20)
		}
		if _, err := w.Write(c.GetData()); err != nil {
			return fmt.Errorf("writing the plot image: %w", err)
		}
	}
}
