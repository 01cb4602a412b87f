package main

import (
	"strings"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
)

// endpointDetails prints what a built-in endpoint is: its metadata (paths,
// streaming, what it takes and makes) and the record metrics that apply to
// its runs, streaming and not, with the built-in record processors. External
// endpoints describe themselves only when loaded (plugins --validate).
func (v pluginsView) endpointDetails(e *registry.Entry, line func(label, value string)) {
	if e.Kind != registry.KindBuiltin {
		return
	}
	x, err := v.reg.Instantiate(sdk.CategoryEndpoint, e.Name)
	ep, ok := x.(sdk.Endpoint)
	if err != nil || !ok {
		return
	}
	md := ep.Metadata()
	path := md.EndpointPath
	if path == "" {
		path = "(none: posts to --url, or --custom-endpoint)"
	}
	line("API path", path)
	line("Streaming", streamingLine(md))
	line("Takes", switches(map[string]bool{"text (tokenized)": md.TokenizesInput, "images": md.SupportsImages,
		"audio": md.SupportsAudio, "video": md.SupportsVideos}))
	line("Makes", switches(map[string]bool{"tokens": md.ProducesTokens, "images": md.ProducesImages,
		"video": md.ProducesVideos}))
	line("Transport", switches(map[string]bool{"multipart form": md.RequiresFormData, "polled job": md.RequiresPolling}))
	line("Title", md.MetricsTitle)
	decl := v.builtinMetrics()
	plain := applicable(decl, md, false)
	line("Metrics", tagList(decl, plain, nil))
	if md.SupportsStreaming {
		line("+ streaming", tagList(decl, applicable(decl, md, true), plain))
	}
}

func streamingLine(md sdk.EndpointMetadata) string {
	if !md.SupportsStreaming {
		return "no"
	}
	if md.StreamingPath != "" && md.StreamingPath != md.EndpointPath {
		return "yes (" + md.StreamingPath + ")"
	}
	return "yes"
}

// switches lists the names whose switch is on, in a stable order.
func switches(on map[string]bool) string {
	var out []string
	for _, name := range []string{"text (tokenized)", "tokens", "images", "audio", "video", "multipart form", "polled job"} {
		if on[name] {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// builtinMetrics are the metrics the built-in record processors declare.
func (v pluginsView) builtinMetrics() []metrics.Declared {
	var decl []metrics.Declared
	for _, name := range v.reg.Names(sdk.CategoryRecordProcessor) {
		e, err := v.reg.Resolve(sdk.CategoryRecordProcessor, name)
		if err != nil || e.Kind != registry.KindBuiltin {
			continue
		}
		if x, err := v.reg.Instantiate(sdk.CategoryRecordProcessor, name); err == nil {
			if p, ok := x.(sdk.RecordProcessor); ok {
				decl = append(decl, metrics.Declared{Plugin: name, Specs: p.Metrics()})
			}
		}
	}
	return decl
}

// applicable is the set of declared metrics a run of this endpoint reports
// (internal, experimental and HTTP trace metrics left out: every run has
// the last).
func applicable(decl []metrics.Declared, md sdk.EndpointMetadata, streaming bool) map[string]bool {
	out := map[string]bool{}
	cat, err := metrics.NewCatalog(decl, sdk.RunInfo{Endpoint: md, Streaming: streaming})
	if err != nil {
		return out
	}
	for _, s := range cat.Specs() {
		if cat.Applies(s.Tag) && !s.Flags.HasAny(sdk.FlagInternal|sdk.FlagExperimental|sdk.FlagHTTPTraceOnly) {
			out[s.Tag] = true
		}
	}
	return out
}

// tagList lists, in declaration order, the tags in set and not in except.
func tagList(decl []metrics.Declared, set, except map[string]bool) string {
	var tags []string
	for _, d := range decl {
		for _, s := range d.Specs {
			if set[s.Tag] && !except[s.Tag] {
				tags = append(tags, s.Tag)
			}
		}
	}
	if len(tags) == 0 {
		return "none"
	}
	return strings.Join(tags, ", ")
}
