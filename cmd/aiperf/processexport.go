package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/clock"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/version"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
)

// newProcessExportCmd is GenAI-Perf's process-export-files for our
// artifacts: the run directories of hosts that ran parts of one load at the
// same time, merged into one result recomputed from the union of their
// per-request records (docs/METRICS.md, "Merging runs from several hosts").
func newProcessExportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "process-export-files DIR...",
		Short: "Merge the exports of runs made at the same time on several hosts into one result",
		Long: `Merge the artifact directories of runs that ran parts of one load at the same
time on several hosts (each holding profile_export.jsonl and
profile_export_aiperf.json as 'aiperf profile' writes them) into one result.

Every statistic is recomputed from the union of the per-request records with
the code a single run uses, so counts, percentiles and the other statistics are
exact. Throughputs divide by the union's span: the earliest request start to the
latest request end across hosts, on the hosts' wall clocks (keep them in sync,
e.g. with NTP: a skew of s seconds changes the span by up to s).

The runs must share endpoint type, streaming and model; the merged
profile_export_aiperf.json/.csv and profile_export.jsonl (every host's lines,
verbatim, in argument order) are written to --artifact-dir.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			return processExportFiles(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), dirs, out)
		},
	}
	cmd.Flags().StringVar(&out, "artifact-dir", filepath.Join("artifacts", "merged"), "Directory the merged exports are written to (must not be one of the inputs)")
	return cmd
}

// mergeInput is one host's run directory and what it says about the run.
type mergeInput struct {
	dir string
	cfg sdk.PlotRunConfig
}

// processExportFiles merges dirs into out and prints the console tables.
func processExportFiles(ctx context.Context, stdout, stderr io.Writer, dirs []string, out string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	inputs, err := checkMergeInputs(dirs, out)
	if err != nil {
		return err
	}
	reg, err := plotRegistry(stderr, nil)
	if err != nil {
		return err
	}
	defer closeRegistry(stderr, reg)

	first := inputs[0].cfg
	x, err := reg.Instantiate(sdk.CategoryEndpoint, first.EndpointType)
	if err != nil {
		return fmt.Errorf("%s: endpoint type %q: %w", filepath.Join(inputs[0].dir, artifacts.SummaryFile), first.EndpointType, err)
	}
	ep, ok := x.(sdk.Endpoint)
	if !ok {
		return fmt.Errorf("endpoint type %q is not an endpoint plugin", first.EndpointType)
	}
	md := ep.Metadata()
	info := sdk.RunInfo{Endpoint: md, Streaming: first.Streaming && md.SupportsStreaming, Models: strings.Split(first.Model, ",")}
	cat, err := metrics.NewCatalog(pluginsView{reg: reg}.builtinMetrics(), info)
	if err != nil {
		return fmt.Errorf("metric catalog for endpoint type %s: %w", first.EndpointType, err)
	}
	acc, err := metrics.NewAccumulator(cat, info)
	if err != nil {
		return err
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create --artifact-dir %s: %w", out, err)
	}
	files := (&config.RunConfig{}).ExportFiles()
	span, cancelled, n, err := foldRecords(acc, cat, inputs, filepath.Join(out, files.RecordsJSONL))
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no profiling records in %s", strings.Join(dirs, ", "))
	}
	// The union's span is the phase: throughputs and benchmark_duration
	// divide by it, as a single run's divide by its phase.
	acc.SetPhaseStart(span.start)
	acc.SetPhaseEnd(span.end)
	res := acc.Summarize()
	res.StartTime, res.EndTime = time.Unix(0, span.start), time.Unix(0, span.end)
	res.WasCancelled = cancelled

	inputConfig, err := readInputConfig(inputs[0].dir)
	if err != nil {
		return err
	}
	ec := &sdk.ExportContext{
		ArtifactDir: out, Files: files, ExportLevel: "records", Results: res,
		Endpoint: md, Streaming: info.Streaming, AIPerfVersion: version.Version,
		BenchmarkID: strings.ReplaceAll(uuid.NewString(), "-", "")[:12],
		CLICommand:  "aiperf process-export-files " + strings.Join(dirs, " ") + " --artifact-dir " + out,
		InputConfig: inputConfig,
	}
	return exportMerged(ctx, stdout, reg, info, cat, ec, len(inputs), n)
}

// checkMergeInputs reads every directory's run config and refuses runs that
// cannot be one load: another endpoint type, streaming mode or model.
func checkMergeInputs(dirs []string, out string) ([]mergeInput, error) {
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("--artifact-dir %s: %w", out, err)
	}
	var inputs []mergeInput
	for _, dir := range dirs {
		if err := artifacts.CheckRunDir(dir); err != nil {
			return nil, err
		}
		if abs, err := filepath.Abs(dir); err == nil && abs == outAbs {
			return nil, fmt.Errorf("--artifact-dir %s is one of the inputs: the merge would overwrite %s while reading it", out, artifacts.RecordsFile)
		}
		cfg, err := artifacts.ReadRunConfig(dir)
		if err != nil {
			return nil, err
		}
		if cfg.EndpointType == "" {
			return nil, fmt.Errorf("%s: input_config names no endpoint type", filepath.Join(dir, artifacts.SummaryFile))
		}
		if len(inputs) > 0 {
			f := inputs[0]
			for _, d := range []struct {
				field string
				a, b  any
			}{
				{"endpoint type", f.cfg.EndpointType, cfg.EndpointType},
				{"streaming", f.cfg.Streaming, cfg.Streaming},
				{"model", f.cfg.Model, cfg.Model},
			} {
				if d.a != d.b {
					return nil, fmt.Errorf("cannot merge runs of different %s: %s has %v, %s has %v", d.field, f.dir, d.a, dir, d.b)
				}
			}
		}
		inputs = append(inputs, mergeInput{dir: dir, cfg: cfg})
	}
	return inputs, nil
}

// mergeSpan is the union's span over the profiling records (epoch ns).
type mergeSpan struct{ start, end int64 }

// exportLine is the part of a profile_export.jsonl line the merge reads.
type exportLine struct {
	Metadata sdk.RecordMetadata         `json:"metadata"`
	Metrics  map[string]json.RawMessage `json:"metrics"`
	Error    *sdk.ErrorDetails          `json:"error"`
}

// foldRecords streams every input's records into acc and copies their lines
// verbatim to jsonlOut. It returns the profiling records' span, whether any
// host's run was cancelled, and how many profiling records it folded.
func foldRecords(acc *metrics.Accumulator, cat *metrics.Catalog, inputs []mergeInput, jsonlOut string) (mergeSpan, bool, int, error) {
	span := mergeSpan{start: math.MaxInt64, end: math.MinInt64}
	f, err := os.Create(jsonlOut)
	if err != nil {
		return span, false, 0, fmt.Errorf("create %s: %w", jsonlOut, err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var cancelled bool
	n := 0
	for _, in := range inputs {
		c, err := summaryCancelled(in.dir)
		if err != nil {
			f.Close()
			return span, false, 0, err
		}
		cancelled = cancelled || c
		k, err := foldFile(acc, cat, filepath.Join(in.dir, artifacts.RecordsFile), w, &span)
		if err != nil {
			f.Close()
			return span, false, 0, err
		}
		n += k
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return span, false, 0, fmt.Errorf("write %s: %w", jsonlOut, err)
	}
	if err := f.Close(); err != nil {
		return span, false, 0, fmt.Errorf("write %s: %w", jsonlOut, err)
	}
	return span, cancelled, n, nil
}

func foldFile(acc *metrics.Accumulator, cat *metrics.Catalog, path string, w io.Writer, span *mergeSpan) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	n := 0
	err = artifacts.ScanJSONL(f, path, func(b []byte) error {
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		var l exportLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		if l.Metadata.BenchmarkPhase == sdk.PhaseWarmup {
			return nil // warmup records never reach the profiling results
		}
		rm, err := recordFromLine(&l, cat)
		if err != nil {
			return err
		}
		md := &l.Metadata
		span.start = min(span.start, md.RequestStartNs)
		span.end = max(span.end, md.RequestEndNs, md.RequestStartNs)
		acc.Add(rm)
		n++
		return nil
	})
	return n, err
}

// recordFromLine rebuilds what the accumulator reads of a processed record
// from its export line: the timestamps back on this process's monotonic
// clock (clock.PerfNs undoes the export's clock.WallNs) and every value
// back in its metric's unit (the export writes display units).
func recordFromLine(l *exportLine, cat *metrics.Catalog) (*sdk.RecordMetrics, error) {
	md := &l.Metadata
	perf := func(p *int64) int64 {
		if p == nil || *p == 0 {
			return 0
		}
		return clock.PerfNs(*p)
	}
	rec := &sdk.RequestRecord{
		ConversationID: md.ConversationID, TurnIndex: md.TurnIndex, SessionNum: md.SessionNum,
		XRequestID: md.XRequestID, XCorrelationID: md.XCorrelationID, Phase: sdk.PhaseProfiling, WorkerID: md.WorkerID,
		CreditIssuedNs: perf(md.CreditIssuedNs), TimestampNs: md.RequestStartNs,
		StartPerfNs: clock.PerfNs(md.RequestStartNs), AckPerfNs: perf(md.RequestAckNs), EndPerfNs: perf(&md.RequestEndNs),
		Error: l.Error, WasCancelled: md.WasCancelled, CancellationTimeNs: perf(md.CancellationTimeNs),
	}
	values := make(map[string]sdk.MetricValue, len(l.Metrics))
	for tag, raw := range l.Metrics {
		var m struct {
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("metric %s: %w", tag, err)
		}
		mul := 1.0
		if def, ok := cat.Lookup(tag); ok {
			mul = def.FromDisplay(1)
		}
		var one float64
		if err := json.Unmarshal(m.Value, &one); err == nil {
			values[tag] = sdk.MetricValue{Scalar: one * mul}
			continue
		}
		var list []float64
		if err := json.Unmarshal(m.Value, &list); err != nil {
			return nil, fmt.Errorf("metric %s: value %s is neither a number nor a list of numbers", tag, m.Value)
		}
		for i := range list {
			list[i] *= mul
		}
		values[tag] = sdk.MetricValue{IsList: true, List: list}
	}
	return &sdk.RecordMetrics{Record: rec, Values: values}, nil
}

// summaryCancelled reads was_cancelled from dir's summary.
func summaryCancelled(dir string) (bool, error) {
	path := filepath.Join(dir, artifacts.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	var doc struct {
		WasCancelled bool `json:"was_cancelled"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return false, fmt.Errorf("parse %s: %w", path, err)
	}
	return doc.WasCancelled, nil
}

// readInputConfig is the first input's input_config, numbers kept as
// written (json.Number), for the merged summary.
func readInputConfig(dir string) (map[string]any, error) {
	path := filepath.Join(dir, artifacts.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc struct {
		InputConfig map[string]any `json:"input_config"`
	}
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return doc.InputConfig, nil
}

// mergeExporters and mergeConsoles are the exporters the merged result goes
// through: the summary files (the records file is the inputs' lines) and
// the tables a run prints.
var (
	mergeExporters = []string{"json", "csv"}
	mergeConsoles  = []string{"metrics_table", "error_summary"}
)

// exportMerged writes the merged summary through the built-in exporters and
// prints the console tables and a footer.
func exportMerged(ctx context.Context, stdout io.Writer, reg *registry.Registry, info sdk.RunInfo, cat *metrics.Catalog, ec *sdk.ExportContext, hosts, records int) error {
	host := app.NewPluginHost(reg, &app.Settings{})
	host.SetRun(info)
	defer host.Close()
	specs := cat.Specs()
	tell := func(id string, v any) error {
		if ma, ok := v.(sdk.MetricsAware); ok {
			if err := ma.SetMetrics(specs); err != nil {
				return fmt.Errorf("plugin %s: %w", id, err)
			}
		}
		return nil
	}
	var errs []error
	var exported []sdk.ExportedFile
	for _, name := range mergeExporters {
		ex, err := app.Use(ctx, host, sdk.DataExporters, name, nil, "")
		if err == nil {
			err = tell("data_exporter."+name, ex)
		}
		if err != nil {
			return err
		}
		f, err := ex.Export(ctx, ec)
		if err != nil {
			errs = append(errs, fmt.Errorf("plugin data_exporter.%s: export: %w", name, err))
			continue
		}
		exported = append(exported, f...)
	}
	for _, name := range mergeConsoles {
		c, err := app.Use(ctx, host, sdk.ConsoleExporters, name, nil, "")
		if err == nil {
			err = tell("console_exporter."+name, c)
		}
		if err != nil {
			return err
		}
		if err := c.Render(ctx, stdout, ec); err != nil {
			errs = append(errs, fmt.Errorf("plugin console_exporter.%s: render: %w", name, err))
		}
	}
	fmt.Fprintf(stdout, "\nMerged %d runs (%d profiling records)\n", hosts, records)
	fmt.Fprintf(stdout, "Benchmark Duration: %.2f sec (earliest request start to latest request end across runs)\n", ec.Results.BenchmarkDurationS)
	for _, f := range exported {
		fmt.Fprintf(stdout, "%s: %s\n", f.Label, f.Path)
	}
	fmt.Fprintf(stdout, "JSONL Export: %s\n", filepath.Join(ec.ArtifactDir, ec.Files.RecordsJSONL))
	return errors.Join(errs...)
}
