package sdk

// MetricFlags are AIPerf's metric flag bits (docs/METRICS.md §2).
type MetricFlags uint32

const (
	FlagNone                             MetricFlags = 0
	FlagStreamingOnly                    MetricFlags = 1 << 0
	FlagErrorOnly                        MetricFlags = 1 << 1
	FlagProducesTokensOnly               MetricFlags = 1 << 2
	FlagNoConsole                        MetricFlags = 1 << 3
	FlagLargerIsBetter                   MetricFlags = 1 << 4
	FlagInternal                         MetricFlags = 1 << 5
	FlagSupportsAudioOnly                MetricFlags = 1 << 6
	FlagSupportsImageOnly                MetricFlags = 1 << 7
	FlagSupportsReasoning                MetricFlags = 1 << 8
	FlagExperimental                     MetricFlags = 1 << 9
	FlagGoodput                          MetricFlags = 1 << 10
	FlagNoIndividualRecords              MetricFlags = 1 << 11
	FlagTokenizesInputOnly               MetricFlags = 1 << 12
	FlagSupportsVideoOnly                MetricFlags = 1 << 13
	FlagUsageDiffOnly                    MetricFlags = 1 << 14
	FlagHTTPTraceOnly                    MetricFlags = 1 << 15
	FlagProducesVideoOnly                MetricFlags = 1 << 16
	FlagPercentileIncludesFailedRequests MetricFlags = 1 << 17
	FlagFixedScheduleOnly                MetricFlags = 1 << 18

	FlagStreamingTokensOnly = FlagStreamingOnly | FlagProducesTokensOnly
)

// Has reports whether every bit of f is set.
func (m MetricFlags) Has(f MetricFlags) bool { return m&f == f }

// HasAny reports whether any bit of f is set.
func (m MetricFlags) HasAny(f MetricFlags) bool { return m&f != 0 }

// MetricSpec declares one per-record metric a record processor produces:
// everything the core needs to apply it to a run, aggregate it, convert
// it, export it and place it in the console table.
type MetricSpec struct {
	// Tag is the metric's identifier in exports (e.g. time_to_first_token).
	Tag string `json:"tag"`
	// Header labels it in the console table and the CSV; ShortHeader is
	// AIPerf's abbreviation (TTFT), kept for narrow displays.
	Header      string `json:"header"`
	ShortHeader string `json:"short_header,omitempty"`
	// Unit is the unit values are produced in; DisplayUnit (when it
	// differs) the one exports and the console show: ns, us, ms, s for
	// times; tokens, requests, tokens/sec, requests/sec, ... as is.
	Unit        string `json:"unit"`
	DisplayUnit string `json:"display_unit,omitempty"`
	// Flags are AIPerf's metric flags (streaming only, larger is better, no
	// console, error only, ...): the run's facts disallow some of them.
	Flags MetricFlags `json:"flags"`
	// DisplayOrder places the metric in the console table and exports
	// (AIPerf's orders: TTFT 100 ... OSL 600, ISL 700); 0 sorts it after
	// every ordered metric, by tag.
	DisplayOrder int `json:"display_order,omitempty"`
	// Integer marks whole-number values (token counts).
	Integer bool `json:"integer,omitempty"`
	// List marks metrics with a list of values per record (e.g. ICL).
	List bool `json:"list,omitempty"`
	// Requires names the metrics this one is computed from: it applies to a
	// run only where they all do.
	Requires []string `json:"requires,omitempty"`
	// ConsoleGroup is the console table the metric is shown in (AIPerf's
	// console_group): empty for the main table, or one of ConsoleGroups.
	// FlagNoConsole still hides it (AIPerf's group NONE).
	ConsoleGroup string `json:"console_group,omitempty"`
}

// AIPerf 0.13's console groups with tables of their own, in the order its
// metrics exporter prints them: each before the main table, titled
// "NVIDIA AIPerf | <title>: <Group>".
const (
	ConsoleGroupEffective  = "effective"
	ConsoleGroupActive     = "active"
	ConsoleGroupUsage      = "usage"
	ConsoleGroupCache      = "cache"
	ConsoleGroupPrediction = "prediction"
	ConsoleGroupAudio      = "audio"
	ConsoleGroupReasoning  = "reasoning"
)

// ConsoleGroups lists the named console groups in print order; the main
// table (empty group) comes after them.
var ConsoleGroups = []string{ConsoleGroupEffective, ConsoleGroupActive, ConsoleGroupUsage, ConsoleGroupCache,
	ConsoleGroupPrediction, ConsoleGroupAudio, ConsoleGroupReasoning}

// Display returns the unit exports and the console show.
func (m MetricSpec) Display() string {
	if m.DisplayUnit != "" {
		return m.DisplayUnit
	}
	return m.Unit
}

// MetricValue is one record's value of one metric: a scalar, or a list for
// list metrics such as inter_chunk_latency. Values are in the metric's base
// unit (ns for latencies).
type MetricValue struct {
	Scalar float64
	List   []float64
	IsList bool
}

// RecordMetrics is one processed request: its record and the metric values it
// produced (absent metrics are simply missing from Values).
type RecordMetrics struct {
	Record *RequestRecord
	Values map[string]MetricValue
	// InputTokens is carried for error records (error_isl) and exports.
	InputTokens *int
}

// MetricResult is the aggregate of one metric, in display units. Nil stats
// are absent and omitted from exports. Record metrics carry every stat;
// aggregate and derived metrics carry only Avg.
type MetricResult struct {
	Tag          string      `json:"-"`
	Header       string      `json:"-"`
	Unit         string      `json:"unit"`
	Flags        MetricFlags `json:"-"`
	DisplayOrder int         `json:"-"`
	// Integer marks metrics whose per-record values are whole numbers (token counts).
	Integer bool `json:"-"`
	// ConsoleGroup is the declared metric's MetricSpec.ConsoleGroup.
	ConsoleGroup string `json:"-"`

	Avg   *float64 `json:"avg,omitempty"`
	Min   *float64 `json:"min,omitempty"`
	Max   *float64 `json:"max,omitempty"`
	P1    *float64 `json:"p1,omitempty"`
	P5    *float64 `json:"p5,omitempty"`
	P10   *float64 `json:"p10,omitempty"`
	P25   *float64 `json:"p25,omitempty"`
	P50   *float64 `json:"p50,omitempty"`
	P75   *float64 `json:"p75,omitempty"`
	P90   *float64 `json:"p90,omitempty"`
	P95   *float64 `json:"p95,omitempty"`
	P99   *float64 `json:"p99,omitempty"`
	Std   *float64 `json:"std,omitempty"`
	Count *int64   `json:"count,omitempty"`
	Sum   *float64 `json:"sum,omitempty"`
}

// IsScalar reports whether the result only carries an average (derived or
// aggregate metrics).
func (m *MetricResult) IsScalar() bool { return m.Min == nil && m.P50 == nil }
