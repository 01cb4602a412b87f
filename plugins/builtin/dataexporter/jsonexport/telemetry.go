package jsonexport

import (
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/jsonenc"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataexporter/gputelemetry"
)

// appendTelemetry writes AIPerf's telemetry_data block of a run with GPU
// telemetry (TelemetryExportData): summary, endpoints by display name, each
// GPU as gpu_<index> with its metrics in AIPerf's field order, and an empty
// error_summary. depth is the member's nesting level (1 at the top).
func appendTelemetry(b []byte, s *gputelemetry.Summary, depth int) []byte {
	in := func(d int) string { return "\n" + strings.Repeat(indent, d) }
	list := func(b []byte, xs []string, d int) []byte {
		if len(xs) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, x := range xs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in(d+1)...)
			b = jsonenc.AppendString(b, x)
		}
		return append(b, in(d)+"]"...)
	}
	d1, d2 := depth+1, depth+2
	b = append(b, "{"+in(d1)+`"summary": {`+in(d2)+`"endpoints_configured": `...)
	b = list(b, s.Configured, d2)
	b = append(b, ","+in(d2)+`"endpoints_successful": `...)
	b = list(b, s.Successful, d2)
	if !s.Start.IsZero() {
		b = append(b, ","+in(d2)+`"start_time": `...)
		b = jsonenc.AppendString(b, isoTime(s.Start))
	}
	if !s.End.IsZero() {
		b = append(b, ","+in(d2)+`"end_time": `...)
		b = jsonenc.AppendString(b, isoTime(s.End))
	}
	b = append(b, in(d1)+"},"+in(d1)+`"endpoints": `...)
	if len(s.Endpoints) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, '{')
		for i, ep := range s.Endpoints {
			if i > 0 {
				b = append(b, ',')
			}
			d3, d4 := depth+3, depth+4
			b = append(b, in(d2)...)
			b = jsonenc.AppendString(b, ep.Display)
			b = append(b, ": {"+in(d3)+`"gpus": `...)
			if len(ep.GPUs) == 0 {
				b = append(b, "{}"...)
			} else {
				b = append(b, '{')
				for j := range ep.GPUs {
					if j > 0 {
						b = append(b, ',')
					}
					b = appendGPU(b, &ep.GPUs[j], d4)
				}
				b = append(b, in(d3)+"}"...)
			}
			b = append(b, in(d2)+"}"...)
		}
		b = append(b, in(d1)+"}"...)
	}
	return append(b, ","+in(d1)+`"error_summary": []`+in(depth)+"}"...)
}

func appendGPU(b []byte, g *gputelemetry.GPU, d int) []byte {
	nl := "\n" + strings.Repeat(indent, d)
	nl1 := nl + indent
	b = append(b, nl+`"gpu_`...)
	b = strconv.AppendInt(b, int64(g.Index), 10)
	b = append(b, `": {`+nl1+`"gpu_index": `...)
	b = strconv.AppendInt(b, int64(g.Index), 10)
	b = append(b, ","+nl1+`"gpu_name": `...)
	b = jsonenc.AppendString(b, g.Name)
	b = append(b, ","+nl1+`"gpu_uuid": `...)
	b = jsonenc.AppendString(b, g.UUID)
	b = append(b, ","+nl1+`"platform": `...)
	b = jsonenc.AppendString(b, g.Platform)
	b = append(b, ","+nl1+`"hostname": `...)
	if g.Host == "" {
		b = append(b, "null"...)
	} else {
		b = jsonenc.AppendString(b, g.Host)
	}
	b = append(b, ","+nl1+`"metrics": `...)
	if len(g.Metrics) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, '{')
		for i := range g.Metrics {
			if i > 0 {
				b = append(b, ',')
			}
			m := &g.Metrics[i]
			b = append(b, nl1+indent+`"`+m.Field.Name+`": `...)
			b = appendMetric(b, &m.Result, d+2)
		}
		b = append(b, nl1+"}"...)
	}
	return append(b, nl+"}"...)
}

// telemetrySummary is the GPU summary of the run, nil without telemetry.
func telemetrySummary(ec *sdk.ExportContext) *gputelemetry.Summary {
	return gputelemetry.Summarize(ec)
}

// telemetryEnergy is AIPerf's GPU energy-efficiency results of the run,
// nil without GPU telemetry.
func telemetryEnergy(ec *sdk.ExportContext) []sdk.MetricResult {
	return gputelemetry.EnergyMetrics(ec)
}
