package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// traceInfo is what the mode decision needs from --input-file: whether its
// first record carries a timestamp (auto fixed schedule) and how many
// entries it has (fixed schedule's default request count).
type traceInfo struct {
	timestamps bool
	entries    int
}

// inspectTrace reads the dataset the way AIPerf does: the first non-empty
// line that parses as JSON decides "timestamps"; with count, entries counts
// non-empty lines (of every *.jsonl file below a directory). Unreadable
// input gives the zero value; Validate reports a missing file.
func inspectTrace(path string, count bool) traceInfo {
	st, err := os.Stat(path)
	if err != nil {
		return traceInfo{}
	}
	if !st.IsDir() {
		info, _ := scanTraceFile(path, true, count)
		return info
	}
	if !count {
		return traceInfo{} // a directory never enables fixed schedule
	}
	var out traceInfo
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil // an unreadable entry only lowers the count
		}
		info, _ := scanTraceFile(p, false, true)
		out.entries += info.entries
		return nil
	})
	return out
}

// scanTraceFile detects timestamps and/or counts non-empty lines, without a
// line-length limit (trace lines with long hash_ids lists can be large).
func scanTraceFile(path string, detect, count bool) (traceInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return traceInfo{}, err
	}
	defer f.Close()
	var info traceInfo
	r := bufio.NewReaderSize(f, 64<<10)
	var line []byte // only kept while the timestamp question is open
	nonEmpty := false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			nonEmpty = true
		}
		if detect {
			line = append(line, chunk...)
		}
		if err == nil || errors.Is(err, io.EOF) { // a line ended
			if nonEmpty {
				info.entries++
				if detect {
					if ts, ok := recordTimestamp(line); ok {
						info.timestamps, detect = ts, false
						if !count {
							return info, nil
						}
					}
				}
			}
			line, nonEmpty = line[:0], false
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return info, nil
		default:
			return info, err
		}
	}
}

// recordTimestamp reports whether line is a JSON object (ok) and, if so,
// whether it has a non-null "timestamp".
func recordTimestamp(line []byte) (has, ok bool) {
	var rec struct {
		Timestamp json.RawMessage `json:"timestamp"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(line), &rec); err != nil {
		return false, false
	}
	return len(rec.Timestamp) > 0 && string(rec.Timestamp) != "null", true
}

// UseDetectedDatasetType records the loader that recognized --input-file
// when no --custom-dataset-type was given. A trace found this way replays
// its schedule exactly as one named explicitly does (AIPerf), so the trace
// is inspected now, before the timing mode is read.
func (c *RunConfig) UseDetectedDatasetType(name string) {
	if c.CustomDatasetType != "" || name == "" {
		return
	}
	c.CustomDatasetType = name
	if traceTypes[name] {
		c.inspectInputTrace()
	}
}

// traceTypes are the dataset types that replay a schedule (AIPerf's
// is_trace loaders).
var traceTypes = map[string]bool{DatasetMooncakeTrace: true, DatasetBailianTrace: true, DatasetBurstGPTTrace: true}

// TraceDataset reports whether the run replays a trace file (given or
// detected type mooncake_trace, bailian_trace or burst_gpt_trace): AIPerf
// 0.13 writes no inputs.json for them (dataset_manager
// _should_skip_inputs_json: their payloads are verbatim or synthesized and
// would be huge).
func (c *RunConfig) TraceDataset() bool {
	return c.InputFile != "" && traceTypes[c.CustomDatasetType]
}

// inspectInputTrace looks inside --input-file for what fixed schedule needs:
// whether records carry timestamps and, when no count was given, how many
// entries there are (the default request count). A BurstGPT CSV always has
// its Timestamp column (the loader refuses it otherwise) and a header row.
func (c *RunConfig) inspectInputTrace() {
	c.trace = inspectTrace(c.InputFile, c.RequestCount == nil && c.NumSessions == nil)
	if c.CustomDatasetType == DatasetBurstGPTTrace {
		c.trace.timestamps = true
		if c.trace.entries > 0 {
			c.trace.entries-- // the header
		}
	}
}

// PayloadPrefix marks GenAI-Perf's `--input-file payload:<file>`: a
// mooncake-format trace replayed on its schedule.
const PayloadPrefix = "payload:"

// resolvePayloadFile turns GenAI-Perf's payload:<file> form into what it
// means here: the file, read as a mooncake_trace, on a fixed schedule.
// Another --custom-dataset-type is kept and reported (Validate refuses a
// type that is not a trace).
func (c *RunConfig) resolvePayloadFile() []string {
	path, ok := strings.CutPrefix(c.InputFile, PayloadPrefix)
	if !ok {
		return nil
	}
	c.InputFile = path
	var warnings []string
	switch c.CustomDatasetType {
	case "":
		c.CustomDatasetType = DatasetMooncakeTrace
	case DatasetMooncakeTrace:
	default:
		warnings = append(warnings, fmt.Sprintf("--input-file payload:%s is a mooncake trace; --custom-dataset-type %s reads it instead", path, c.CustomDatasetType))
	}
	if c.FixedScheduleFlag == nil && !c.NoFixedSchedule {
		on := true
		c.FixedScheduleFlag = &on
	}
	return warnings
}
