package template

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
	u "github.com/nikolalohinski/gonja/v2/utils"
)

// noneName is the name the None literal evaluates as (see adaptTree).
const noneName = "none"

// printFilter is the filter every {{ }} output is wrapped in (see adaptTree).
const printFilter = "aiperf_print"

// environment is AIPerf's jinja2.Environment(autoescape=True): gonja's
// builtins with Jinja's printing and tojson. Its filter set is a copy, so
// gonja's global defaults stay untouched. Shared by every template;
// rendering only reads it.
var environment = func() *exec.Environment {
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(builtins.Filters)
	if err := filters.Replace("tojson", filterToJSON); err != nil {
		panic(err)
	}
	if err := filters.Replace("join", filterJoin); err != nil {
		panic(err)
	}
	for _, name := range []string{"default", "d"} {
		if err := filters.Replace(name, filterDefault); err != nil {
			panic(err)
		}
	}
	if err := filters.Register(printFilter, filterPrint); err != nil {
		panic(err)
	}
	tests := exec.NewTestSet(map[string]exec.TestFunction{}).Update(builtins.Tests)
	for name, fn := range map[string]exec.TestFunction{"defined": testDefined, "undefined": testUndefined, "none": testNone} {
		if err := tests.Replace(name, fn); err != nil {
			panic(err)
		}
	}
	// Jinja's none/None literal is Python's None; gonja has no "none"
	// literal and evaluates None to an undefined value (see adaptTree).
	context := exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables)
	context.Set(noneName, pyNone)
	return &exec.Environment{
		Context:           context,
		Filters:           filters,
		Tests:             tests,
		ControlStructures: builtins.ControlStructures,
		Methods:           builtins.Methods,
	}
}()

func templateConfig() *config.Config {
	cfg := config.New()
	cfg.AutoEscape = true
	return cfg
}

// compileTemplate parses a template. name says where it came from (a file
// path, a named template or "inline") and leads every error.
func compileTemplate(name, source string) (*exec.Template, error) {
	const id = "/payload_template"
	t, err := exec.NewTemplate(id, templateConfig(), sourceLoader{id: id, source: source}, environment)
	if err != nil {
		return nil, fmt.Errorf("payload_template %s: %s", name, syntaxErrorText(err, source))
	}
	adaptTree(t.Root())
	return t, nil
}

// syntaxErrorText says what is wrong and on which line, without repeating
// the whole template source as gonja's message does.
func syntaxErrorText(err error, source string) string {
	var se *parser.SyntaxError
	if !errors.As(err, &se) {
		if inner := errors.Unwrap(err); inner != nil {
			return "invalid template: " + inner.Error()
		}
		return "invalid template: " + err.Error()
	}
	line := se.Line
	if line == 0 {
		// gonja reports errors at the end of input without a position.
		line = strings.Count(strings.TrimSuffix(source, "\n"), "\n") + 1
		return fmt.Sprintf("invalid template: line %d (end of template): %s", line, se.Message)
	}
	return fmt.Sprintf("invalid template: line %d column %d near %q: %s", line, se.Column, se.Raw, se.Message)
}

// render executes the template with vars.
func render(t *exec.Template, vars map[string]any) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, exec.NewContext(vars)); err != nil {
		return "", renderError(err)
	}
	return b.String(), nil
}

var (
	lineRe = regexp.MustCompile(`at line (\d+)`)
	// filterRe is gonja's wrapping of a filter's error, which prints the
	// whole filter call node.
	filterRe = regexp.MustCompile(`unable to evaluate filter &\{<Token[^>]*> (\w+) .*?\}: (?:invalid call to filter '\w+': )?`)
)

// renderError shortens gonja's chain of wrapped errors (which repeats the
// filter calls this package adds) to the template line and the cause.
func renderError(err error) error {
	cause := err
	for next := errors.Unwrap(cause); next != nil; next = errors.Unwrap(cause) {
		cause = next
	}
	msg := filterRe.ReplaceAllStringFunc(cause.Error(), func(s string) string {
		if name := filterRe.FindStringSubmatch(s)[1]; name != printFilter {
			return "filter " + name + ": "
		}
		return ""
	})
	if m := lineRe.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("line %s: %s", m[1], msg)
	}
	return errors.New(msg)
}

// filterPrint is Jinja's printing of {{ }} with autoescape: Python's str()
// of the value (None, True, float and list/dict reprs), HTML-escaped unless
// the value is safe (tojson, |safe, |e). gonja alone prints None as "" and
// escapes only strings.
func filterPrint(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	s := pyStr(in)
	if !in.Safe {
		s = u.Escape(s) // & < > " ' as &amp; &lt; &gt; &#34; &#39;, like markupsafe
	}
	return exec.AsSafeValue(s)
}

// filterDefault is Jinja's default(value, default_value="", boolean=False):
// only an undefined value is replaced (a false one too with boolean); None
// is kept. gonja replaces None as well.
func filterDefault(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	def, boolean := exec.AsValue(""), false
	if len(params.Args) > 0 {
		def = params.Args[0]
	}
	if v, ok := params.KwArgs["default_value"]; ok {
		def = v
	}
	if len(params.Args) > 1 {
		boolean = params.Args[1].IsTrue()
	}
	if v, ok := params.KwArgs["boolean"]; ok {
		boolean = v.IsTrue()
	}
	if isUndefined(in) || boolean && !in.IsTrue() {
		return def
	}
	return in
}

// Jinja's defined, undefined and none tests: None is defined, and an
// undefined value is not none (gonja treats both as nil).
func testDefined(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return !isUndefined(in) && !in.IsError(), nil
}

func testUndefined(ctx *exec.Context, in *exec.Value, params *exec.VarArgs) (bool, error) {
	defined, err := testDefined(ctx, in, params)
	return !defined, err
}

func testNone(_ *exec.Context, in *exec.Value, _ *exec.VarArgs) (bool, error) {
	return isNone(in), nil
}

// gonjaJoin is gonja's join filter, which filterJoin wraps.
var gonjaJoin, _ = builtins.Filters.Get("join")

// filterJoin is Jinja's join under autoescape: the items are escaped (and
// the result marked safe) only when one of them is safe markup; otherwise
// it is a plain join, escaped when printed and raw in tojson. gonja always
// escapes the items, so texts|join(" ")|tojson would send escaped text.
func filterJoin(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if e.Config.AutoEscape && !hasSafeItem(in) {
		cfg := *e.Config
		cfg.AutoEscape = false
		plain := *e
		plain.Config = &cfg
		return gonjaJoin(&plain, in, params)
	}
	return gonjaJoin(e, in, params)
}

func hasSafeItem(in *exec.Value) bool {
	if in.IsError() || !in.IsList() {
		return false
	}
	safe := false
	in.Iterate(func(_, _ int, item, _ *exec.Value) bool {
		safe = item.Safe
		return !safe
	}, func() {})
	return safe
}

// adaptTree gives the parsed template Jinja's semantics where gonja's
// differ:
//   - every {{ expr }} prints through printFilter;
//   - the None literal becomes the name "none", which is Python's None
//     (gonja evaluates it to an undefined value, which prints as "" and
//     which tojson rejects).
//
// It walks the exported fields of the tree (template, blocks, macros,
// if/for/with/call/autoescape bodies); a {% filter %} or {% set %}...
// {% endset %} body is out of its reach and keeps gonja's printing (None as
// "", non-string values unescaped).
func adaptTree(root *nodes.Template) {
	seen := map[uintptr]bool{}
	tokenType := reflect.TypeFor[*tokens.Token]()
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type() == tokenType || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			if out, ok := v.Interface().(*nodes.Output); ok {
				out.Expression = printed(out.Expression)
				if out.Alternative != nil {
					out.Alternative = printed(out.Alternative)
				}
			}
			walk(v.Elem())
		case reflect.Interface:
			if v.IsNil() {
				return
			}
			if n, ok := v.Interface().(*nodes.None); ok && v.CanSet() {
				v.Set(reflect.ValueOf(noneNode(n)))
				return
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				if n, ok := it.Value().Interface().(*nodes.None); ok {
					v.SetMapIndex(it.Key(), reflect.ValueOf(noneNode(n)))
					continue
				}
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(root))
}

// noneNode is a None literal as the name noneName.
func noneNode(n *nodes.None) nodes.Expression {
	tok := tokens.Token{Type: tokens.Name, Val: noneName}
	if n.Location != nil {
		tok.Pos, tok.Line, tok.Col = n.Location.Pos, n.Location.Line, n.Location.Col
	}
	return &nodes.Name{Name: &tok}
}

func printed(e nodes.Expression) nodes.Expression {
	return &nodes.FilteredExpression{Expression: e, Filters: []*nodes.FilterCall{{
		Token: e.Position(), Name: printFilter, Kwargs: map[string]nodes.Expression{},
	}}}
}

// sourceLoader serves the one template source. Like a jinja2.Environment
// without a loader, it can include, import or extend nothing else.
type sourceLoader struct {
	id, source string
}

func (l sourceLoader) Read(path string) (io.Reader, error) {
	if path != l.id {
		return nil, fmt.Errorf("cannot load template %q: payload templates cannot include, import or extend other templates", path)
	}
	return strings.NewReader(l.source), nil
}

func (l sourceLoader) Resolve(path string) (string, error) { return path, nil }

func (l sourceLoader) Inherit(string) (loaders.Loader, error) { return l, nil }
