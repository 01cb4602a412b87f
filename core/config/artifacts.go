package config

import (
	"fmt"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Default export file names (AIPerf OutputDefaults).
const (
	defaultSummaryStem = "profile_export_aiperf"
	defaultRecordsStem = "profile_export"
	inputsFile         = "inputs.json"
	logFile            = "logs/aiperf.log"
)

// prefixSuffixes are stripped from --profile-export-prefix, longest first,
// so "foo_raw.jsonl" and "foo.json" both give the stem "foo".
var prefixSuffixes = []string{
	"_server_metrics.parquet", "_server_metrics.jsonl", "_server_metrics.json", "_server_metrics.csv",
	"_network_latency.jsonl", "_gpu_telemetry.jsonl", "_timeslices.csv", "_timeslices.json",
	"_console.txt", "_raw.jsonl", ".parquet", ".csv", ".json", ".jsonl",
}

// ArtifactDirectory is where this run writes its files. When the user did
// not choose --output-artifact-dir, AIPerf adds a per-run subdirectory
// <model>-<service_kind>-<endpoint_type>-<stimulus> under "artifacts",
// where <model> is the first model name with "/" replaced by "_" and a
// "_multi" suffix when several models are benchmarked, and <stimulus>
// describes the load (see Stimulus).
func (c *RunConfig) ArtifactDirectory(serviceKind string) string {
	if c.ArtifactDirSet {
		return c.ArtifactDir
	}
	return filepath.Join(c.ArtifactDir, c.artifactRunName(serviceKind))
}

func (c *RunConfig) artifactRunName(serviceKind string) string {
	return c.ArtifactRunName(serviceKind, c.Stimulus())
}

// ArtifactRunName is AIPerf's run folder name with stimulus as its last
// part: <ModelLabel>-<service kind>-<endpoint type>-<stimulus> (GenAI-Perf's
// analyze names its points so).
func (c *RunConfig) ArtifactRunName(serviceKind, stimulus string) string {
	return fmt.Sprintf("%s-%s-%s-%s", c.ModelLabel(), serviceKind, c.EndpointType, stimulus)
}

// ModelLabel is the model part of artifact names: the first --model,
// "_multi" appended when there are several, "/" written as "_".
func (c *RunConfig) ModelLabel() string {
	model := ""
	if len(c.ModelNames) > 0 {
		model = c.ModelNames[0]
	}
	if len(c.ModelNames) > 1 {
		model += "_multi"
	}
	return strings.ReplaceAll(model, "/", "_")
}

// Stimulus names the load in the artifact directory, as AIPerf does:
// concurrency<N> and/or request_rate<R> (joined by "-") in concurrency and
// request-rate modes, fixed_schedule, or user_centric-users<N>-qps<R>.
// Rates print like Python floats (10 -> "10.0"). A concurrency-mode run
// capped only by --prefill-concurrency has an empty stimulus in AIPerf too.
func (c *RunConfig) Stimulus() string {
	switch c.Mode() {
	case ModeFixedSchedule:
		return "fixed_schedule"
	case ModeUserCentric:
		parts := []string{"user_centric"}
		if c.NumUsers != nil {
			parts = append(parts, "users"+strconv.Itoa(*c.NumUsers))
		}
		parts = append(parts, "qps"+pyFloat(*c.UserCentricRate))
		return strings.Join(parts, "-")
	}
	var parts []string
	if n := c.EffectiveConcurrency(); n > 0 {
		parts = append(parts, "concurrency"+strconv.Itoa(n))
	}
	if c.RequestRate != nil {
		parts = append(parts, "request_rate"+pyFloat(*c.RequestRate))
	}
	return strings.Join(parts, "-")
}

// pyFloat formats f like Python's str(float): shortest round-trip digits,
// always with a decimal point in positional form, exponent form below 1e-4
// and from 1e16 on ("1e-05", "1e+16").
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64) // Go also pads the exponent to two digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// ExportFiles are the file names within ArtifactDirectory. With
// --profile-export-prefix foo the summary and records files become foo.json,
// foo.csv and foo.jsonl (AIPerf drops the "_aiperf" infix); inputs.json and
// the log keep their names.
func (c *RunConfig) ExportFiles() sdk.ArtifactFiles {
	summary, records := defaultSummaryStem, defaultRecordsStem
	if stem := exportStem(c.ProfileExportPrefix); stem != "" {
		summary, records = stem, stem
	}
	return sdk.ArtifactFiles{
		SummaryJSON:  summary + ".json",
		SummaryCSV:   summary + ".csv",
		RecordsJSONL: records + ".jsonl",
		Inputs:       inputsFile,
		Log:          filepath.FromSlash(logFile),
	}
}

// exportStem strips one known suffix from the prefix. An absolute prefix
// keeps only its base name so files stay inside the artifact directory
// (AIPerf does the same).
func exportStem(prefix string) string {
	p := strings.TrimSpace(prefix)
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) || path.IsAbs(p) {
		p = filepath.Base(p)
	}
	for _, s := range prefixSuffixes {
		if strings.HasSuffix(p, s) {
			p = strings.TrimSuffix(p, s)
			break
		}
	}
	return p
}
