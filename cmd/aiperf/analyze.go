package main

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/aiperf-go/aiperf/core/aggregate"
	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/internal/gcpolicy"
	"github.com/aiperf-go/aiperf/internal/pyfmt"
	"github.com/aiperf-go/aiperf/registry/grpcloader"
	"github.com/spf13/cobra"
)

// GenAI-Perf's analyze file names: the summary CSV in the artifact
// directory and checkpoint.json in --checkpoint-dir.
const (
	analyzeCSVFile        = "analyze_export_genai_perf.csv"
	analyzeCheckpointFile = "checkpoint.json"
	analyzeCheckpointVer  = 1
)

// Sweep types: GenAI-Perf's --sweep-type values we can set.
const (
	sweepConcurrency       = "concurrency"
	sweepRequestRate       = "request_rate"
	sweepInputSeqLength    = "input_sequence_length"
	sweepNumDatasetEntries = "num_dataset_entries"
	sweepBatchSize         = "batch_size"
)

var sweepTypes = []string{sweepConcurrency, sweepRequestRate, sweepInputSeqLength, sweepNumDatasetEntries}

type analyzeOptions struct {
	sweepType     string
	sweepList     string
	sweepRange    string
	sweepMin      string
	sweepMax      string
	sweepStep     string
	checkpointDir string
}

// analyzePointDone, when set (tests), is called after each point is
// recorded in the checkpoint.
var analyzePointDone func(value float64)

// newAnalyzeCmd is GenAI-Perf's `analyze`: every profile flag plus the
// sweep flags; one profile per swept value, each into its own artifact
// folder, a summary table and CSV, and a checkpoint to resume from.
func newAnalyzeCmd(rawArgs []string) *cobra.Command {
	var o analyzeOptions
	cmd := &cobra.Command{
		Use:   "analyze",
		Short: "Sweep a profile over concurrency, request rate, ISL or dataset size (GenAI-Perf's analyze).",
		Long: "Run `aiperf profile` once per value of --sweep-type, each into <artifact dir>/<model>-<service kind>-\n" +
			"<endpoint type>-<sweep type><value>/, then write a summary table and " + analyzeCSVFile + " in the\n" +
			"artifact directory. After each point " + analyzeCheckpointFile + " in --checkpoint-dir records it; a rerun\n" +
			"with the same configuration skips the recorded points (Ctrl-C stops after the point in progress).",
		Example: "  aiperf analyze -m m -u http://localhost:8000 --sweep-type concurrency --sweep-range 1:64\n" +
			"  aiperf analyze -m m -u URL --sweep-type request_rate --sweep-range 10:50:10\n" +
			"  aiperf analyze -m m -u URL --sweep-type input_sequence_length --sweep-list 100,200,400",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAnalyze(cmd, rawArgs, o) },
	}
	config.RegisterProfileFlags(cmd)
	if reg, err := embeddedRegistry(); err == nil {
		config.AnnotateChoices(cmd, choices(reg))
	}
	f := cmd.Flags()
	f.StringVar(&o.sweepType, "sweep-type", sweepConcurrency, "The stimulus to sweep: "+strings.Join(sweepTypes, ", ")+".")
	f.StringVar(&o.sweepList, "sweep-list", "", "Comma-separated values to sweep over (e.g. 1,2,4,8).")
	f.StringVar(&o.sweepRange, "sweep-range", "", "Range to sweep over, min:max or min:max:step; without a step the powers of two from min to max.")
	f.StringVar(&o.sweepMin, "sweep-min", "", "Smallest value of the sweep (with --sweep-max, as --sweep-range min:max).")
	f.StringVar(&o.sweepMax, "sweep-max", "", "Largest value of the sweep (with --sweep-min).")
	f.StringVar(&o.sweepStep, "sweep-step", "", "Step of the sweep (with --sweep-min and --sweep-max); without it the powers of two.")
	f.StringVar(&o.checkpointDir, "checkpoint-dir", ".", "Directory of "+analyzeCheckpointFile+", which records finished points so a rerun resumes.")
	return cmd
}

// sweepValues resolves the sweep flags to the values to profile, in order.
func sweepValues(o analyzeOptions) ([]float64, error) {
	switch o.sweepType {
	case sweepConcurrency, sweepRequestRate, sweepInputSeqLength, sweepNumDatasetEntries:
	case sweepBatchSize:
		return nil, fmt.Errorf("--sweep-type batch_size: Perf Analyzer's model batch size has no equivalent here (the text batch size is --batch-size-text); choose one of %s", strings.Join(sweepTypes, ", "))
	default:
		return nil, fmt.Errorf("--sweep-type %q: choose one of %s", o.sweepType, strings.Join(sweepTypes, ", "))
	}
	minMax := o.sweepMin != "" || o.sweepMax != "" || o.sweepStep != ""
	given := 0
	for _, set := range []bool{o.sweepList != "", o.sweepRange != "", minMax} {
		if set {
			given++
		}
	}
	if given != 1 {
		return nil, errors.New("give the values to sweep with exactly one of --sweep-list, --sweep-range or --sweep-min/--sweep-max")
	}
	var vals []float64
	switch {
	case o.sweepList != "":
		for _, item := range strings.Split(o.sweepList, ",") {
			v, err := parseSweepValue(o.sweepType, strings.TrimSpace(item))
			if err != nil {
				return nil, fmt.Errorf("--sweep-list %q: %w", o.sweepList, err)
			}
			vals = append(vals, v)
		}
	case o.sweepRange != "":
		parts := strings.Split(o.sweepRange, ":")
		if len(parts) != 2 && len(parts) != 3 {
			return nil, fmt.Errorf("--sweep-range %q: want min:max or min:max:step", o.sweepRange)
		}
		step := ""
		if len(parts) == 3 {
			step = parts[2]
		}
		var err error
		if vals, err = sweepRange(o.sweepType, parts[0], parts[1], step); err != nil {
			return nil, fmt.Errorf("--sweep-range %q: %w", o.sweepRange, err)
		}
	default:
		if o.sweepMin == "" || o.sweepMax == "" {
			return nil, errors.New("--sweep-min and --sweep-max go together: give both")
		}
		var err error
		if vals, err = sweepRange(o.sweepType, o.sweepMin, o.sweepMax, o.sweepStep); err != nil {
			return nil, fmt.Errorf("--sweep-min/--sweep-max/--sweep-step: %w", err)
		}
	}
	seen := map[float64]bool{}
	for _, v := range vals {
		if seen[v] {
			return nil, fmt.Errorf("--sweep-list: %s appears twice", formatSweepValue(o.sweepType, v))
		}
		seen[v] = true
	}
	return vals, nil
}

// parseSweepValue reads one value: a whole number >= 1, or for the
// request rate any number > 0.
func parseSweepValue(sweepType, s string) (float64, error) {
	if sweepType == sweepRequestRate {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a request rate above 0", s)
		}
		return v, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number of at least 1 (%s)", s, sweepType)
	}
	return float64(n), nil
}

// sweepRange is GenAI-Perf's range: min, min+step, ... up to max, or
// without a step the powers of two from min to max (8:256 is 8,16,...,256).
func sweepRange(sweepType, minS, maxS, stepS string) ([]float64, error) {
	lo, err := parseSweepValue(sweepType, minS)
	if err != nil {
		return nil, fmt.Errorf("min: %w", err)
	}
	hi, err := parseSweepValue(sweepType, maxS)
	if err != nil {
		return nil, fmt.Errorf("max: %w", err)
	}
	if hi < lo {
		return nil, fmt.Errorf("max %s is below min %s", maxS, minS)
	}
	var vals []float64
	if stepS == "" {
		for p := math.Pow(2, math.Ceil(math.Log2(lo))); p <= hi; p *= 2 {
			vals = append(vals, p)
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("no power of two between %s and %s: give a step", minS, maxS)
		}
		return vals, nil
	}
	step, err := parseSweepValue(sweepType, stepS)
	if err != nil {
		return nil, fmt.Errorf("step: %w", err)
	}
	// min + i*step, not repeated addition: 0.1 steps must not drift past max.
	for i := 0; ; i++ {
		v := lo + float64(i)*step
		if v > hi*(1+1e-12) {
			break
		}
		vals = append(vals, v)
	}
	return vals, nil
}

// formatSweepValue prints a value as it appears in folder names and the
// CSV: whole numbers plainly, request rates like Python floats (10.0), as
// AIPerf's request_rate<R> artifact names.
func formatSweepValue(sweepType string, v float64) string {
	if sweepType == sweepRequestRate {
		return pyfmt.Float(v)
	}
	return strconv.FormatInt(int64(v), 10)
}

// setSweepValue returns a copy of cfg with the swept setting at v.
func setSweepValue(cfg *config.RunConfig, sweepType string, v float64) *config.RunConfig {
	pc := *cfg
	switch sweepType {
	case sweepConcurrency:
		n := int(v)
		pc.Concurrency = &n
	case sweepRequestRate:
		r := v
		pc.RequestRate = &r
	case sweepInputSeqLength:
		pc.InputTokensMean = int(v)
	case sweepNumDatasetEntries:
		pc.NumDatasetEntries, pc.NumDatasetEntriesSet = int(v), true
	}
	return &pc
}

// analyzeConfigHash identifies a sweep's configuration apart from the swept
// setting: the input_config of the exports (secrets redacted) with the
// swept setting cleared, the UI and log level left out (they change no
// measurement).
func analyzeConfigHash(cfg *config.RunConfig, sweepType string) (string, error) {
	pc := *cfg
	switch sweepType {
	case sweepConcurrency:
		pc.Concurrency = nil
	case sweepRequestRate:
		pc.RequestRate = nil
	case sweepInputSeqLength:
		pc.InputTokensMean = 0
	case sweepNumDatasetEntries:
		pc.NumDatasetEntries, pc.NumDatasetEntriesSet = 0, false
	}
	ic := pc.InputConfig()
	delete(ic, "runtime")
	delete(ic, "logging")
	b, err := json.Marshal(map[string]any{"sweep_type": sweepType, "input_config": ic})
	if err != nil {
		return "", fmt.Errorf("config hash: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// sweepCheckpoint is checkpoint.json: which points of a sweep finished,
// where their files are, and the numbers the summary needs, so a rerun
// skips them and still reports them.
type sweepCheckpoint struct {
	Version    int          `json:"version"`
	SweepType  string       `json:"sweep_type"`
	ConfigHash string       `json:"config_hash"`
	Points     []sweepPoint `json:"points"`
}

type sweepPoint struct {
	Value       float64            `json:"value"`
	ArtifactDir string             `json:"artifact_dir"`
	ExitCode    int                `json:"exit_code"`
	Metrics     map[string]float64 `json:"metrics"`
}

func (c *sweepCheckpoint) point(v float64) *sweepPoint {
	for i := range c.Points {
		if c.Points[i].Value == v {
			return &c.Points[i]
		}
	}
	return nil
}

// readCheckpoint reads path; a missing file is an empty checkpoint.
func readCheckpoint(path string) (*sweepCheckpoint, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &sweepCheckpoint{Version: analyzeCheckpointVer}, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	var c sweepCheckpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, false, fmt.Errorf("checkpoint %s: %w (delete it to start the sweep afresh)", path, err)
	}
	if c.Version != analyzeCheckpointVer {
		return nil, false, fmt.Errorf("checkpoint %s: version %d, want %d (delete it to start the sweep afresh)", path, c.Version, analyzeCheckpointVer)
	}
	return &c, true, nil
}

// writeCheckpoint replaces path atomically (temp file and rename), so an
// interrupted write leaves the previous checkpoint.
func writeCheckpoint(path string, c *sweepCheckpoint) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("--checkpoint-dir: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".checkpoint-*.json")
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up on failure
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// summaryMetrics are the statistics a point keeps: metric, statistic.
var summaryMetrics = [][2]string{
	{"time_to_first_token", "p99"}, {"inter_token_latency", "p99"}, {"request_latency", "p99"},
	{"output_sequence_length", "p99"}, {"input_sequence_length", "p99"},
	{"output_token_throughput", "avg"}, {"request_throughput", "avg"},
	{"time_to_first_token", "avg"}, {"inter_token_latency", "avg"}, {"request_latency", "avg"},
}

func pointMetrics(s *aggregate.Summary) map[string]float64 {
	m := map[string]float64{}
	for _, ms := range summaryMetrics {
		if sm := s.Metric(ms[0]); sm != nil {
			if v, ok := sm.Stats[ms[1]]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
				m[ms[0]+"_"+ms[1]] = v
			}
		}
	}
	return m
}

// exitRank orders exit statuses by how fundamental the verdict is
// (core/app/exitcodes.go): the sweep exits with the worst of its points.
func exitRank(code int) int {
	switch code {
	case app.ExitOK:
		return 0
	case app.ExitFailed:
		return 1
	case app.ExitThresholds:
		return 2
	case app.ExitInvalidRun:
		return 3
	case app.ExitFailedRequests:
		return 4
	}
	return 1
}

func worseExit(a, b int) int {
	if exitRank(b) > exitRank(a) {
		return b
	}
	return a
}

func runAnalyze(cmd *cobra.Command, rawArgs []string, o analyzeOptions) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	values, err := sweepValues(o)
	if err != nil {
		return err
	}
	if o.checkpointDir == "" {
		return errors.New("--checkpoint-dir is empty: give a directory (default the current one)")
	}
	cfg, warnings, err := config.Load(cmd, os.Environ())
	if err != nil {
		return err
	}
	if cfg.NumProfileRuns > 1 {
		return fmt.Errorf("--num-profile-runs %d: analyze profiles each point once", cfg.NumProfileRuns)
	}
	// Ctrl-C is handled from here on, plugin start-up included (app/signals.go).
	ctx, stop := app.WithInterrupts(cmd.Context(), stderr, grpcloader.KillAll)
	defer stop()
	reg, ep, err := prepareProfile(ctx, stderr, cfg, warnings)
	if err != nil {
		return interruptedOr(ctx, stderr, err)
	}
	defer closeRegistry(stderr, reg)
	serviceKind := ep.Metadata().ServiceKind

	// The sweep's root: --artifact-dir itself, or "artifacts"; every point
	// gets GenAI-Perf's <model>-<service kind>-<endpoint>-<type><value>.
	base := cfg.ArtifactDir
	hashCfg := *cfg
	hashCfg.ArtifactDir, hashCfg.ArtifactDirSet = base, true
	hash, err := analyzeConfigHash(&hashCfg, o.sweepType)
	if err != nil {
		return err
	}
	ckptPath := filepath.Join(o.checkpointDir, analyzeCheckpointFile)
	ckpt, found, err := readCheckpoint(ckptPath)
	if err != nil {
		return err
	}
	if found && (ckpt.SweepType != o.sweepType || ckpt.ConfigHash != hash) {
		return fmt.Errorf("checkpoint %s was written for another sweep (sweep type %s, config %.12s; this one: %s, %.12s): delete it or give another --checkpoint-dir",
			ckptPath, ckpt.SweepType, ckpt.ConfigHash, o.sweepType, hash[:12])
	}
	ckpt.SweepType, ckpt.ConfigHash = o.sweepType, hash

	// Every point's settings are resolved before anything is sent, so a
	// point that cannot run fails the sweep at once.
	type point struct {
		value float64
		name  string
		cfg   *config.RunConfig
		s     *app.Settings
	}
	points := make([]point, len(values))
	var gc gcpolicy.Tuner // started before each point's first send
	defer gc.Stop()
	for i, v := range values {
		label := o.sweepType + formatSweepValue(o.sweepType, v)
		pc := setSweepValue(cfg, o.sweepType, v)
		pc.ArtifactDir, pc.ArtifactDirSet = filepath.Join(base, sweepFolder(cfg, serviceKind, label)), true
		if err := pc.Validate(choices(reg)); err != nil {
			return fmt.Errorf("sweep point %s: %w", label, err)
		}
		points[i] = point{value: v, name: label, cfg: pc}
		if ckpt.point(v) != nil {
			continue
		}
		s, err := app.FromConfig(pc, serviceKind, rawArgs)
		if err != nil {
			return fmt.Errorf("sweep point %s: %w", label, err)
		}
		s.BeforeSend, s.AfterSend = gc.Start, gc.Settle
		points[i].s = s
	}

	exit, cancelled, failed := app.ExitOK, false, 0
	for i, p := range points {
		cfgName := fmt.Sprintf("%s_run_config_%d", cfg.ModelLabel(), i)
		if ckpt.point(p.value) != nil {
			fmt.Fprintf(stderr, "%s:%s found in checkpoint - skipping profiling...\n", cfgName, p.name)
			continue
		}
		if ctx.Err() != nil {
			cancelled = true
			break
		}
		fmt.Fprintf(stderr, "[%d/%d] Profiling %s into %s\n", i+1, len(points), p.name, p.cfg.ArtifactDir)
		out, err := app.Profile(ctx, reg, p.s, stdout, stderr)
		// The next run builds its dataset under Go's defaults again.
		gc.Stop()
		runtime.GC()
		if ctx.Err() != nil && (out == nil || out.Results == nil || out.Results.WasCancelled) {
			// Ctrl-C: the partial point is exported but not recorded, so
			// a rerun profiles it again.
			fmt.Fprintf(stderr, "Cancelled during %s: it is not recorded in %s; rerun the same command to resume.\n", p.name, ckptPath)
			cancelled = true
			break
		}
		if err != nil {
			fmt.Fprintf(stderr, "Error: sweep point %s: %v\n", p.name, err)
			if out == nil {
				exit, failed = worseExit(exit, app.ExitFailed), failed+1
				continue
			}
		}
		if out.ExitCode != app.ExitOK {
			fmt.Fprintf(stderr, "Sweep point %s: %s\n", p.name, out.Verdict)
			exit = worseExit(exit, out.ExitCode)
		}
		summary, rerr := aggregate.ReadSummary(filepath.Join(p.s.ArtifactDir, p.s.Files.SummaryJSON))
		if rerr != nil {
			fmt.Fprintf(stderr, "Error: sweep point %s: %v\n", p.name, rerr)
			exit, failed = worseExit(exit, app.ExitFailed), failed+1
			continue
		}
		if r := aggregate.Classify(p.name, summary); !r.Success() {
			fmt.Fprintf(stderr, "Error: sweep point %s: %s (not recorded in the checkpoint)\n", p.name, r.Error)
			exit, failed = worseExit(exit, app.ExitFailed), failed+1
			continue
		}
		ckpt.Points = append(ckpt.Points, sweepPoint{Value: p.value, ArtifactDir: p.s.ArtifactDir, ExitCode: out.ExitCode, Metrics: pointMetrics(summary)})
		if err := writeCheckpoint(ckptPath, ckpt); err != nil {
			return err
		}
		if analyzePointDone != nil {
			analyzePointDone(p.value)
		}
	}

	// The summary covers this sweep's points that have finished, now or in
	// an earlier run.
	var rows []analyzeRow
	for i, p := range points {
		if cp := ckpt.point(p.value); cp != nil {
			rows = append(rows, analyzeRow{configName: fmt.Sprintf("%s_run_config_%d", cfg.ModelLabel(), i), cfg: p.cfg, point: cp})
		}
	}
	if len(rows) > 0 {
		if err := os.MkdirAll(base, 0o755); err != nil {
			return fmt.Errorf("artifact directory %s: %w", base, err)
		}
		csvPath := filepath.Join(base, analyzeCSVFile)
		if err := writeAnalyzeCSV(csvPath, o.sweepType, rows); err != nil {
			return err
		}
		writeAnalyzeTable(stdout, o.sweepType, rows)
		fmt.Fprintf(stdout, "\nSweep summary CSV: %s\nCheckpoint: %s\n", csvPath, ckptPath)
		if cfg.GeneratePlots && len(rows) > 1 && !cancelled {
			if err := sweepPlots(cmd, base, rows, cfg.Plugins); err != nil {
				fmt.Fprintln(stderr, "Error: --generate-plots:", err)
				exit = worseExit(exit, app.ExitFailed)
			}
		}
	}
	if cancelled {
		fmt.Fprintf(stderr, "Sweep stopped: %d of %d points finished; rerun the same command to resume from %s.\n", len(rows), len(points), ckptPath)
	} else if failed > 0 {
		fmt.Fprintf(stderr, "Sweep finished: %d of %d points failed and are not recorded; a rerun profiles them again.\n", failed, len(points))
	}
	if exit != app.ExitOK {
		return exitError{code: exit}
	}
	return nil
}

// sweepFolder is GenAI-Perf's per-point folder name.
func sweepFolder(cfg *config.RunConfig, serviceKind, label string) string {
	return cfg.ArtifactRunName(serviceKind, label)
}

type analyzeRow struct {
	configName string
	cfg        *config.RunConfig
	point      *sweepPoint
}

// analyzeColumns are GenAI-Perf's summary columns (metric key, header),
// then ours: the averages and the swept setting.
var analyzeColumns = [][2]string{
	{"time_to_first_token_p99", "p99 Time To First Token (ms)"},
	{"inter_token_latency_p99", "p99 Inter Token Latency (ms)"},
	{"request_latency_p99", "p99 Request Latency (ms)"},
	{"output_sequence_length_p99", "p99 Output Sequence Length (tokens)"},
	{"output_token_throughput_avg", "Avg. Output Token Throughput (tokens/sec)"},
	{"request_throughput_avg", "Request Throughput (requests/sec)"},
	{"time_to_first_token_avg", "Avg. Time To First Token (ms)"},
	{"inter_token_latency_avg", "Avg. Inter Token Latency (ms)"},
	{"request_latency_avg", "Avg. Request Latency (ms)"},
}

func analyzeHeader(sweepType string, rows []analyzeRow) []string {
	infer := "Concurrency"
	if len(rows) > 0 && rows[0].cfg.Mode() == config.ModeRequestRate {
		infer = "Request Rate"
	}
	h := []string{"Config Name", infer, "ISL", "Num Dataset Entries"}
	for _, c := range analyzeColumns {
		h = append(h, c[1])
	}
	return append(h, "Sweep Type", "Sweep Value")
}

func analyzeRecord(sweepType string, r analyzeRow) []string {
	infer := strconv.Itoa(r.cfg.EffectiveConcurrency())
	if r.cfg.Mode() == config.ModeRequestRate && r.cfg.RequestRate != nil {
		infer = pyfmt.Float(*r.cfg.RequestRate)
	}
	isl := ""
	if v, ok := r.point.Metrics["input_sequence_length_p99"]; ok {
		isl = strconv.Itoa(int(v))
	}
	rec := []string{r.configName, infer, isl, strconv.Itoa(r.cfg.EffectiveNumDatasetEntries())}
	for _, c := range analyzeColumns {
		cell := "" // a metric the run has not (TTFT without streaming)
		if v, ok := r.point.Metrics[c[0]]; ok {
			cell = strconv.FormatFloat(v, 'f', 2, 64)
		}
		rec = append(rec, cell)
	}
	return append(rec, sweepType, formatSweepValue(sweepType, r.point.Value))
}

func writeAnalyzeCSV(path, sweepType string, rows []analyzeRow) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("summary CSV: %w", err)
	}
	w := csv.NewWriter(f)
	_ = w.Write(analyzeHeader(sweepType, rows))
	for _, r := range rows {
		_ = w.Write(analyzeRecord(sweepType, r))
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return fmt.Errorf("summary CSV %s: %w", path, err)
	}
	return nil
}

// writeAnalyzeTable prints the console summary: the swept value and the
// CSV's metrics, one line per point.
func writeAnalyzeTable(w io.Writer, sweepType string, rows []analyzeRow) {
	fmt.Fprintf(w, "\nSweep over %s\n", sweepType)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{sweepType}
	for _, c := range analyzeColumns {
		head = append(head, c[1])
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		rec := analyzeRecord(sweepType, r)
		cells := append([]string{rec[len(rec)-1]}, rec[4:len(rec)-2]...)
		for i, c := range cells {
			if c == "" {
				cells[i] = "N/A"
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	_ = tw.Flush()
}

// sweepPlots draws the comparison plots (`aiperf plot` over several runs)
// over the point folders into <artifact dir>/plots.
func sweepPlots(cmd *cobra.Command, base string, rows []analyzeRow, manifests []string) error {
	dirs := make([]string, len(rows))
	for i, r := range rows {
		dirs[i] = r.point.ArtifactDir
	}
	runs, err := loadPlotRuns(dirs)
	if err != nil {
		return err
	}
	out := filepath.Join(base, "plots")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("plots directory %s: %w", out, err)
	}
	reg, err := plotRegistry(cmd.ErrOrStderr(), manifests)
	if err != nil {
		return err
	}
	defer closeRegistry(cmd.ErrOrStderr(), reg)
	written, drawErr := drawPlots(cmd.Context(), cmd.ErrOrStderr(), reg, nil, runs, dirs, out, "png", "light")
	if err := writePlotSummary(out, written); err != nil {
		return errors.Join(drawErr, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "\nSaved %d %s to: %s\n", len(written), plural(len(written), "plot"), out)
	return drawErr
}
