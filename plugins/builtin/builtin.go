// Package builtin binds every built-in plugin implementation to its
// (category, name). plugins.yaml declares them; registry.Validate checks
// that the two agree.
package builtin

import (
	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/accumulator/metricresults"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/burst"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/constant"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/gamma"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival/poisson"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/errorsummary"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/csvexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/inputsexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonlexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/custom"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/multiturn"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/singleturn"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/completions"
	"github.com/aiperf-go/aiperf/plugins/builtin/ramp/exponential"
	"github.com/aiperf-go/aiperf/plugins/builtin/ramp/linear"
	poissonramp "github.com/aiperf-go/aiperf/plugins/builtin/ramp/poisson"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/concurrency"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/fixedschedule"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/requestrate"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing/usercentric"
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
			concurrency.Name:   func() any { return concurrency.New() },
			requestrate.Name:   func() any { return requestrate.New() },
			fixedschedule.Name: func() any { return fixedschedule.New() },
			usercentric.Name:   func() any { return usercentric.New() },
		},
		sdk.CategoryArrivalPattern: {
			poisson.Name:  func() any { return poisson.New() },
			constant.Name: func() any { return constant.New() },
			gamma.Name:    func() any { return gamma.New() },
			burst.Name:    func() any { return burst.New() },
		},
		sdk.CategoryRamp: {
			linear.Name:      func() any { return linear.New() },
			exponential.Name: func() any { return exponential.New() },
			poissonramp.Name: func() any { return poissonramp.New() },
		},
		sdk.CategoryDatasetComposer: {
			synthetic.Name: func() any { return synthetic.New() },
			custom.Name: func() any {
				return custom.New(custom.Static(
					custom.NamedLoader{Name: mooncaketrace.Name, Loader: mooncaketrace.New()},
					custom.NamedLoader{Name: singleturn.Name, Loader: singleturn.New()},
					custom.NamedLoader{Name: multiturn.Name, Loader: multiturn.New()},
				))
			},
		},
		sdk.CategoryCustomDataset: {
			mooncaketrace.Name: func() any { return mooncaketrace.New() },
			singleturn.Name:    func() any { return singleturn.New() },
			multiturn.Name:     func() any { return multiturn.New() },
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
