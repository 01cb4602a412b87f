package main

import (
	aiperf "github.com/aiperf-go/aiperf"
	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/transport"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/accumulator/metricresults"
	"github.com/aiperf-go/aiperf/plugins/builtin/arrival"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/errorsummary"
	gpuconsole "github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/gputelemetry"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/httptrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/oslmismatch"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/powerefficiency"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/consoletext"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/csvexport"
	gpuexport "github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/inputsexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/jsonlexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/rawexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/servermetricsexport"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/timeslices"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/custom"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/bailiantrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/burstgpttrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/multiturn"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/randompool"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/singleturn"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/hfasr"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/hfconversation"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/hfinstruct"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/mmvu"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/mtbench"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/sharegpt"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/specbench"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/syntheticrankings"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chat"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/chatembeddings"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/completions"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/embeddings"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/hfgenerate"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/imagegen"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/messages"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/nimembeddings"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/rankings"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/responses"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/solidorag"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/template"
	"github.com/aiperf-go/aiperf/plugins/builtin/endpoint/videogen"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/dcgm"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/nvml"
	builtinplot "github.com/aiperf-go/aiperf/plugins/builtin/plot"
	"github.com/aiperf-go/aiperf/plugins/builtin/ramp"
	"github.com/aiperf-go/aiperf/plugins/builtin/recordprocessor/metricrecord"
	"github.com/aiperf-go/aiperf/plugins/builtin/sampler"
	"github.com/aiperf-go/aiperf/plugins/builtin/servermetrics/prometheus"
	"github.com/aiperf-go/aiperf/plugins/builtin/servicemanager/inprocess"
	localmanager "github.com/aiperf-go/aiperf/plugins/builtin/servicemanager/local"
	"github.com/aiperf-go/aiperf/plugins/builtin/timing"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/hf"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/dashboardui"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/noneui"
	"github.com/aiperf-go/aiperf/plugins/builtin/ui/simpleui"
	"github.com/aiperf-go/aiperf/plugins/builtin/urlselection"
	"github.com/aiperf-go/aiperf/registry"
)

// The distribution: this binary's built-in plugins, each bound to its
// category and name by a constructor typed by the category's interface. The
// core receives this list and never names a plugin itself; plugins.yaml
// declares the same set and TestDistributionMatchesManifest keeps the two
// equal.
func builtins() registry.Builtins {
	return registry.Builtins{
		registry.Provide(sdk.Endpoints, chat.Name, func() sdk.Endpoint { return chat.New() }),
		registry.Provide(sdk.Endpoints, completions.Name, func() sdk.Endpoint { return completions.New() }),
		registry.Provide(sdk.Endpoints, chatembeddings.Name, func() sdk.Endpoint { return chatembeddings.New() }),
		registry.Provide(sdk.Endpoints, embeddings.Name, func() sdk.Endpoint { return embeddings.New() }),
		registry.Provide(sdk.Endpoints, nimembeddings.Name, func() sdk.Endpoint { return nimembeddings.New() }),
		registry.Provide(sdk.Endpoints, rankings.NIMName, func() sdk.Endpoint { return rankings.NewNIM() }),
		registry.Provide(sdk.Endpoints, rankings.HFTEIName, func() sdk.Endpoint { return rankings.NewHFTEI() }),
		registry.Provide(sdk.Endpoints, rankings.CohereName, func() sdk.Endpoint { return rankings.NewCohere() }),
		registry.Provide(sdk.Endpoints, hfgenerate.Name, func() sdk.Endpoint { return hfgenerate.New() }),
		registry.Provide(sdk.Endpoints, imagegen.Name, func() sdk.Endpoint { return imagegen.New() }),
		registry.Provide(sdk.Endpoints, videogen.Name, func() sdk.Endpoint { return videogen.New() }),
		registry.Provide(sdk.Endpoints, solidorag.Name, func() sdk.Endpoint { return solidorag.New() }),
		registry.Provide(sdk.Endpoints, responses.Name, func() sdk.Endpoint { return responses.New() }),
		registry.Provide(sdk.Endpoints, messages.Name, func() sdk.Endpoint { return messages.New() }),
		registry.Provide(sdk.Endpoints, template.Name, func() sdk.Endpoint { return template.New() }),

		registry.Provide(sdk.Transports, transport.Name, func() sdk.Transport { return transport.New(transport.Options{}) }),

		registry.Provide(sdk.TimingStrategies, timing.Concurrency, func() sdk.TimingStrategy { return timing.NewConcurrency() }),
		registry.Provide(sdk.TimingStrategies, timing.RequestRate, func() sdk.TimingStrategy { return timing.NewRequestRate() }),
		registry.Provide(sdk.TimingStrategies, timing.FixedSchedule, func() sdk.TimingStrategy { return timing.NewFixedSchedule() }),
		registry.Provide(sdk.TimingStrategies, timing.UserCentricRate, func() sdk.TimingStrategy { return timing.NewUserCentric() }),

		registry.Provide(sdk.ArrivalPatterns, arrival.Poisson, func() sdk.ArrivalPattern { return arrival.NewPoisson() }),
		registry.Provide(sdk.ArrivalPatterns, arrival.Constant, func() sdk.ArrivalPattern { return arrival.NewConstant() }),
		registry.Provide(sdk.ArrivalPatterns, arrival.Gamma, func() sdk.ArrivalPattern { return arrival.NewGamma() }),
		registry.Provide(sdk.ArrivalPatterns, arrival.Burst, func() sdk.ArrivalPattern { return arrival.NewBurst() }),

		registry.Provide(sdk.Ramps, ramp.Linear, func() sdk.Ramp { return ramp.NewLinear() }),
		registry.Provide(sdk.Ramps, ramp.Exponential, func() sdk.Ramp { return ramp.NewExponential() }),
		registry.Provide(sdk.Ramps, ramp.Poisson, func() sdk.Ramp { return ramp.NewPoisson() }),

		registry.Provide(sdk.URLSelectionStrategies, urlselection.RoundRobin, func() sdk.URLSelectionStrategy { return urlselection.NewRoundRobin() }),

		registry.Provide(sdk.DatasetComposers, synthetic.Name, func() sdk.DatasetComposer { return synthetic.New() }),
		registry.Provide(sdk.DatasetComposers, custom.Name, func() sdk.DatasetComposer { return custom.New() }),
		registry.Provide(sdk.DatasetComposers, syntheticrankings.Name, func() sdk.DatasetComposer { return syntheticrankings.New() }),
		registry.Provide(sdk.DatasetComposers, public.Name, func() sdk.DatasetComposer { return public.New() }),

		registry.Provide(sdk.CustomDatasetLoaders, mooncaketrace.Name, func() sdk.CustomDatasetLoader { return mooncaketrace.New() }),
		registry.Provide(sdk.CustomDatasetLoaders, bailiantrace.Name, func() sdk.CustomDatasetLoader { return bailiantrace.New() }),
		registry.Provide(sdk.CustomDatasetLoaders, burstgpttrace.Name, func() sdk.CustomDatasetLoader { return burstgpttrace.New() }),
		registry.Provide(sdk.CustomDatasetLoaders, randompool.Name, func() sdk.CustomDatasetLoader { return randompool.New() }),
		registry.Provide(sdk.CustomDatasetLoaders, singleturn.Name, func() sdk.CustomDatasetLoader { return singleturn.New() }),
		registry.Provide(sdk.CustomDatasetLoaders, multiturn.Name, func() sdk.CustomDatasetLoader { return multiturn.New() }),

		registry.Provide(sdk.PublicDatasetLoaders, sharegpt.Name, func() sdk.PublicDatasetLoader { return sharegpt.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "aimo", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "mmstar", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "mmvu", func() sdk.PublicDatasetLoader { return mmvu.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "vision_arena", func() sdk.PublicDatasetLoader { return hfconversation.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "llava_onevision", func() sdk.PublicDatasetLoader { return hfconversation.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "aimo_aime", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "aimo_numina_cot", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "aimo_numina_1_5", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, specbench.Name, func() sdk.PublicDatasetLoader { return specbench.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "spec_al_gsm8k", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "spec_al_math500", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "spec_al_humaneval", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "spec_al_mbpp", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "spec_al_mtbench", func() sdk.PublicDatasetLoader { return mtbench.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "instruct_coder", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "blazedit_5k", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "blazedit_10k", func() sdk.PublicDatasetLoader { return hfinstruct.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "librispeech", func() sdk.PublicDatasetLoader { return hfasr.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "voxpopuli", func() sdk.PublicDatasetLoader { return hfasr.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "gigaspeech", func() sdk.PublicDatasetLoader { return hfasr.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "ami", func() sdk.PublicDatasetLoader { return hfasr.New() }),
		registry.Provide(sdk.PublicDatasetLoaders, "spgispeech", func() sdk.PublicDatasetLoader { return hfasr.New() }),

		registry.Provide(sdk.DatasetSamplers, sampler.Shuffle, func() sdk.DatasetSampler { return sampler.NewShuffle() }),
		registry.Provide(sdk.DatasetSamplers, sampler.Sequential, func() sdk.DatasetSampler { return sampler.NewSequential() }),
		registry.Provide(sdk.DatasetSamplers, sampler.Random, func() sdk.DatasetSampler { return sampler.NewRandom() }),

		registry.Provide(sdk.Tokenizers, tiktoken.Name, func() sdk.TokenizerLoader { return tiktoken.New() }),
		registry.Provide(sdk.Tokenizers, hf.Name, func() sdk.TokenizerLoader { return hf.New() }),

		registry.Provide(sdk.RecordProcessors, metricrecord.Name, func() sdk.RecordProcessor { return metricrecord.New() }),

		registry.Provide(sdk.Accumulators, metricresults.Name, func() sdk.Accumulator { return metricresults.New() }),

		registry.Provide(sdk.DataExporters, jsonexport.Name, func() sdk.DataExporter { return jsonexport.New() }),
		registry.Provide(sdk.DataExporters, csvexport.Name, func() sdk.DataExporter { return csvexport.New() }),
		registry.Provide(sdk.DataExporters, jsonlexport.Name, func() sdk.DataExporter { return jsonlexport.New() }),
		registry.Provide(sdk.DataExporters, rawexport.Name, func() sdk.DataExporter { return rawexport.New() }),
		registry.Provide(sdk.DataExporters, timeslices.Name, func() sdk.DataExporter { return timeslices.New() }),
		registry.Provide(sdk.DataExporters, inputsexport.Name, func() sdk.DataExporter { return inputsexport.New() }),
		registry.Provide(sdk.DataExporters, consoletext.Name, func() sdk.DataExporter { return consoletext.New() }),
		registry.Provide(sdk.DataExporters, servermetricsexport.Name, func() sdk.DataExporter { return servermetricsexport.New() }),
		registry.Provide(sdk.ServerMetricsCollectors, prometheus.Name, func() sdk.ServerMetricsCollector { return prometheus.New() }),

		registry.Provide(sdk.ConsoleExporters, httptrace.Name, func() sdk.ConsoleExporter { return httptrace.New() }),
		registry.Provide(sdk.ConsoleExporters, metricstable.Name, func() sdk.ConsoleExporter { return metricstable.New() }),
		registry.Provide(sdk.ConsoleExporters, errorsummary.Name, func() sdk.ConsoleExporter { return errorsummary.New() }),
		registry.Provide(sdk.ConsoleExporters, oslmismatch.Name, func() sdk.ConsoleExporter { return oslmismatch.New() }),

		// GPU telemetry (issue 12)
		registry.Provide(sdk.GPUTelemetryCollectors, dcgm.Name, func() sdk.GPUTelemetryCollector { return dcgm.New() }),
		registry.Provide(sdk.GPUTelemetryCollectors, nvml.Name, func() sdk.GPUTelemetryCollector { return nvml.New() }),
		registry.Provide(sdk.DataExporters, gpuexport.Name, func() sdk.DataExporter { return gpuexport.New() }),
		registry.Provide(sdk.ConsoleExporters, gpuconsole.Name, func() sdk.ConsoleExporter { return gpuconsole.New() }),
		registry.Provide(sdk.ConsoleExporters, powerefficiency.Name, func() sdk.ConsoleExporter { return powerefficiency.New() }),

		registry.Provide(sdk.ServiceManagers, inprocess.Name, func() sdk.ServiceManager { return inprocess.New() }),
		registry.Provide(sdk.ServiceManagers, localmanager.Name, func() sdk.ServiceManager { return localmanager.New() }),
		registry.Provide(sdk.ServiceManagers, "kubernetes", kubernetesManager), // kubernetes_on.go / kubernetes_off.go: build tag kubernetes
		registry.Provide(sdk.UIs, noneui.Name, func() sdk.UI { return noneui.New() }),
		registry.Provide(sdk.UIs, simpleui.Name, func() sdk.UI { return simpleui.New() }),
		registry.Provide(sdk.UIs, dashboardui.Name, func() sdk.UI { return dashboardui.New() }),

		registry.Provide(sdk.Plots, builtinplot.TTFTOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.TTFTOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.ITLOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.ITLOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.LatencyOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.LatencyOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.ThroughputOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.ThroughputOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.TTFTDistribution, func() sdk.Plot { return builtinplot.New(builtinplot.TTFTDistribution) }),
		registry.Provide(sdk.Plots, builtinplot.ITLDistribution, func() sdk.Plot { return builtinplot.New(builtinplot.ITLDistribution) }),
		registry.Provide(sdk.Plots, builtinplot.LatencyDistribution, func() sdk.Plot { return builtinplot.New(builtinplot.LatencyDistribution) }),
		registry.Provide(sdk.Plots, builtinplot.ISLvsOSL, func() sdk.Plot { return builtinplot.New(builtinplot.ISLvsOSL) }),
		registry.Provide(sdk.Plots, builtinplot.ParetoThroughputVsInteractivity, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.ParetoThroughputVsInteractivity) }),
		registry.Provide(sdk.Plots, builtinplot.ParetoThroughputVsLatency, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.ParetoThroughputVsLatency) }),
		registry.Provide(sdk.Plots, builtinplot.TTFTVsThroughput, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.TTFTVsThroughput) }),
		registry.Provide(sdk.Plots, builtinplot.TTFTVsLoad, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.TTFTVsLoad) }),
		registry.Provide(sdk.Plots, builtinplot.LatencyVsLoad, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.LatencyVsLoad) }),
		registry.Provide(sdk.Plots, builtinplot.ThroughputVsLoad, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.ThroughputVsLoad) }),
		registry.Provide(sdk.Plots, builtinplot.ParetoThroughputPerGPUVsLatency, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.ParetoThroughputPerGPUVsLatency) }),
		registry.Provide(sdk.Plots, builtinplot.ParetoThroughputPerGPUVsInteractivity, func() sdk.Plot { return builtinplot.NewComparison(builtinplot.ParetoThroughputPerGPUVsInteractivity) }),
		registry.Provide(sdk.Plots, builtinplot.TimeslicesTTFT, func() sdk.Plot { return builtinplot.New(builtinplot.TimeslicesTTFT) }),
		registry.Provide(sdk.Plots, builtinplot.TimeslicesITL, func() sdk.Plot { return builtinplot.New(builtinplot.TimeslicesITL) }),
		registry.Provide(sdk.Plots, builtinplot.TimeslicesThroughput, func() sdk.Plot { return builtinplot.New(builtinplot.TimeslicesThroughput) }),
		registry.Provide(sdk.Plots, builtinplot.TimeslicesLatency, func() sdk.Plot { return builtinplot.New(builtinplot.TimeslicesLatency) }),
		registry.Provide(sdk.Plots, builtinplot.GPUUtilizationThroughput, func() sdk.Plot { return builtinplot.New(builtinplot.GPUUtilizationThroughput) }),
		registry.Provide(sdk.Plots, builtinplot.GPUPowerOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.GPUPowerOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.GPUUtilizationOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.GPUUtilizationOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.GPUMemoryUsedOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.GPUMemoryUsedOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.GPUTemperatureOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.GPUTemperatureOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.ServerKVCacheUsageOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.ServerKVCacheUsageOverTime) }),
		registry.Provide(sdk.Plots, builtinplot.ServerRequestsOverTime, func() sdk.Plot { return builtinplot.New(builtinplot.ServerRequestsOverTime) }),
	}
}

// builtinManifest is the manifest declaring builtins().
func builtinManifest() []byte { return aiperf.BuiltinManifest }

// registryOptions are the registry inputs every command shares: the
// distribution, plus whatever the command adds.
func registryOptions(extra ...string) app.RegistryOptions {
	return app.RegistryOptions{Builtins: builtins(), Manifest: builtinManifest(), ExtraManifests: extra}
}

// embeddedRegistry is the registry of the built-ins alone (no discovery):
// --help's choices and the mock server's tokenizer.
func embeddedRegistry() (*registry.Registry, error) {
	m, err := registry.ParseManifest(builtinManifest(), app.EmbeddedManifestSource)
	if err != nil {
		return nil, err
	}
	return registry.New(builtins(), m)
}
