package registry

import (
	"context"
	"io"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// fake returns a do-nothing value implementing category's interface, so the
// registry's tests can build a complete distribution without the built-ins.
func fake(category string) any {
	switch category {
	case sdk.CategoryEndpoint:
		return &fakeChat{id: category}
	case sdk.CategoryTransport:
		return fakeTransport{}
	case sdk.CategoryTimingStrategy:
		return fakeTiming{}
	case sdk.CategoryArrivalPattern:
		return fakeArrival{}
	case sdk.CategoryRamp:
		return fakeRamp{}
	case sdk.CategoryURLSelection:
		return fakeURLs{}
	case sdk.CategoryDatasetComposer:
		return fakeComposer{}
	case sdk.CategoryCustomDataset:
		return fakeLoaderPlugin{}
	case sdk.CategoryDatasetSampler:
		return fakeSampler{}
	case sdk.CategoryPublicDataset:
		return fakePublicLoader{}
	case sdk.CategoryGPUTelemetry:
		return fakeGPUCollector{}
	case sdk.CategoryServerMetrics:
		return fakeServerMetrics{}
	case sdk.CategoryTokenizer:
		return fakeTokenizers{}
	case sdk.CategoryRecordProcessor:
		return fakeProcessor{}
	case sdk.CategoryAccumulator:
		return fakeAccumulator{}
	case sdk.CategoryDataExporter:
		return fakeExporter{}
	case sdk.CategoryConsoleExporter:
		return fakeConsole{}
	case sdk.CategoryUI:
		return fakeUI{}
	case sdk.CategoryPlot:
		return fakePlot{}
	case sdk.CategoryServiceManager:
		return fakeServiceManager{}
	}
	panic("no fake for category " + category)
}

// raw binds an untyped constructor, for tests that need a value the typed
// Provide would refuse at compile time.
func raw(category, name string, build func() any) Factory {
	return Factory{Category: category, Name: name, build: build}
}

type fakeChat struct{ id string }

func (f *fakeChat) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: "/v1/" + f.id}
}
func (*fakeChat) FormatPayload(sdk.RequestInfo) ([]byte, error)    { return []byte("{}"), nil }
func (*fakeChat) ParseResponse([]byte) (sdk.ParsedResponse, error) { return sdk.ParsedResponse{}, nil }

type fakeTransport struct{}

func (fakeTransport) Send(context.Context, *sdk.TransportRequest, *sdk.RequestRecord) {}

type fakeTiming struct{}

func (fakeTiming) Run(context.Context, sdk.PhasePlan, sdk.CreditSender) error { return nil }

type fakeArrival struct{}

func (fakeArrival) NextGap(float64) time.Duration { return time.Second }

type fakeRamp struct{}

func (fakeRamp) Value(_, _ time.Duration, _, target float64) float64 { return target }

type fakeURLs struct{}

func (fakeURLs) Pick(credit, urls int) int { return credit % urls }

type fakeComposer struct{}

func (fakeComposer) Compose(context.Context, sdk.DatasetOptions) ([]sdk.Conversation, error) {
	return nil, nil
}

type fakeLoaderPlugin struct{}

func (fakeLoaderPlugin) CanLoad(string) bool { return false }
func (fakeLoaderPlugin) Load(context.Context, string, sdk.DatasetOptions) ([]sdk.Conversation, error) {
	return nil, nil
}

type fakeSampler struct{}

type fakeGPUCollector struct{}

func (fakeGPUCollector) Source() string                                   { return "fake" }
func (fakeGPUCollector) Sample(context.Context) ([]sdk.GPUReading, error) { return nil, nil }

type fakeServerMetrics struct{}

func (fakeServerMetrics) Source() string { return "fake" }
func (fakeServerMetrics) Scrape(context.Context) (sdk.ServerMetricsScrape, error) {
	return sdk.ServerMetricsScrape{}, nil
}

type fakePublicLoader struct{}

func (fakePublicLoader) LoadPublic(context.Context, sdk.DatasetOptions) ([]sdk.Conversation, error) {
	return nil, nil
}

func (fakeSampler) Order(n int, _ int64) func(int) int { return func(i int) int { return i % n } }

type fakeTokenizers struct{}

func (fakeTokenizers) Load(context.Context, sdk.TokenizerSource) (sdk.Tokenizer, error) {
	return nil, nil
}

type fakeProcessor struct{}

func (fakeProcessor) Metrics() []sdk.MetricSpec                             { return nil }
func (fakeProcessor) Process(*sdk.ParsedRecord) (*sdk.RecordMetrics, error) { return nil, nil }

type fakeAccumulator struct{}

func (fakeAccumulator) Add(*sdk.RecordMetrics)           {}
func (fakeAccumulator) Summarize() (*sdk.Results, error) { return &sdk.Results{}, nil }

type fakeExporter struct{}

func (fakeExporter) Export(context.Context, *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	return nil, nil
}

type fakeConsole struct{}

func (fakeConsole) Render(context.Context, io.Writer, *sdk.ExportContext) error { return nil }

type fakeUI struct{}

func (fakeUI) Start(context.Context, sdk.ProgressSource) {}
func (fakeUI) Stop()                                     {}

type fakePlot struct{}

func (fakePlot) Applies(*sdk.PlotRun) bool                             { return false }
func (fakePlot) Render(*sdk.PlotRun, sdk.PlotOptions, io.Writer) error { return nil }

type fakeServiceManager struct{}

func (fakeServiceManager) RunShards(context.Context, sdk.ShardJob) ([]sdk.ShardReport, error) {
	return nil, nil
}
