package htmlreport

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/consoleexporter/metricstable"
	"github.com/aiperf-go/aiperf/plugins/builtin/plot/plotdata"
)

// dataVersion is the schema version of the embedded data block.
const dataVersion = 1

// SignificantDigits is the precision per-request values are embedded with
// (whole numbers stay exact): enough to read, small enough that 100k
// records stay a file a browser opens. profile_export.jsonl keeps the full values.
const SignificantDigits = 7

// reportData is the JSON block report.js draws from.
type reportData struct {
	Version int         `json:"version"`
	Theme   string      `json:"theme"`
	Mode    string      `json:"mode"` // "single" or "multi"
	Runs    []runData   `json:"runs"`
	Charts  []chartSpec `json:"charts"`
}

type runData struct {
	Name        string              `json:"name"`
	Model       string              `json:"model"`
	Endpoint    string              `json:"endpoint"`
	Streaming   bool                `json:"streaming"`
	Concurrency float64             `json:"concurrency"`
	Rate        float64             `json:"rate"`
	Stats       map[string]statData `json:"stats"`
	Records     *recordsData        `json:"records,omitempty"`
}

type statData struct {
	Unit  string             `json:"unit"`
	Stats map[string]float64 `json:"stats"`
}

// recordsData is profile_export.jsonl by column, in file order: times in
// ms since the run's first request start, one value array per metric
// (null where a record lacks the metric).
type recordsData struct {
	Count   int            `json:"count"`
	Start   msTimes        `json:"start"`
	End     msTimes        `json:"end"`
	Errors  []recordError  `json:"errors"`
	IDs     []string       `json:"ids,omitempty"`
	Metrics []metricColumn `json:"metrics"`
}

type recordError struct {
	Index   int    `json:"i"`
	Message string `json:"m"`
}

type metricColumn struct {
	Tag    string `json:"tag"`
	Header string `json:"header"`
	Unit   string `json:"unit"`
	Values nums   `json:"values"`
}

// nums encodes compactly: whole numbers exactly, others to
// SignificantDigits; NaN (a missing value) as null.
type nums []float64

func (n nums) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 8*len(n)+2)
	b = append(b, '[')
	for i, v := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNum(b, v)
	}
	return append(b, ']'), nil
}

func appendNum(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return append(b, "null"...)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, v, 'g', SignificantDigits, 64)
}

// msTimes encodes milliseconds to the microsecond.
type msTimes []float64

func (t msTimes) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 10*len(t)+2)
	b = append(b, '[')
	for i, v := range t {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, math.Round(v*1000)/1000, 'f', -1, 64)
	}
	return append(b, ']'), nil
}

// statsOf is the run's summary, finite values only (JSON has no NaN).
func statsOf(r *sdk.PlotRun) map[string]statData {
	out := make(map[string]statData, len(r.Summary))
	for tag, s := range r.Summary {
		st := make(map[string]float64, len(s.Stats))
		for k, v := range s.Stats {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				st[k] = v
			}
		}
		out[tag] = statData{Unit: s.Unit, Stats: st}
	}
	return out
}

// sortKey orders metrics as the console: by display order, those without
// one last, then by tag.
func sortKey(specs map[string]sdk.MetricSpec, tag string) int {
	if s, ok := specs[tag]; ok && s.DisplayOrder != 0 {
		return s.DisplayOrder
	}
	return math.MaxInt32
}

func sortTags(tags []string, specs map[string]sdk.MetricSpec) {
	slices.SortFunc(tags, func(a, b string) int {
		return cmp.Or(cmp.Compare(sortKey(specs, a), sortKey(specs, b)), cmp.Compare(a, b))
	})
}

func recordsOf(r *sdk.PlotRun, specs map[string]sdk.MetricSpec) (*recordsData, error) {
	n := len(r.Requests)
	rec := &recordsData{Count: n, Start: make(msTimes, n), End: make(msTimes, n), Errors: []recordError{}, Metrics: []metricColumn{}}
	t0, ok := recordsOrigin(r)
	ms := func(ns int64) float64 {
		if ns <= 0 || !ok {
			return math.NaN()
		}
		return float64(ns-t0) / 1e6
	}
	seen := map[string]bool{}
	var tags []string
	for i, q := range r.Requests {
		rec.Start[i], rec.End[i] = ms(q.StartNs), ms(q.EndNs)
		for tag := range q.Metrics {
			if !seen[tag] {
				seen[tag] = true
				tags = append(tags, tag)
			}
		}
	}
	sortTags(tags, specs)
	needUnit := map[string]bool{}
	for _, tag := range tags {
		if unitOf(r, specs, tag) == "" {
			needUnit[tag] = true
		}
	}
	meta, err := readRecordMeta(r.Dir, n, needUnit)
	if err != nil {
		return nil, err
	}
	for _, tag := range tags {
		col := metricColumn{Tag: tag, Header: tag, Unit: unitOf(r, specs, tag), Values: make(nums, n)}
		if s, ok := specs[tag]; ok && s.Header != "" {
			col.Header = s.Header
		}
		if col.Unit == "" {
			col.Unit = meta.units[tag]
		}
		for i, q := range r.Requests {
			v, ok := q.Metrics[tag]
			if !ok {
				v = math.NaN()
			}
			col.Values[i] = v
		}
		rec.Metrics = append(rec.Metrics, col)
	}
	if meta.ok {
		rec.IDs = meta.ids
	}
	for i, q := range r.Requests {
		if !q.Error {
			continue
		}
		m := "error"
		if meta.ok && meta.errors[i] != "" {
			m = meta.errors[i]
		}
		rec.Errors = append(rec.Errors, recordError{Index: i, Message: m})
	}
	return rec, nil
}

// recordsOrigin is the time the records' times count from: the earliest
// request start; false when no request has one.
func recordsOrigin(r *sdk.PlotRun) (int64, bool) {
	var t0 int64 = math.MaxInt64
	for _, q := range r.Requests {
		if q.StartNs > 0 && q.StartNs < t0 {
			t0 = q.StartNs
		}
	}
	return t0, t0 != math.MaxInt64
}

// unitOf is the unit a metric is shown in: the summary's, else its spec's
// display unit ("" when neither knows).
func unitOf(r *sdk.PlotRun, specs map[string]sdk.MetricSpec, tag string) string {
	if s, ok := r.Summary[tag]; ok && s.Unit != "" {
		return s.Unit
	}
	if s, ok := specs[tag]; ok {
		return s.Display()
	}
	return ""
}

// recordMeta is what PlotRun's records lack: request ids, error messages and
// the units of metrics the summary does not list. ok is false when there is
// no file to read or it does not line up with PlotRun.Requests (then ids and
// errors are left out rather than shown against the wrong request).
type recordMeta struct {
	ok     bool
	ids    []string
	errors map[int]string
	units  map[string]string
}

// maxLine matches core/artifacts: one record line up to 64 MiB.
const maxLine = 64 << 20

const recordsFile = "profile_export.jsonl"

// needUnit names the metrics whose unit only the records tell; lines are
// decoded without their metrics once every one is found.
func readRecordMeta(dir string, n int, needUnit map[string]bool) (recordMeta, error) {
	m := recordMeta{errors: map[int]string{}, units: map[string]string{}}
	if dir == "" {
		return m, nil
	}
	path := filepath.Join(dir, recordsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("html report: read %s: %w", path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	type lineMeta struct {
		Metadata struct {
			XRequestID string `json:"x_request_id"`
		} `json:"metadata"`
		Error json.RawMessage `json:"error"`
	}
	var withUnits struct {
		lineMeta
		Metrics map[string]struct {
			Unit string `json:"unit"`
		} `json:"metrics"`
	}
	i := 0
	for ln := 1; sc.Scan(); ln++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var line lineMeta
		var err error
		if len(needUnit) > 0 {
			withUnits.lineMeta, withUnits.Metrics = lineMeta{}, nil
			err = json.Unmarshal(sc.Bytes(), &withUnits)
			line = withUnits.lineMeta
			for tag, v := range withUnits.Metrics {
				if v.Unit != "" && needUnit[tag] {
					m.units[tag] = v.Unit
					delete(needUnit, tag)
				}
			}
		} else {
			err = json.Unmarshal(sc.Bytes(), &line)
		}
		if err != nil {
			return m, fmt.Errorf("html report: %s:%d: %w", path, ln, err)
		}
		m.ids = append(m.ids, line.Metadata.XRequestID)
		if msg := errorText(line.Error); msg != "" {
			m.errors[i] = msg
		}
		i++
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("html report: read %s: %w", path, err)
	}
	m.ok = i == n
	if slices.IndexFunc(m.ids, func(s string) bool { return s != "" }) < 0 {
		m.ids = nil // no record has one: leave the column out
	}
	return m, nil
}

// errorText renders a record's error as "Type (code): message"; a
// non-object error as its JSON text.
func errorText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var e sdk.ErrorDetails
	if json.Unmarshal(raw, &e) != nil {
		return string(raw)
	}
	s := e.Type
	if e.Code != 0 {
		s += " (" + strconv.Itoa(e.Code) + ")"
	}
	if e.Message != "" {
		if s != "" {
			s += ": "
		}
		s += e.Message
	}
	return strings.TrimSpace(s)
}

// extras is what profile_export_aiperf.json says beyond the metrics.
type extras struct {
	config, command, version, startTime string
	errorSummary                        []sdk.ErrorCount
}

const summaryFile = "profile_export_aiperf.json"

func readExtras(dir string) (extras, error) {
	var x extras
	if dir == "" {
		return x, nil
	}
	path := filepath.Join(dir, summaryFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return x, nil
	}
	if err != nil {
		return x, fmt.Errorf("html report: read %s: %w", path, err)
	}
	var doc struct {
		InputConfig json.RawMessage `json:"input_config"`
		Version     string          `json:"aiperf_version"`
		StartTime   string          `json:"start_time"`
		RunInfo     struct {
			Command string `json:"cli_command"`
		} `json:"run_info"`
		ErrorSummary []sdk.ErrorCount `json:"error_summary"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return x, fmt.Errorf("html report: parse %s: %w", path, err)
	}
	if len(doc.InputConfig) > 0 && string(doc.InputConfig) != "null" {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, doc.InputConfig, "", "  "); err != nil {
			return x, fmt.Errorf("html report: input_config of %s: %w", path, err)
		}
		x.config = pretty.String()
	}
	x.command, x.version, x.startTime, x.errorSummary = doc.RunInfo.Command, doc.Version, doc.StartTime, doc.ErrorSummary
	return x, nil
}

// summaryTables lays the run's summary out as the console does (its
// tables, rows, labels and number format).
func summaryTables(r *sdk.PlotRun, specs map[string]sdk.MetricSpec, title string) []tableView {
	tags := make([]string, 0, len(r.Summary))
	for tag := range r.Summary {
		tags = append(tags, tag)
	}
	slices.Sort(tags) // the console keeps result order on display-order ties
	results := make([]sdk.MetricResult, 0, len(tags))
	for _, tag := range tags {
		s := r.Summary[tag]
		res := sdk.MetricResult{Tag: tag, Header: tag, Unit: s.Unit}
		if sp, ok := specs[tag]; ok {
			res.Header, res.Flags, res.DisplayOrder, res.ConsoleGroup = or(sp.Header, tag), sp.Flags, sp.DisplayOrder, sp.ConsoleGroup
		}
		for k, dst := range map[string]**float64{"avg": &res.Avg, "min": &res.Min, "max": &res.Max,
			"p99": &res.P99, "p90": &res.P90, "p50": &res.P50, "std": &res.Std} {
			if v, ok := s.Stats[k]; ok {
				*dst = &v
			}
		}
		results = append(results, res)
	}
	var out []tableView
	for _, t := range metricstable.BuildAll(results, title) {
		tv := tableView{Title: t.Title}
		for _, c := range t.Columns {
			tv.Columns = append(tv.Columns, c.Header)
		}
		for _, row := range t.Rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = strings.ReplaceAll(c.Text, "\n", " ")
			}
			tv.Rows = append(tv.Rows, cells)
		}
		out = append(out, tv)
	}
	return out
}

func formatNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "N/A"
	}
	return metricstable.FormatNumber(v)
}

// runTable is the sweep's one row per run: its load and headline numbers.
func runTable(runs []*sdk.PlotRun, views []runView) tableView {
	type col struct{ header, metric, stat string }
	cols := []col{
		{"Request throughput (requests/sec)", "request_throughput", "avg"},
		{"Output token throughput (tokens/sec)", "output_token_throughput", "avg"},
		{"Output token throughput per GPU (tokens/sec/gpu)", plotdata.MetricThroughputPerGPU, "avg"},
		{"Output token throughput per user avg (tokens/sec/user)", "output_token_throughput_per_user", "avg"},
		{"TTFT avg (ms)", "time_to_first_token", "avg"},
		{"TTFT p99 (ms)", "time_to_first_token", "p99"},
		{"ITL avg (ms)", "inter_token_latency", "avg"},
		{"ITL p99 (ms)", "inter_token_latency", "p99"},
		{"Request latency avg (ms)", "request_latency", "avg"},
		{"Request latency p99 (ms)", "request_latency", "p99"},
	}
	// Leave out columns no run has (a non-streaming sweep has no TTFT).
	cols = slices.DeleteFunc(cols, func(c col) bool {
		return !slices.ContainsFunc(runs, func(r *sdk.PlotRun) bool { _, ok := stat(r, c.metric, c.stat); return ok })
	})
	t := tableView{Title: "Runs", Columns: []string{"Run", "Model", "Concurrency", "Request rate", "Requests"}}
	for _, c := range cols {
		t.Columns = append(t.Columns, c.header)
	}
	for i, r := range runs {
		row := []string{views[i].Name, or(r.Config.Model, "—"), loadText(r.Config.Concurrency), loadText(r.Config.RequestRate),
			strconv.Itoa(len(r.Requests))}
		for _, c := range cols {
			if v, ok := stat(r, c.metric, c.stat); ok {
				row = append(row, formatNumber(v))
			} else {
				row = append(row, "N/A")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func loadText(v float64) string {
	if v <= 0 {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// stat is a finite summary statistic of a run, AIPerf's derived per-GPU
// throughput included.
func stat(r *sdk.PlotRun, metric, name string) (float64, bool) {
	v, ok := plotdata.SummaryStat(r, metric, name)
	return v, ok && !math.IsNaN(v) && !math.IsInf(v, 0)
}
