// Package genaiperf translates GenAI-Perf's nested YAML configuration
// (`genai-perf config -f FILE`) into the flags of `aiperf profile`, or of
// `aiperf analyze` when the file has an `analyze:` section. Every key is
// checked against GenAI-Perf's schema (genai_perf/config/input/*.py);
// unknown keys, wrong types and values we cannot honour are errors that
// name the file, line and YAML path.
package genaiperf

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// DefaultTemplateFile is GenAI-Perf's create-template default file name.
const DefaultTemplateFile = "genai_perf_config.yaml"

// Arg is one flag of the translated command line and where it came from.
type Arg struct {
	Flag  string // long name with "--"
	Value string // empty for a boolean switch
	Path  string // YAML path, e.g. perf_analyzer.stimulus.concurrency
	Line  int
}

// Result is the translated command: "profile" or "analyze" and its flags.
type Result struct {
	Command string
	Args    []Arg
}

// Argv is the command and flags as a command line.
func (r *Result) Argv() []string {
	out := []string{r.Command}
	for _, a := range r.Args {
		if a.Value == "" {
			out = append(out, a.Flag)
			continue
		}
		out = append(out, a.Flag, a.Value)
	}
	return out
}

// Options tune the translation.
type Options struct {
	// EndpointTypes are the endpoint types the registry knows; empty
	// means any value passes through to the profile command's check.
	EndpointTypes []string
	// Overridden reports whether a flag (long name without "--") is given
	// on the command line with --override-config; the file's value for it
	// is then dropped, and not checked beyond its YAML type.
	Overridden func(flag string) bool
}

// Error is a problem in the file at a line and YAML path.
type Error struct {
	File string
	Line int
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Path, e.Msg)
}

type translator struct {
	file    string
	opts    Options
	args    []Arg
	command string

	modeNode, numNode *yaml.Node // perf_analyzer.measurement
	oslMean, oslStd   *yaml.Node // input.output_tokens
	typeNode          *yaml.Node // endpoint.type
	backendNode       *yaml.Node
	serviceKind       *yaml.Node
	checkpointDir     *yaml.Node
}

// Translate parses GenAI-Perf YAML (file names it in errors) and returns
// the equivalent aiperf command.
func Translate(file string, data []byte, opts Options) (*Result, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %w", file, err)
	}
	t := &translator{file: file, opts: opts, command: "profile"}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Line: 1, Msg: "the file is empty: give at least model_names"}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, t.errf(root, "", "the top level must be a mapping of GenAI-Perf sections (model_names, endpoint, perf_analyzer, input, output, tokenizer, analyze)")
	}
	if err := t.walk(root, ""); err != nil {
		return nil, err
	}
	if err := t.finish(); err != nil {
		return nil, err
	}
	return &Result{Command: t.command, Args: t.args}, nil
}

func (t *translator) errf(n *yaml.Node, path, format string, a ...any) error {
	return &Error{File: t.file, Line: n.Line, Path: path, Msg: fmt.Sprintf(format, a...)}
}

// sections are GenAI-Perf's nested mappings; leaves maps every key to its
// handler. A key in neither is not GenAI-Perf's.
var sections = map[string]bool{
	"endpoint": true, "perf_analyzer": true, "perf_analyzer.measurement": true,
	"input": true, "input.image": true, "input.output_tokens": true, "input.synthetic_tokens": true,
	"input.prefix_prompt": true, "input.request_count": true, "input.sessions": true,
	"input.sessions.turns": true, "input.sessions.turn_delay": true,
	"output": true, "tokenizer": true,
}

type handler func(t *translator, n *yaml.Node, path string) error

var leaves map[string]handler

func init() {
	leaves = map[string]handler{
		"model_names": modelNames,
		"model_name":  modelNames,

		"endpoint.model_selection_strategy": choice("model-selection-strategy", "round_robin", "random"),
		"endpoint.backend":                  remember(func(t *translator) **yaml.Node { return &t.backendNode }),
		"endpoint.custom":                   str("custom-endpoint"),
		"endpoint.type":                     remember(func(t *translator) **yaml.Node { return &t.typeNode }),
		"endpoint.service_kind":             remember(func(t *translator) **yaml.Node { return &t.serviceKind }),
		"endpoint.streaming":                boolean("streaming"),
		"endpoint.server_metrics_url":       strList("server-metrics"),
		"endpoint.server_metrics_urls":      strList("server-metrics"),
		"endpoint.url":                      str("url"),
		"endpoint.grpc_method":              mustBeEmpty("gRPC methods need GenAI-Perf's dynamic_grpc service kind, which aiperf does not speak"),

		"perf_analyzer.path":                 onlyValue("perf_analyzer", "aiperf sends the requests itself and runs no perf_analyzer binary"),
		"perf_analyzer.verbose":              boolean("verbose"),
		"perf_analyzer.stimulus":             stimulus,
		"perf_analyzer.stability_percentage": onlyValue("999", "aiperf measures one window and has no perf_analyzer stability check"),
		"perf_analyzer.measurement_interval": measurementInterval,
		"perf_analyzer.warmup_request_count": zeroIsUnset("warmup-request-count"),
		"perf_analyzer.measurement.mode":     remember(func(t *translator) **yaml.Node { return &t.modeNode }),
		"perf_analyzer.measurement.num":      remember(func(t *translator) **yaml.Node { return &t.numNode }),

		"input.batch_size":          integer("prompt-batch-size"),
		"input.extra":               extra,
		"input.goodput":             goodput,
		"input.header":              strList("header"),
		"input.file":                inputFile,
		"input.num_dataset_entries": integer("num-dataset-entries"),
		"input.random_seed":         integer("random-seed"),

		"input.image.batch_size":    integer("image-batch-size"),
		"input.image.width_mean":    integer("image-width-mean"),
		"input.image.width_stddev":  integer("image-width-stddev"),
		"input.image.height_mean":   integer("image-height-mean"),
		"input.image.height_stddev": integer("image-height-stddev"),
		"input.image.format":        lowerChoice("image-format", "png", "jpeg"),

		"input.output_tokens.mean":          remember(func(t *translator) **yaml.Node { return &t.oslMean }),
		"input.output_tokens.stddev":        remember(func(t *translator) **yaml.Node { return &t.oslStd }),
		"input.output_tokens.deterministic": deterministic,

		"input.synthetic_tokens.mean":   integer("prompt-input-tokens-mean"),
		"input.synthetic_tokens.stddev": number("prompt-input-tokens-stddev"),

		"input.prefix_prompt.num":    integer("num-prefix-prompts"),
		"input.prefix_prompt.length": integer("prefix-prompt-length"),

		"input.request_count.warmup": zeroIsUnset("warmup-request-count"),
		"input.request_count.num":    integer("request-count"),

		"input.sessions.num":               integer("conversation-num"),
		"input.sessions.turns.mean":        integer("conversation-turn-mean"),
		"input.sessions.turns.stddev":      integer("conversation-turn-stddev"),
		"input.sessions.turn_delay.mean":   number("conversation-turn-delay-mean"),
		"input.sessions.turn_delay.stddev": number("conversation-turn-delay-stddev"),
		"input.sessions.turn_delay.ratio":  number("conversation-turn-delay-ratio"),

		"output.artifact_directory":   str("artifact-dir"),
		"output.checkpoint_directory": remember(func(t *translator) **yaml.Node { return &t.checkpointDir }),
		"output.profile_export_file":  profileExportFile,
		"output.generate_plots":       boolean("generate-plots"),
		// analyze always checkpoints; profile has nothing to checkpoint.
		"output.enable_checkpointing": typed(yaml.Node{Tag: "!!bool"}),

		"tokenizer.name":              str("tokenizer"),
		"tokenizer.revision":          str("tokenizer-revision"),
		"tokenizer.trust_remote_code": boolean("tokenizer-trust-remote-code"),

		"analyze": analyze,
	}
}

func (t *translator) walk(m *yaml.Node, prefix string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if h, ok := leaves[path]; ok {
			if isNull(v) {
				continue // "key:" with no value keeps GenAI-Perf's default
			}
			if err := h(t, v, path); err != nil {
				return err
			}
			continue
		}
		if sections[path] {
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return t.errf(v, path, "must be a mapping of %s options", path)
			}
			if err := t.walk(v, path); err != nil {
				return err
			}
			continue
		}
		where := "a top-level GenAI-Perf key"
		if prefix != "" {
			where = "a GenAI-Perf " + prefix + " key"
		}
		if prefix == "" && path == "process" {
			return t.errf(k, path, "is GenAI-Perf's process-export-files input, not a profile setting")
		}
		return t.errf(k, path, "unknown key: not %s (known: %s)", where, strings.Join(knownUnder(prefix), ", "))
	}
	return nil
}

func knownUnder(prefix string) []string {
	seen := map[string]bool{}
	add := func(p string) {
		rest := p
		if prefix != "" {
			if !strings.HasPrefix(p, prefix+".") {
				return
			}
			rest = strings.TrimPrefix(p, prefix+".")
		}
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			rest = rest[:i]
		}
		seen[rest] = true
	}
	for p := range leaves {
		add(p)
	}
	for p := range sections {
		add(p)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || (n.Tag == "!!str" && n.Value == "" && n.Style == 0))
}

// add appends a flag unless --override-config gives it on the command line.
func (t *translator) add(flag, value string, n *yaml.Node, path string) {
	if t.overridden(flag) {
		return
	}
	t.args = append(t.args, Arg{Flag: "--" + flag, Value: value, Path: path, Line: n.Line})
}

func (t *translator) overridden(flag string) bool {
	return t.opts.Overridden != nil && t.opts.Overridden(flag)
}

func scalar(t *translator, n *yaml.Node, path, tag, what string) error {
	if n.Kind != yaml.ScalarNode || n.Tag != tag {
		return t.errf(n, path, "must be %s, got %s", what, describe(n))
	}
	return nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q (%s)", n.Value, strings.TrimPrefix(n.Tag, "!!"))
}

func str(flag string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		if n.Kind != yaml.ScalarNode || n.Tag == "!!bool" || n.Tag == "!!map" {
			return t.errf(n, path, "must be a string, got %s", describe(n))
		}
		if n.Value == "" {
			return nil
		}
		t.add(flag, n.Value, n, path)
		return nil
	}
}

// strList takes a string or a list of strings; one flag per item.
func strList(flag string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		items := []*yaml.Node{n}
		if n.Kind == yaml.SequenceNode {
			items = n.Content
		}
		for _, it := range items {
			if it.Kind != yaml.ScalarNode || it.Tag != "!!str" {
				return t.errf(it, path, "must be a string or a list of strings, got %s", describe(it))
			}
			t.add(flag, it.Value, it, path)
		}
		return nil
	}
}

func boolean(flag string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		if err := scalar(t, n, path, "!!bool", "true or false"); err != nil {
			return err
		}
		var b bool
		_ = n.Decode(&b)
		if b {
			t.add(flag, "", n, path)
		}
		return nil
	}
}

func nonNegInt(t *translator, n *yaml.Node, path string) (int64, error) {
	if err := scalar(t, n, path, "!!int", "an integer"); err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil || v < 0 {
		return 0, t.errf(n, path, "must be a non-negative integer, got %s", n.Value)
	}
	return v, nil
}

func integer(flag string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		v, err := nonNegInt(t, n, path)
		if err != nil {
			return err
		}
		t.add(flag, strconv.FormatInt(v, 10), n, path)
		return nil
	}
}

// zeroIsUnset: GenAI-Perf's 0 means "none", aiperf's unset flag.
func zeroIsUnset(flag string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		v, err := nonNegInt(t, n, path)
		if err != nil || v == 0 {
			return err
		}
		t.add(flag, strconv.FormatInt(v, 10), n, path)
		return nil
	}
}

func nonNegNumber(t *translator, n *yaml.Node, path string) (float64, error) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, t.errf(n, path, "must be a number, got %s", describe(n))
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, t.errf(n, path, "must be a non-negative number, got %s", n.Value)
	}
	return v, nil
}

func number(flag string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		v, err := nonNegNumber(t, n, path)
		if err != nil {
			return err
		}
		t.add(flag, strconv.FormatFloat(v, 'g', -1, 64), n, path)
		return nil
	}
}

func choice(flag string, allowed ...string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		if err := scalar(t, n, path, "!!str", "one of "+strings.Join(allowed, ", ")); err != nil {
			return err
		}
		for _, a := range allowed {
			if n.Value == a {
				t.add(flag, n.Value, n, path)
				return nil
			}
		}
		return t.errf(n, path, "%q is not one of %s", n.Value, strings.Join(allowed, ", "))
	}
}

// lowerChoice is choice with GenAI-Perf's case-insensitive enum values.
func lowerChoice(flag string, allowed ...string) handler {
	c := choice(flag, allowed...)
	return func(t *translator, n *yaml.Node, path string) error {
		cp := *n
		cp.Value = strings.ToLower(n.Value)
		return c(t, &cp, path)
	}
}

func remember(slot func(*translator) **yaml.Node) handler {
	return func(t *translator, n *yaml.Node, _ string) error {
		*slot(t) = n
		return nil
	}
}

func typed(want yaml.Node) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		return scalar(t, n, path, want.Tag, strings.TrimPrefix(want.Tag, "!!"))
	}
}

// onlyValue accepts GenAI-Perf's default (which changes nothing here) and
// refuses anything else.
func onlyValue(def, why string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		if n.Kind == yaml.ScalarNode && n.Value == def {
			return nil
		}
		return t.errf(n, path, "%s is not supported: %s (only the default %s is accepted)", describe(n), why, def)
	}
}

func mustBeEmpty(why string) handler {
	return func(t *translator, n *yaml.Node, path string) error {
		return t.errf(n, path, "%s is not supported: %s", describe(n), why)
	}
}

func modelNames(t *translator, n *yaml.Node, path string) error {
	var names []string
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		for _, s := range strings.Split(n.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				names = append(names, s)
			}
		}
	case n.Kind == yaml.SequenceNode:
		for _, it := range n.Content {
			if it.Kind != yaml.ScalarNode || it.Tag != "!!str" {
				return t.errf(it, path, "must be a string or a list of strings, got %s", describe(it))
			}
			names = append(names, it.Value)
		}
	default:
		return t.errf(n, path, "must be a string or a list of strings, got %s", describe(n))
	}
	if len(names) > 0 {
		t.add("model-names", strings.Join(names, ","), n, path)
	}
	return nil
}

// stimulus is GenAI-Perf's {concurrency: N} or {request_rate: R}.
func stimulus(t *translator, n *yaml.Node, path string) error {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		return t.errf(n, path, "must be a mapping with one key, concurrency or request_rate (e.g. {concurrency: 4})")
	}
	k, v := n.Content[0], n.Content[1]
	p := path + "." + k.Value
	switch k.Value {
	case "concurrency":
		c, err := nonNegInt(t, v, p)
		if err != nil {
			return err
		}
		if c < 1 {
			return t.errf(v, p, "must be at least 1, got %d", c)
		}
		t.add("concurrency", strconv.FormatInt(c, 10), v, p)
	case "request_rate":
		r, err := nonNegNumber(t, v, p)
		if err != nil {
			return err
		}
		if r <= 0 {
			return t.errf(v, p, "must be above 0, got %s", v.Value)
		}
		t.add("request-rate", strconv.FormatFloat(r, 'g', -1, 64), v, p)
	case "session_concurrency", "session_request_rate":
		return t.errf(k, p, "is not supported: perf_analyzer's session stimuli have no aiperf equivalent; use concurrency or request_rate with input.sessions")
	default:
		return t.errf(k, p, "unknown stimulus: not one of concurrency, request_rate, session_concurrency, session_request_rate")
	}
	return nil
}

// measurementInterval is perf_analyzer's window in milliseconds; aiperf
// measures one window of --benchmark-duration seconds.
func measurementInterval(t *translator, n *yaml.Node, path string) error {
	ms, err := nonNegInt(t, n, path)
	if err != nil {
		return err
	}
	if ms == 0 {
		return t.errf(n, path, "must be above 0 milliseconds")
	}
	t.add("benchmark-duration", strconv.FormatFloat(float64(ms)/1000, 'g', -1, 64), n, path)
	return nil
}

// extra is a mapping of input names to values, or "name:value" strings.
func extra(t *translator, n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Kind != yaml.ScalarNode {
				return t.errf(v, path+"."+k.Value, "must be a scalar value, got %s", describe(v))
			}
			t.add("extra-inputs", k.Value+":"+v.Value, v, path+"."+k.Value)
		}
		return nil
	default:
		return strList("extra-inputs")(t, n, path)
	}
}

// goodput is GenAI-Perf's mapping of metric to a non-negative number.
func goodput(t *translator, n *yaml.Node, path string) error {
	if n.Kind != yaml.MappingNode {
		return t.errf(n, path, "must be a mapping of metric: value (e.g. request_latency: 300)")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		val, err := nonNegNumber(t, v, path+"."+k.Value)
		if err != nil {
			return err
		}
		t.add("goodput", k.Value+":"+strconv.FormatFloat(val, 'g', -1, 64), v, path+"."+k.Value)
	}
	return nil
}

func inputFile(t *translator, n *yaml.Node, path string) error {
	if err := scalar(t, n, path, "!!str", "a path"); err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(n.Value, "synthetic:"):
		return t.errf(n, path, "%q is not supported: GenAI-Perf's synthetic: files (for multi-file converters) have no aiperf equivalent", n.Value)
	case strings.HasPrefix(n.Value, "payload:"):
		return t.errf(n, path, "%q is not supported: use input.file with a mooncake_trace file (aiperf --fixed-schedule) for timed payloads", n.Value)
	}
	t.add("input-file", n.Value, n, path)
	return nil
}

func profileExportFile(t *translator, n *yaml.Node, path string) error {
	if err := scalar(t, n, path, "!!str", "a file name"); err != nil {
		return err
	}
	// GenAI-Perf: intermediary paths belong in artifact_directory.
	if strings.ContainsAny(n.Value, `/\`) {
		return t.errf(n, path, "%q has a directory: use output.artifact_directory for it", n.Value)
	}
	t.add("profile-export-file", n.Value, n, path)
	return nil
}

func deterministic(t *translator, n *yaml.Node, path string) error {
	if err := scalar(t, n, path, "!!bool", "true or false"); err != nil {
		return err
	}
	if n.Value == "true" || n.Value == "True" || n.Value == "TRUE" {
		return t.errf(n, path, "true is not supported: GenAI-Perf sets it for Triton only (min_tokens); for OpenAI servers add input.extra {min_tokens: N, ignore_eos: true}")
	}
	return nil
}

// Sweep defaults are GenAI-Perf's AnalyzeDefaults.
var sweepDefaults = map[string][2]int64{
	"concurrency":           {1, 1024},
	"request_rate":          {16, 8192},
	"num_dataset_entries":   {100, 1000},
	"input_sequence_length": {100, 1000},
}

func analyze(t *translator, n *yaml.Node, path string) error {
	if n.Kind != yaml.MappingNode {
		return t.errf(n, path, "must be a mapping of sweep type to {start, stop, step}")
	}
	if len(n.Content) != 2 {
		return t.errf(n, path, "aiperf analyze sweeps one parameter; the file has %d", len(n.Content)/2)
	}
	k, v := n.Content[0], n.Content[1]
	p := path + "." + k.Value
	def, ok := sweepDefaults[k.Value]
	if !ok {
		if k.Value == "runtime_batch_size" {
			return t.errf(k, p, "is not supported: it sweeps Triton's runtime batch size")
		}
		return t.errf(k, p, "unknown sweep type: not one of concurrency, request_rate, input_sequence_length, num_dataset_entries")
	}
	start, stop, step := def[0], def[1], int64(0)
	if !isNull(v) {
		if v.Kind != yaml.MappingNode {
			return t.errf(v, p, "must be a mapping of start, stop and step")
		}
		for i := 0; i+1 < len(v.Content); i += 2 {
			kk, vv := v.Content[i], v.Content[i+1]
			pp := p + "." + kk.Value
			x, err := nonNegInt(t, vv, pp)
			if err != nil {
				return err
			}
			switch kk.Value {
			case "start":
				start = x
			case "stop":
				stop = x
			case "step":
				if x == 0 {
					return t.errf(vv, pp, "must be at least 1")
				}
				step = x
			default:
				return t.errf(kk, pp, "unknown key: not one of start, stop, step")
			}
		}
	}
	if stop < start {
		return t.errf(v, p, "stop %d is below start %d", stop, start)
	}
	t.command = "analyze"
	t.add("sweep-type", k.Value, k, p)
	t.add("sweep-min", strconv.FormatInt(start, 10), v, p+".start")
	t.add("sweep-max", strconv.FormatInt(stop, 10), v, p+".stop")
	if step > 0 {
		t.add("sweep-step", strconv.FormatInt(step, 10), v, p+".step")
	}
	return nil
}

// finish checks what depends on more than one key.
func (t *translator) finish() error {
	if err := t.endpoint(); err != nil {
		return err
	}
	if t.oslStd != nil && t.oslMean == nil {
		return t.errf(t.oslStd, "input.output_tokens.stddev", "needs input.output_tokens.mean (GenAI-Perf: if stddev is set, mean must also be set)")
	}
	if t.oslMean != nil {
		if err := integer("prompt-output-tokens-mean")(t, t.oslMean, "input.output_tokens.mean"); err != nil {
			return err
		}
	}
	if t.oslStd != nil {
		if err := number("prompt-output-tokens-stddev")(t, t.oslStd, "input.output_tokens.stddev"); err != nil {
			return err
		}
	}
	if err := t.measurement(); err != nil {
		return err
	}
	if t.checkpointDir != nil {
		if err := scalar(t, t.checkpointDir, "output.checkpoint_directory", "!!str", "a directory"); err != nil {
			return err
		}
		if t.command == "analyze" {
			t.add("checkpoint-dir", t.checkpointDir.Value, t.checkpointDir, "output.checkpoint_directory")
		}
	}
	return nil
}

// endpoint resolves service_kind, type and backend as GenAI-Perf infers
// them: aiperf speaks HTTP, so Triton's KServe gRPC and the TensorRT-LLM
// engine are refused unless --override-config replaces the type.
func (t *translator) endpoint() error {
	const tp = "endpoint.type"
	if t.overridden("endpoint-type") {
		return nil
	}
	kind := "triton" // GenAI-Perf's default service kind
	if t.serviceKind != nil {
		if err := choice("", "openai", "triton", "tensorrtllm_engine")(&translator{file: t.file}, t.serviceKind, "endpoint.service_kind"); err != nil {
			return err
		}
		kind = t.serviceKind.Value
	}
	typ := ""
	if t.typeNode != nil {
		if err := scalar(t, t.typeNode, tp, "!!str", "an endpoint type"); err != nil {
			return err
		}
		typ = t.typeNode.Value
	}
	if kind == "tensorrtllm_engine" || typ == "tensorrtllm_engine" {
		n := t.serviceKind
		if typ == "tensorrtllm_engine" {
			n = t.typeNode
		}
		return t.errf(n, "endpoint", "tensorrtllm_engine is not supported: it runs an in-process TensorRT-LLM engine; aiperf benchmarks HTTP servers")
	}
	if typ == "" {
		if kind == "openai" {
			return t.errf(t.serviceKind, "endpoint.service_kind", "openai needs endpoint.type (GenAI-Perf: type must be set when service_kind is 'openai')")
		}
		typ = "kserve"
	}
	switch typ {
	case "kserve", "dynamic_grpc":
		n := t.typeNode
		if n == nil {
			n = t.serviceKind
		}
		if n == nil {
			return &Error{File: t.file, Line: 1, Path: tp, Msg: "is not set, and GenAI-Perf's default (service_kind triton, type kserve: Triton gRPC) is not supported by aiperf, which speaks HTTP; set endpoint.type, e.g. chat"}
		}
		return t.errf(n, tp, "%s is not supported: it is Triton's gRPC protocol and aiperf speaks HTTP; use Triton's OpenAI-compatible frontend with type chat or completions (or give --override-config --endpoint-type)", typ)
	case "generate":
		typ = "huggingface_generate" // GenAI-Perf's "generate" is the /generate API
	case "multimodal":
		typ = "chat" // GenAI-Perf's multimodal is chat with image/audio parts
	case "image_retrieval", "nvclip":
		return t.errf(t.typeNode, tp, "%s is not supported by aiperf", typ)
	case "rankings":
		typ = "nim_rankings"
	}
	if len(t.opts.EndpointTypes) > 0 {
		known := false
		for _, e := range t.opts.EndpointTypes {
			known = known || e == typ
		}
		if !known {
			return t.errf(t.typeNode, tp, "%q is not an aiperf endpoint type (known: %s)", t.typeNode.Value, strings.Join(t.opts.EndpointTypes, ", "))
		}
	}
	if t.backendNode != nil {
		return t.errf(t.backendNode, "endpoint.backend", "%q applies to Triton's KServe endpoint only (GenAI-Perf refuses it with type %s); leave it empty", t.backendNode.Value, t.typeNode.Value)
	}
	t.add("endpoint-type", typ, t.typeNode, tp)
	return nil
}

// measurement maps perf_analyzer.measurement {mode, num}: request_count
// is --request-count; interval is a window of num milliseconds.
func (t *translator) measurement() error {
	const base = "perf_analyzer.measurement"
	mode := "request_count"
	if t.modeNode != nil {
		if err := scalar(t, t.modeNode, base+".mode", "!!str", "request_count or interval"); err != nil {
			return err
		}
		mode = strings.ToLower(t.modeNode.Value)
		if mode != "request_count" && mode != "interval" {
			return t.errf(t.modeNode, base+".mode", "%q is not one of request_count, interval", t.modeNode.Value)
		}
	}
	if t.numNode == nil {
		if mode == "interval" {
			// GenAI-Perf's inferred default: 10000 ms.
			t.add("benchmark-duration", "10", t.modeNode, base+".mode")
		}
		return nil
	}
	num, err := nonNegInt(t, t.numNode, base+".num")
	if err != nil {
		return err
	}
	if num == 0 {
		return t.errf(t.numNode, base+".num", "must be at least 1")
	}
	if mode == "interval" {
		t.add("benchmark-duration", strconv.FormatFloat(float64(num)/1000, 'g', -1, 64), t.numNode, base+".num")
		return nil
	}
	t.add("request-count", strconv.FormatInt(num, 10), t.numNode, base+".num")
	return nil
}
