package grpcplugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Server serves an sdk implementation as service aiperf.plugin.v1.Plugin.
// Methods of categories the implementation lacks return codes.Unimplemented;
// its errors become status errors carrying the error text; a panic inside
// it is recovered and returned as codes.Internal naming the method, so one
// bad record never takes the process down.
//
// The implementation's optional lifecycle (sdk.Configurable,
// sdk.Initializer, sdk.Validator, io.Closer) maps onto the protocol as
// described in the package documentation.
type Server struct {
	pluginpb.UnimplementedPluginServer

	// desc holds what Describe reports that never changes; the endpoint
	// metadata and the metrics are asked of the implementation per call,
	// so they reflect its settings once Configure ran.
	desc      *pluginpb.DescribeResponse
	impl      any
	endpoint  sdk.Endpoint
	parser    sdk.RecordParser
	processor sdk.RecordProcessor
	loader    sdk.CustomDatasetLoader
	exporter  sdk.DataExporter
	gpu       sdk.GPUTelemetryCollector
	server    sdk.ServerMetricsCollector
	plot      sdk.Plot
	compare   sdk.ComparisonPlot // the plot, when it draws several runs

	initializer sdk.Initializer
	validator   sdk.Validator
	// lifecycle serializes Configure, Init and Describe: the first two
	// change the plugin's state, the last reports it, and gRPC serves calls
	// concurrently.
	lifecycle sync.Mutex
}

var _ pluginpb.PluginServer = (*Server)(nil)

// NewServer inspects impl for the categories it implements. It fails when
// impl implements none.
func NewServer(impl any, opts ...ServeOption) (*Server, error) {
	cfg := newServeConfig(opts)
	s := &Server{impl: impl, desc: &pluginpb.DescribeResponse{ApiVersion: cfg.apiVersion, Name: cfg.name,
		Version: cfg.version, Description: cfg.description}}
	if ep, ok := impl.(sdk.Endpoint); ok {
		s.endpoint = ep
		s.parser, _ = impl.(sdk.RecordParser)
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryEndpoint)
	}
	if l, ok := impl.(sdk.CustomDatasetLoader); ok {
		s.loader = l
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryCustomDataset)
	}
	if p, ok := impl.(sdk.RecordProcessor); ok {
		s.processor = p
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryRecordProcessor)
	}
	if e, ok := impl.(sdk.DataExporter); ok {
		s.exporter = e
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryDataExporter)
	}
	if g, ok := impl.(sdk.GPUTelemetryCollector); ok {
		s.gpu = g
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryGPUTelemetry)
	}
	if m, ok := impl.(sdk.ServerMetricsCollector); ok {
		s.server = m
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryServerMetrics)
	}
	if p, ok := impl.(sdk.Plot); ok {
		s.plot = p
		s.compare, _ = impl.(sdk.ComparisonPlot)
		s.desc.Categories = append(s.desc.Categories, sdk.CategoryPlot)
		s.desc.ComparisonPlot = s.compare != nil
	}
	if len(s.desc.Categories) == 0 {
		return nil, fmt.Errorf("%T implements no plugin category: want %s", impl, servedInterfaces())
	}
	s.initializer, _ = impl.(sdk.Initializer)
	s.validator, _ = impl.(sdk.Validator)
	return s, nil
}

// servedInterfaces names the interfaces of the categories gRPC plugins can
// serve, from the category descriptors.
func servedInterfaces() string {
	var names []string
	for _, c := range sdk.Categories {
		if c.Accepts(sdk.KindGRPC) {
			names = append(names, c.InterfaceName())
		}
	}
	return strings.Join(names, ", ")
}

// recoverPanic turns a panic in an implementation method into an Internal
// error naming the method. A warning and the stack go to stderr, which the
// host logs; the "[WARN]"/"[DEBUG]" prefixes are go-plugin's level
// convention, so the stack only shows in a debug log.
func recoverPanic(method string, err *error) {
	r := recover()
	if r == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[WARN] grpcplugin: recovered panic in %s: %v\n", method, r)
	for line := range strings.SplitSeq(strings.TrimRight(string(debug.Stack()), "\n"), "\n") {
		b.WriteString("[DEBUG] ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	_, _ = os.Stderr.WriteString(b.String())
	*err = status.Errorf(codes.Internal, "panic in %s: %v", method, r)
}

func implError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err // already a status (e.g. the impl chose a code)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	if errors.Is(err, context.Canceled) {
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}

func unimplemented(category string) error {
	return status.Errorf(codes.Unimplemented, "this plugin does not implement category %s", category)
}

// Describe reports the API version, identity, categories, endpoint
// metadata and declared metrics. Metadata and metrics are asked of the
// implementation on every call: the host describes the plugin again after
// Configure and Init, so both may depend on the plugin's settings.
func (s *Server) Describe(context.Context, *pluginpb.DescribeRequest) (resp *pluginpb.DescribeResponse, err error) {
	defer recoverPanic("Describe", &err)
	resp = &pluginpb.DescribeResponse{ApiVersion: s.desc.ApiVersion, Name: s.desc.Name, Version: s.desc.Version,
		Description: s.desc.Description, Categories: slices.Clone(s.desc.Categories), ComparisonPlot: s.desc.ComparisonPlot}
	s.lifecycle.Lock() // not while Configure or Init change what is described
	defer s.lifecycle.Unlock()
	if s.endpoint != nil {
		resp.Endpoint = pluginpb.FromEndpointMetadata(s.endpoint.Metadata())
	}
	if s.processor != nil {
		resp.Metrics = pluginpb.FromMetricSpecs(s.processor.Metrics())
	}
	return resp, nil
}

// Configure decodes one plugin entry's settings into the implementation's
// sdk.Configurable target with sdk.DecodeConfig (unknown keys refused). An
// implementation that is not Configurable accepts only empty settings.
// The host sends one Configure per manifest entry: an implementation
// serving several categories gets one per (category, name), each decoded
// into the same PluginConfig() target, so later keys override earlier
// ones. An implementation without Init in the protocol (no record
// processor) is validated (sdk.Validator) here.
func (s *Server) Configure(_ context.Context, req *pluginpb.ConfigureRequest) (resp *pluginpb.Empty, err error) {
	defer recoverPanic("Configure", &err)
	category, label := req.GetCategory(), req.GetCategory()+"."+req.GetName()
	if !slices.Contains(s.desc.Categories, category) {
		return nil, status.Errorf(codes.InvalidArgument, "this plugin does not implement category %q (it implements: %s)",
			category, strings.Join(s.desc.Categories, ", "))
	}
	s.lifecycle.Lock()
	defer s.lifecycle.Unlock()
	if err := configure(s.impl, label, req.GetConfigJson()); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if s.validator != nil && s.processor == nil {
		if err := s.validator.Validate(); err != nil {
			return nil, implError(err)
		}
	}
	return &pluginpb.Empty{}, nil
}

// FormatPayload implements the endpoint call.
func (s *Server) FormatPayload(_ context.Context, req *pluginpb.RequestInfo) (resp *pluginpb.FormatPayloadResponse, err error) {
	if s.endpoint == nil {
		return nil, unimplemented(sdk.CategoryEndpoint)
	}
	defer recoverPanic("FormatPayload", &err)
	info, err := pluginpb.ToRequestInfo(req)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "request info: %v", err)
	}
	payload, err := s.endpoint.FormatPayload(info)
	if err != nil {
		return nil, implError(err)
	}
	return &pluginpb.FormatPayloadResponse{Payload: payload}, nil
}

// ParseRecord parses a whole record: one ParseRecord call when the
// implementation offers it, else ParseResponse per unit with per-unit
// errors in unit_errors.
func (s *Server) ParseRecord(_ context.Context, req *pluginpb.ParseRecordRequest) (resp *pluginpb.ParseRecordResponse, err error) {
	if s.endpoint == nil {
		return nil, unimplemented(sdk.CategoryEndpoint)
	}
	units := req.GetUnits()
	in := make([]sdk.Response, len(units))
	for i, u := range units {
		in[i] = sdk.Response{PerfNs: u.GetPerfNs(), Event: u.GetEvent(), Data: u.GetData()}
	}
	// One backing array for every parsed message: one allocation, not one per unit.
	msgs := make([]pluginpb.ParsedResponse, len(in))
	resp = &pluginpb.ParseRecordResponse{Responses: make([]*pluginpb.ParsedResponse, len(in))}
	if s.parser != nil {
		defer recoverPanic("ParseRecord", &err)
		out, perr := s.parser.ParseRecord(in)
		if perr != nil {
			return nil, implError(perr)
		}
		if len(out) != len(in) {
			return nil, status.Errorf(codes.Internal, "ParseRecord returned %d parsed responses for %d units", len(out), len(in))
		}
		for i := range out {
			fillParsed(&msgs[i], out[i], in[i].PerfNs)
			resp.Responses[i] = &msgs[i]
		}
		return resp, nil
	}
	defer recoverPanic("ParseResponse", &err)
	for i := range in {
		p, perr := s.endpoint.ParseResponse(in[i].Data)
		if perr != nil {
			if resp.UnitErrors == nil {
				resp.UnitErrors = map[int32]string{}
			}
			resp.UnitErrors[int32(i)] = perr.Error()
			p = sdk.ParsedResponse{}
		}
		fillParsed(&msgs[i], p, in[i].PerfNs)
		resp.Responses[i] = &msgs[i]
	}
	return resp, nil
}

// fillParsed writes p into m; PerfNs always comes from the unit.
func fillParsed(m *pluginpb.ParsedResponse, p sdk.ParsedResponse, perfNs int64) {
	m.PerfNs, m.Text, m.Reasoning, m.Usage = perfNs, p.Text, p.Reasoning, pluginpb.FromUsage(p.Usage)
}

// InitRecordProcessor is the record processor's lifecycle step before the
// run: the implementation's sdk.Initializer (when it has one) gets the run
// info, then its sdk.Validator (when it has one) checks the result.
func (s *Server) InitRecordProcessor(ctx context.Context, req *pluginpb.RunInfo) (resp *pluginpb.Empty, err error) {
	if s.processor == nil {
		return nil, unimplemented(sdk.CategoryRecordProcessor)
	}
	defer recoverPanic("InitRecordProcessor", &err)
	s.lifecycle.Lock()
	defer s.lifecycle.Unlock()
	if s.initializer != nil {
		if err := s.initializer.Init(ctx, pluginpb.ToRunInfo(req)); err != nil {
			return nil, implError(err)
		}
	}
	if s.validator != nil {
		if err := s.validator.Validate(); err != nil {
			return nil, implError(err)
		}
	}
	return &pluginpb.Empty{}, nil
}

// ProcessRecord implements the record processor's Process.
func (s *Server) ProcessRecord(_ context.Context, req *pluginpb.ParsedRecord) (resp *pluginpb.ProcessRecordResponse, err error) {
	if s.processor == nil {
		return nil, unimplemented(sdk.CategoryRecordProcessor)
	}
	defer recoverPanic("ProcessRecord", &err)
	rm, err := s.processor.Process(pluginpb.ToParsedRecord(req))
	if err != nil {
		return nil, implError(err)
	}
	resp = &pluginpb.ProcessRecordResponse{}
	if rm != nil {
		resp.Values = pluginpb.FromMetricValues(rm.Values)
	}
	return resp, nil
}

// CanLoad implements the dataset loader's format detection.
func (s *Server) CanLoad(_ context.Context, req *pluginpb.CanLoadRequest) (resp *pluginpb.CanLoadResponse, err error) {
	if s.loader == nil {
		return nil, unimplemented(sdk.CategoryCustomDataset)
	}
	defer recoverPanic("CanLoad", &err)
	return &pluginpb.CanLoadResponse{Ok: s.loader.CanLoad(req.GetPath())}, nil
}

// LoadDataset implements the dataset loader's Load.
func (s *Server) LoadDataset(ctx context.Context, req *pluginpb.LoadDatasetRequest) (resp *pluginpb.LoadDatasetResponse, err error) {
	if s.loader == nil {
		return nil, unimplemented(sdk.CategoryCustomDataset)
	}
	defer recoverPanic("LoadDataset", &err)
	convs, err := s.loader.Load(ctx, req.GetPath(), pluginpb.ToDatasetOptions(req.GetOptions()))
	if err != nil {
		return nil, implError(err)
	}
	out, err := pluginpb.FromConversations(convs)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding conversations: %v", err)
	}
	return &pluginpb.LoadDatasetResponse{Conversations: out}, nil
}

// Export implements the data exporter.
func (s *Server) Export(ctx context.Context, req *pluginpb.ExportRequest) (resp *pluginpb.ExportResponse, err error) {
	if s.exporter == nil {
		return nil, unimplemented(sdk.CategoryDataExporter)
	}
	defer recoverPanic("Export", &err)
	ec, err := UnmarshalExportContext(req.GetExportContextJson())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "%v", err)
	}
	files, err := s.exporter.Export(ctx, ec)
	if err != nil {
		return nil, implError(err)
	}
	resp = &pluginpb.ExportResponse{Files: make([]*pluginpb.ExportedFile, len(files))}
	for i, f := range files {
		resp.Files[i] = &pluginpb.ExportedFile{Label: f.Label, Path: f.Path}
	}
	return resp, nil
}

// TelemetrySource implements the collectors' Source.
func (s *Server) TelemetrySource(context.Context, *pluginpb.Empty) (resp *pluginpb.TelemetrySourceResponse, err error) {
	defer recoverPanic("TelemetrySource", &err)
	switch {
	case s.gpu != nil:
		return &pluginpb.TelemetrySourceResponse{Source: s.gpu.Source()}, nil
	case s.server != nil:
		return &pluginpb.TelemetrySourceResponse{Source: s.server.Source()}, nil
	}
	return nil, unimplemented(sdk.CategoryGPUTelemetry + " or " + sdk.CategoryServerMetrics)
}

// SampleGPU implements the GPU telemetry collector's Sample.
func (s *Server) SampleGPU(ctx context.Context, _ *pluginpb.Empty) (resp *pluginpb.SampleGPUResponse, err error) {
	if s.gpu == nil {
		return nil, unimplemented(sdk.CategoryGPUTelemetry)
	}
	defer recoverPanic("SampleGPU", &err)
	gpus, err := s.gpu.Sample(ctx)
	if err != nil {
		return nil, implError(err)
	}
	return &pluginpb.SampleGPUResponse{Gpus: pluginpb.FromGPUReadings(gpus)}, nil
}

// ScrapeServerMetrics implements the server metrics collector's Scrape.
func (s *Server) ScrapeServerMetrics(ctx context.Context, _ *pluginpb.Empty) (resp *pluginpb.ScrapeServerMetricsResponse, err error) {
	if s.server == nil {
		return nil, unimplemented(sdk.CategoryServerMetrics)
	}
	defer recoverPanic("ScrapeServerMetrics", &err)
	sc, err := s.server.Scrape(ctx)
	if err != nil {
		return nil, implError(err)
	}
	return &pluginpb.ScrapeServerMetricsResponse{Body: sc.Body, ContentType: sc.ContentType}, nil
}
