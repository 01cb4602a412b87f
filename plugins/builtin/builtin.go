// Package builtin binds every built-in plugin implementation to its
// (category, name). plugins.yaml declares them; registry.Validate checks
// that the two agree.
package builtin

import (
	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/accumulator/metricresults"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/errorsummary"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/csvexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/inputsexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonlexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/completions"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/concurrency"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/hf"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/noneui"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/simpleui"
	"github.com/aiperf-go/aiperf/registry"
)

// Constructors returns the built-in implementations.
func Constructors() registry.Builtins {
	return registry.Builtins{
		sdk.CategoryEndpoint: {
			chat.Name:        func() any { return chat.New() },
			completions.Name: func() any { return completions.New() },
		},
		sdk.CategoryTransport: {
			"http": func() any { return transport.New(transport.Options{}) },
		},
		sdk.CategoryTimingStrategy: {
			"concurrency": func() any { return concurrency.New() },
		},
		sdk.CategoryDatasetComposer: {
			synthetic.Name: func() any { return synthetic.New() },
		},
		sdk.CategoryTokenizer: {
			tiktoken.Name: func() any { return tiktoken.New() },
			"hf":          func() any { return hf.New() },
		},
		sdk.CategoryRecordProcessor: {
			metricrecord.Name: func() any { return metricrecord.New() },
		},
		sdk.CategoryAccumulator: {
			metricresults.Name: func() any { return metricresults.New() },
		},
		sdk.CategoryDataExporter: {
			jsonexport.Name:   func() any { return jsonexport.New() },
			csvexport.Name:    func() any { return csvexport.New() },
			jsonlexport.Name:  func() any { return jsonlexport.New() },
			inputsexport.Name: func() any { return inputsexport.New() },
		},
		sdk.CategoryConsoleExporter: {
			metricstable.Name: func() any { return metricstable.New() },
			errorsummary.Name: func() any { return errorsummary.New() },
		},
		sdk.CategoryUI: {
			noneui.Name:   func() any { return noneui.New() },
			simpleui.Name: func() any { return simpleui.New() },
		},
	}
}
