package config

import (
	"fmt"
	"path"
	"path/filepath"
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
// <model>-<service_kind>-<endpoint_type>-concurrency<N> under "artifacts",
// where <model> is the first model name with "/" replaced by "_" and a
// "_multi" suffix when several models are benchmarked.
func (c *RunConfig) ArtifactDirectory(serviceKind string) string {
	if c.ArtifactDirSet {
		return c.ArtifactDir
	}
	return filepath.Join(c.ArtifactDir, c.artifactRunName(serviceKind))
}

func (c *RunConfig) artifactRunName(serviceKind string) string {
	model := ""
	if len(c.ModelNames) > 0 {
		model = c.ModelNames[0]
	}
	if len(c.ModelNames) > 1 {
		model += "_multi"
	}
	model = strings.ReplaceAll(model, "/", "_")
	return fmt.Sprintf("%s-%s-%s-concurrency%d", model, serviceKind, c.EndpointType, c.EffectiveConcurrency())
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
