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
	modes := []bool{false}
	if md.SupportsStreaming {
		modes = append(modes, true)
	}
	for _, streaming := range modes {
		label := "Metrics"
		if md.SupportsStreaming {
			label = map[bool]string{false: "Metrics", true: "+ streaming"}[streaming]
		}
		line(label, strings.Join(v.applicable(md, streaming, !streaming), ", "))
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

// applicable lists the record metrics of the built-in record processors
// that apply to a run of this endpoint; with all false, only those a
// streaming run adds to a non-streaming one.
func (v pluginsView) applicable(md sdk.EndpointMetadata, streaming, all bool) []string {
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
	applies := func(streaming bool) map[string]bool {
		cat, err := metrics.NewCatalog(decl, sdk.RunInfo{Endpoint: md, Streaming: streaming})
		out := map[string]bool{}
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
	now := applies(streaming)
	var base map[string]bool
	if !all {
		base = applies(false)
	}
	var tags []string
	for _, d := range decl {
		for _, s := range d.Specs {
			if now[s.Tag] && !base[s.Tag] {
				tags = append(tags, s.Tag)
			}
		}
	}
	if len(tags) == 0 {
		return []string{"none"}
	}
	return tags
}
