package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// NoDisplayOrder is the display order results carry for metrics declared
// without one; they sort after every ordered metric.
const NoDisplayOrder = math.MaxInt32

// Declared are the metrics one record processor declares.
type Declared struct {
	// Plugin names the processor in error messages.
	Plugin string
	Specs  []sdk.MetricSpec
}

// Def is one metric of a catalog: its spec and how the core treats it.
type Def struct {
	sdk.MetricSpec
	Kind Kind
	// Plugin is the record processor that declared it; empty for the
	// core's run-level metrics.
	Plugin string
}

// ToDisplay converts a value in the metric's unit to its display unit.
func (d Def) ToDisplay(v float64) float64 {
	div, err := displayDivisor(d.Unit, d.DisplayUnit)
	if err != nil || div == 1 {
		return v
	}
	return v / div
}

// FromDisplay converts a value in the metric's display unit back to its
// unit (a per-record export read back).
func (d Def) FromDisplay(v float64) float64 {
	div, err := displayDivisor(d.Unit, d.DisplayUnit)
	if err != nil || div == 1 {
		return v
	}
	return v * div
}

// metricID indexes a catalog's tables: declared record metrics first, in
// declaration order, then the run-level metrics, then the sweep metrics.
type metricID int32

const noMetric metricID = -1

// gate says which records may carry a metric's values (AIPerf's validity
// gate: normal metrics on successful records, ERROR_ONLY ones on failed).
type gate uint8

const (
	gateNever gate = iota // not a record metric, or not applicable
	gateValid
	gateError
)

func (g gate) admits(valid bool) bool {
	return g == gateValid && valid || g == gateError && !valid
}

// entry is a Def with what hot paths need precomputed.
type entry struct {
	Def
	div   float64 // display divisor
	order int     // DisplayOrder, NoDisplayOrder when 0
	gate  gate
	// exported: values go to profile_export.jsonl (applicable record
	// metrics without NO_INDIVIDUAL_RECORDS).
	exported bool
	reqs     []metricID // resolved Requires; noMetric when undeclared
}

// Catalog is every metric of a run: the record metrics its record
// processors declared and the core's run-level metrics, with applicability
// resolved once for the run. It is immutable, so safe for concurrent use.
type Catalog struct {
	defs       []entry
	byTag      map[string]metricID
	index      tagIndex // byTag for hot paths
	nRecord    int
	disallowed sdk.MetricFlags
	on         []bool
	// Ids of the record metrics run-level metrics read; noMetric when
	// undeclared.
	latency, osl, isl metricID
	// sumIDs is, for each derived total, the record metric it sums.
	sumIDs [numRunLevel]metricID
	// roles marks, by id, the record values Add reads besides storing
	// them (roleNone for most).
	roles []valueRole
	// slos are the run's goodput targets (for the per-record
	// good_request_count of the JSONL); tags the catalog lacks are left
	// out, ValidateGoodputTags reports them.
	slos []slo
}

// valueRole says what Add does with a record value beyond storing it.
type valueRole uint8

const (
	roleNone valueRole = iota
	roleLatency
	roleOSL
	roleOSLDiff
	rolePromptDiff
	roleCompletionDiff
	roleReasoningDiff
)

// NewCatalog builds the run's catalog from what each record processor
// declared. It fails on an empty or duplicate tag, a tag of a core
// run-level metric, a display unit the unit cannot convert to, and a
// Requires naming an undeclared metric or forming a cycle. Build it with
// the run's final RunInfo, goodput SLOs included.
func NewCatalog(decl []Declared, info sdk.RunInfo) (*Catalog, error) {
	n := 0
	for _, d := range decl {
		n += len(d.Specs)
	}
	c := &Catalog{
		defs:       make([]entry, 0, n+int(numRunLevel)+int(numSweep)),
		byTag:      make(map[string]metricID, n+int(numRunLevel)+int(numSweep)),
		nRecord:    n,
		disallowed: DisallowedFlags(info),
	}
	var errs []error
	for _, d := range decl {
		for _, s := range d.Specs {
			if err := c.add(s, KindRecord, d.Plugin); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for i := range runLevelDefs {
		if err := c.add(runLevelDefs[i].spec, runLevelDefs[i].kind, ""); err != nil {
			return nil, err // the core's own table is wrong
		}
	}
	for i := range sweepDefs {
		if err := c.add(sweepDefs[i], KindSweep, ""); err != nil {
			return nil, err
		}
	}
	if err := c.resolveRequires(); err != nil {
		return nil, err
	}
	c.on = c.resolve(c.disallowed)
	for id := range c.defs {
		e := &c.defs[id]
		switch {
		case e.Kind != KindRecord || !c.on[id]:
			e.gate = gateNever
		case e.Flags.Has(sdk.FlagErrorOnly):
			e.gate = gateError
		default:
			e.gate = gateValid
		}
		e.exported = e.gate != gateNever && !e.Flags.Has(sdk.FlagNoIndividualRecords)
	}
	c.latency, c.osl, c.isl = c.recordID(TagRequestLatency), c.recordID(TagOSL), c.recordID(TagISL)
	for i := range runLevelDefs {
		c.sumIDs[i] = noMetric
		if of := runLevelDefs[i].sumOf; of != "" {
			c.sumIDs[i] = c.recordID(of)
		}
	}
	c.roles = make([]valueRole, c.nRecord)
	for tag, role := range map[string]valueRole{
		TagRequestLatency: roleLatency, TagOSL: roleOSL, TagOSLMismatchDiff: roleOSLDiff,
		TagUsagePromptDiff: rolePromptDiff, TagUsageCompletionDiff: roleCompletionDiff, TagUsageReasoningDiff: roleReasoningDiff,
	} {
		if id := c.recordID(tag); id != noMetric {
			c.roles[id] = role
		}
	}
	c.slos = resolveSLOs(info.Goodput, c)
	c.index = newTagIndex(c.byTag)
	return c, nil
}

// NewCatalogFromSpecs rebuilds a catalog from the specs the core hands to
// sdk.MetricsAware plugins (Catalog.Specs): the run-level metrics among them
// are the core's own and are skipped.
func NewCatalogFromSpecs(specs []sdk.MetricSpec, info sdk.RunInfo) (*Catalog, error) {
	declared := make([]sdk.MetricSpec, 0, len(specs))
	for _, s := range specs {
		if !IsRunLevel(s.Tag) {
			declared = append(declared, s)
		}
	}
	return NewCatalog([]Declared{{Specs: declared}}, info)
}

func (c *Catalog) add(s sdk.MetricSpec, kind Kind, plugin string) error {
	who := "the core"
	switch {
	case kind == KindRecord && plugin != "":
		who = fmt.Sprintf("record processor %q", plugin)
	case kind == KindRecord:
		who = "a record processor"
	}
	if strings.TrimSpace(s.Tag) == "" {
		return fmt.Errorf("metrics: %s declares a metric with an empty tag", who)
	}
	if kind == KindRecord && IsRunLevel(s.Tag) {
		return fmt.Errorf("metrics: %s declares %q, a run-level metric the core computes", who, s.Tag)
	}
	if id, dup := c.byTag[s.Tag]; dup {
		if prev := c.defs[id].Plugin; prev != plugin {
			return fmt.Errorf("metrics: %q is declared by both record processor %q and %s", s.Tag, prev, who)
		}
		return fmt.Errorf("metrics: %s declares %q twice", who, s.Tag)
	}
	div, err := displayDivisor(s.Unit, s.DisplayUnit)
	if err != nil {
		return fmt.Errorf("metrics: %q of %s: %w", s.Tag, who, err)
	}
	s.Requires = slices.Clone(s.Requires)
	if s.Header == "" {
		s.Header = s.Tag
	}
	order := s.DisplayOrder
	if order == 0 {
		order = NoDisplayOrder
	}
	c.byTag[s.Tag] = metricID(len(c.defs))
	c.defs = append(c.defs, entry{Def: Def{MetricSpec: s, Kind: kind, Plugin: plugin}, div: div, order: order})
	return nil
}

// resolveRequires turns Requires into ids. A record metric may only require
// declared record metrics; a run-level metric whose record metric is
// undeclared keeps noMetric and never applies. Cycles are rejected, as in
// AIPerf.
func (c *Catalog) resolveRequires() error {
	var errs []error
	for id := range c.defs {
		e := &c.defs[id]
		for _, tag := range e.Requires {
			rid, ok := c.byTag[tag]
			if e.Kind == KindRecord && (!ok || c.defs[rid].Kind != KindRecord) {
				errs = append(errs, fmt.Errorf("metrics: %q (record processor %q) requires %q, which no record processor declares", e.Tag, e.Plugin, tag))
				continue
			}
			if !ok {
				rid = noMetric
			}
			e.reqs = append(e.reqs, rid)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// Depth-first search for a cycle: 1 = on the current path, 2 = done.
	state := make([]uint8, len(c.defs))
	var visit func(id metricID, path []string) error
	visit = func(id metricID, path []string) error {
		path = append(path, c.defs[id].Tag)
		switch state[id] {
		case 1:
			return fmt.Errorf("metrics: requirements form a cycle: %s", strings.Join(path, " -> "))
		case 2:
			return nil
		}
		state[id] = 1
		for _, r := range c.defs[id].reqs {
			if r == noMetric {
				continue
			}
			if err := visit(r, path); err != nil {
				return err
			}
		}
		state[id] = 2
		return nil
	}
	for id := range c.defs {
		if err := visit(metricID(id), nil); err != nil {
			return err
		}
	}
	return nil
}

// resolve says which metrics apply when the flags in disallowed are off: a
// metric applies when none of its flags is disallowed and everything it
// requires applies (AIPerf's cascade). The graph is acyclic and small, so
// iterating to a fixed point is simplest.
func (c *Catalog) resolve(disallowed sdk.MetricFlags) []bool {
	on := make([]bool, len(c.defs))
	for id := range c.defs {
		on[id] = c.defs[id].Flags&disallowed == 0
	}
	for changed := true; changed; {
		changed = false
		for id := range c.defs {
			if !on[id] {
				continue
			}
			for _, r := range c.defs[id].reqs {
				if r == noMetric || !on[r] {
					on[id], changed = false, true
					break
				}
			}
		}
	}
	return on
}

func (c *Catalog) recordID(tag string) metricID {
	if id, ok := c.byTag[tag]; ok && c.defs[id].Kind == KindRecord {
		return id
	}
	return noMetric
}

func (c *Catalog) runLevelID(i runLevelIdx) metricID { return metricID(c.nRecord + int(i)) }

// Specs returns every declared spec followed by the core's run-level ones:
// what sdk.MetricsAware plugins are given.
func (c *Catalog) Specs() []sdk.MetricSpec {
	out := make([]sdk.MetricSpec, len(c.defs))
	for i := range c.defs {
		out[i] = c.defs[i].MetricSpec
		out[i].Requires = slices.Clone(out[i].Requires)
	}
	return out
}

// Lookup returns the definition of a tag (a copy).
func (c *Catalog) Lookup(tag string) (Def, bool) {
	id, ok := c.byTag[tag]
	if !ok {
		return Def{}, false
	}
	d := c.defs[id].Def
	d.Requires = slices.Clone(d.Requires)
	return d, true
}

// Known reports whether tag is in the catalog (declared or run-level).
func (c *Catalog) Known(tag string) bool {
	if c == nil {
		return false
	}
	_, ok := c.byTag[tag]
	return ok
}

// Applies reports whether the metric is in the catalog and applies to the
// run: none of its flags is disallowed and all it requires applies.
func (c *Catalog) Applies(tag string) bool {
	if c == nil {
		return false
	}
	id, ok := c.byTag[tag]
	return ok && c.on[id]
}

// Applicable returns the metrics that apply to the run, in catalog order.
func (c *Catalog) Applicable() []Def {
	var out []Def
	for id := range c.defs {
		if c.on[id] {
			out = append(out, c.defs[id].Def)
		}
	}
	return out
}

// Filter deletes from one processor's values those the run must not see: a
// metric that does not apply to the run, a run-level tag, a normal metric on
// a failed record or an ERROR_ONLY one on a successful record. Values of
// tags nobody declared are kept (exported unitless under their tag);
// undeclared reports whether there were any. A nil catalog keeps all.
func (c *Catalog) Filter(values map[string]sdk.MetricValue, valid bool) (undeclared bool) {
	if c == nil {
		return len(values) > 0
	}
	for tag := range values {
		id, ok := c.index.lookup(tag)
		if !ok {
			undeclared = true
			continue
		}
		if !c.defs[id].gate.admits(valid) {
			delete(values, tag)
		}
	}
	return undeclared
}

// SLOTags lists the tags that may appear in --goodput, sorted.
func (c *Catalog) SLOTags() []string {
	var tags []string
	for id := range c.defs {
		if notSLOReason(&c.defs[id].Def) == "" {
			tags = append(tags, c.defs[id].Tag)
		}
	}
	slices.Sort(tags)
	return tags
}

// toDisplay converts a value to the display unit with the precomputed
// divisor (no division when it is 1, exactly as before).
func (e *entry) toDisplay(v float64) float64 {
	if e.div != 1 {
		return v / e.div
	}
	return v
}
