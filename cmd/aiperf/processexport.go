package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/artifacts"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/metrics"
	"github.com/aiperf-go/aiperf/core/shardresult"
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
		// merge: the name a sharded run's docs use for the exact merge of
		// its shards' directories (--exact keeps them).
		Aliases: []string{"merge"},
		Args:    cobra.MinimumNArgs(1),
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
	cmdline := "aiperf process-export-files " + strings.Join(dirs, " ") + " --artifact-dir " + out
	_, err := mergeRunDirs(ctx, stdout, stderr, dirs, out, cmdline, nil)
	return err
}

// mergeRunDirs is the exact merge: every record of dirs folded into one
// accumulator, the summary files and the union's records written to out.
// sharding is the merged sharded run's block (nil for process-export-files).
func mergeRunDirs(ctx context.Context, stdout, stderr io.Writer, dirs []string, out, cmdline string, sharding *sdk.ShardingInfo) (*sdk.Results, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	inputs, err := checkMergeInputs(dirs, out)
	if err != nil {
		return nil, err
	}
	reg, mc, err := openMergeCatalog(stderr, inputs[0])
	if err != nil {
		return nil, err
	}
	defer closeRegistry(stderr, reg)
	acc, err := metrics.NewAccumulator(mc.cat, mc.info)
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create --artifact-dir %s: %w", out, err)
	}
	files := (&config.RunConfig{}).ExportFiles()
	span, cancelled, n, err := foldRecords(acc, mc.cat, inputs, filepath.Join(out, files.RecordsJSONL))
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("no profiling records in %s", strings.Join(dirs, ", "))
	}
	// The union's span is the phase: throughputs and benchmark_duration
	// divide by it, as a single run's divide by its phase.
	acc.SetPhaseStart(span.Start)
	acc.SetPhaseEnd(span.End)
	res := acc.Summarize()
	if err := acc.Err(); err != nil {
		return nil, err
	}
	res.StartTime, res.EndTime = time.Unix(0, span.Start), time.Unix(0, span.End)
	res.WasCancelled = cancelled

	inputConfig, err := readInputConfig(inputs[0].dir)
	if err != nil {
		return nil, err
	}
	ec := &sdk.ExportContext{
		ArtifactDir: out, Files: files, ExportLevel: "records", Results: res,
		Endpoint: mc.md, Streaming: mc.info.Streaming, AIPerfVersion: version.Version,
		BenchmarkID: strings.ReplaceAll(uuid.NewString(), "-", "")[:12],
		CLICommand:  cmdline, InputConfig: inputConfig, Sharding: sharding,
	}
	return res, exportMerged(ctx, stdout, reg, mc.info, mc.cat, ec, len(inputs), n)
}

// runCatalog is what a merge knows of the runs from their first summary:
// the endpoint, the run info (streaming, models, goodput SLOs) and the
// metric catalog the records fold into.
type runCatalog struct {
	md   sdk.EndpointMetadata
	info sdk.RunInfo
	cat  *metrics.Catalog
}

// mergeCatalog builds the run catalog of the run in dir from reg's
// built-in metrics, as the run itself did: the same endpoint, streaming,
// models and goodput SLOs (input_config.slos), so good_request_count and
// goodput come out as the run's.
// openMergeCatalog loads the registry a merge exports through and the
// catalog of the run in dir; the caller closes the registry.
func openMergeCatalog(stderr io.Writer, in mergeInput) (*registry.Registry, runCatalog, error) {
	reg, err := plotRegistry(stderr, nil)
	if err != nil {
		return nil, runCatalog{}, err
	}
	mc, err := mergeCatalog(reg, in)
	if err != nil {
		closeRegistry(stderr, reg)
		return nil, runCatalog{}, err
	}
	return reg, mc, nil
}

func mergeCatalog(reg *registry.Registry, in mergeInput) (runCatalog, error) {
	path := filepath.Join(in.dir, artifacts.SummaryFile)
	cfg := in.cfg
	x, err := reg.Instantiate(sdk.CategoryEndpoint, cfg.EndpointType)
	if err != nil {
		return runCatalog{}, fmt.Errorf("%s: endpoint type %q: %w", path, cfg.EndpointType, err)
	}
	ep, ok := x.(sdk.Endpoint)
	if !ok {
		return runCatalog{}, fmt.Errorf("endpoint type %q is not an endpoint plugin", cfg.EndpointType)
	}
	summary, err := os.ReadFile(path)
	if err != nil {
		return runCatalog{}, fmt.Errorf("read %s: %w", path, err)
	}
	goodput, err := shardresult.SummaryGoodput(summary, path)
	if err != nil {
		return runCatalog{}, err
	}
	md := ep.Metadata()
	info := sdk.RunInfo{Endpoint: md, Streaming: cfg.Streaming && md.SupportsStreaming, Models: strings.Split(cfg.Model, ","), Goodput: goodput}
	cat, err := metrics.NewCatalog(pluginsView{reg: reg}.builtinMetrics(), info)
	if err != nil {
		return runCatalog{}, fmt.Errorf("metric catalog for endpoint type %s: %w", cfg.EndpointType, err)
	}
	return runCatalog{md: md, info: info, cat: cat}, nil
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
		if inputs, err = addMergeInput(inputs, dir); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// readMergeInput reads the run config of the run in dir (its summary).
func readMergeInput(dir string) (mergeInput, error) {
	cfg, err := artifacts.ReadRunConfig(dir)
	if err != nil {
		return mergeInput{}, err
	}
	if cfg.EndpointType == "" {
		return mergeInput{}, fmt.Errorf("%s: input_config names no endpoint type", filepath.Join(dir, artifacts.SummaryFile))
	}
	return mergeInput{dir: dir, cfg: cfg}, nil
}

// addMergeInput appends the run in dir to inputs, refusing a run that
// cannot be one load with the first.
func addMergeInput(inputs []mergeInput, dir string) ([]mergeInput, error) {
	in, err := readMergeInput(dir)
	if err != nil {
		return inputs, err
	}
	if len(inputs) > 0 {
		if err := sameLoad(inputs[0], in); err != nil {
			return inputs, err
		}
	}
	return append(inputs, in), nil
}

// sameLoad refuses to merge runs that cannot be one load: another endpoint
// type, streaming mode or model.
func sameLoad(f, in mergeInput) error {
	for _, d := range []struct {
		field string
		a, b  any
	}{
		{"endpoint type", f.cfg.EndpointType, in.cfg.EndpointType},
		{"streaming", f.cfg.Streaming, in.cfg.Streaming},
		{"model", f.cfg.Model, in.cfg.Model},
	} {
		if d.a != d.b {
			return fmt.Errorf("cannot merge runs of different %s: %s has %v, %s has %v", d.field, f.dir, d.a, in.dir, d.b)
		}
	}
	return nil
}

// foldRecords streams every input's records into acc and copies their lines
// verbatim to jsonlOut. It returns the profiling records' span, whether any
// host's run was cancelled, and how many profiling records it folded.
func foldRecords(acc *metrics.Accumulator, cat *metrics.Catalog, inputs []mergeInput, jsonlOut string) (shardresult.Span, bool, int, error) {
	span := shardresult.NewSpan()
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
		k, err := shardresult.FoldFile(acc, cat, filepath.Join(in.dir, artifacts.RecordsFile), w, &span)
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

// summaryCancelled reads was_cancelled from dir's summary.
func summaryCancelled(dir string) (bool, error) {
	path := filepath.Join(dir, artifacts.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return shardresult.SummaryCancelled(b, path)
}

// readInputConfig is the first input's input_config, numbers kept as
// written (json.Number), for the merged summary.
func readInputConfig(dir string) (map[string]any, error) {
	path := filepath.Join(dir, artifacts.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return shardresult.SummaryInputConfig(b, path)
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
	if sh := ec.Sharding; sh != nil {
		fmt.Fprintf(stdout, "\nMerged %d of %d shards (%d profiling records)\n", sh.Completed, sh.Shards, records)
	} else {
		fmt.Fprintf(stdout, "\nMerged %d runs (%d profiling records)\n", hosts, records)
	}
	fmt.Fprintf(stdout, "Benchmark Duration: %.2f sec (earliest request start to latest request end across runs)\n", ec.Results.BenchmarkDurationS)
	for _, f := range exported {
		fmt.Fprintf(stdout, "%s: %s\n", f.Label, f.Path)
	}
	if ec.ExportLevel == "records" {
		fmt.Fprintf(stdout, "JSONL Export: %s\n", filepath.Join(ec.ArtifactDir, ec.Files.RecordsJSONL))
	}
	return errors.Join(errs...)
}
