package template

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/jmespath-community/go-jmespath"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// namedTemplates are the templates a payload_template value may name
// (AIPerf's NAMED_TEMPLATES).
var namedTemplates = map[string]string{
	"nv-embedqa": `{"text": {{ texts|tojson }}}`,
}

// errNoTemplate is AIPerf's configuration error for a template endpoint
// without a template.
var errNoTemplate = errors.New("template is required when endpoint type is 'template' " +
	"(--extra-inputs payload_template:<template file, template text or nv-embedqa>)")

// settings is one compiled payload_template / response_field pair.
type settings struct {
	key  settingsKey
	name string // where the template came from, for errors
	tmpl *exec.Template
	// query is the compiled response_field; nil when it is absent or
	// "text", which means auto-detection.
	query jmespath.JMESPath
}

type settingsKey struct {
	template, responseField string
}

// settingsFor returns the compiled settings the extra inputs name, compiling
// them on first use.
func (e *Endpoint) settingsFor(extra map[string]any) (*settings, error) {
	key, err := keyOf(extra)
	if err != nil {
		return nil, err
	}
	if s := e.last.Load(); s != nil && s.key == key {
		return s, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.cache[key]
	if !ok {
		if s, err = compileSettings(key); err != nil {
			return nil, err
		}
		e.cache[key] = s
	}
	e.last.Store(s)
	return s, nil
}

func keyOf(extra map[string]any) (settingsKey, error) {
	raw, ok := extra[KeyPayloadTemplate]
	if !ok || raw == nil {
		return settingsKey{}, errNoTemplate
	}
	tmpl, ok := raw.(string)
	if !ok {
		return settingsKey{}, fmt.Errorf("--extra-inputs %s must be a string (a template file or template text), got %T", KeyPayloadTemplate, raw)
	}
	if tmpl == "" {
		return settingsKey{}, errNoTemplate
	}
	key := settingsKey{template: tmpl, responseField: "text"}
	if raw, ok := extra[KeyResponseField]; ok && raw != nil {
		field, ok := raw.(string)
		if !ok {
			return settingsKey{}, fmt.Errorf("--extra-inputs %s must be a JMESPath expression string, got %T", KeyResponseField, raw)
		}
		key.responseField = field
	}
	return key, nil
}

func compileSettings(key settingsKey) (*settings, error) {
	name, source := loadTemplate(key.template)
	tmpl, err := compileTemplate(name, source)
	if err != nil {
		return nil, err
	}
	s := &settings{key: key, name: name, tmpl: tmpl}
	// "text" (the default) means auto-detection, as in AIPerf.
	if key.responseField != "text" {
		if s.query, err = jmespath.Compile(key.responseField); err != nil {
			// AIPerf logs this and auto-detects; a typo would then go
			// unnoticed, so it is an error here, before anything is sent.
			return nil, fmt.Errorf("--extra-inputs %s %q is not a valid JMESPath expression: %w", KeyResponseField, key.responseField, err)
		}
	}
	return s, nil
}

// loadTemplate resolves a payload_template value as AIPerf does: the
// contents of the file it names (when it is a safe regular file), else the
// value itself; then a named template by that name; then, as AIPerf's
// endpoint tries the path once more, the file the result names. It returns
// a description of the source for errors, and the source.
func loadTemplate(value string) (name, source string) {
	name, source = "inline template", value
	if text, ok := readTemplateFile(value); ok {
		name, source = "file "+value, text
	}
	if named, ok := namedTemplates[source]; ok {
		return "named template " + source, named
	}
	if text, ok := readTemplateFile(source); ok {
		return "file " + source, text
	}
	return name, source
}

// readTemplateFile is AIPerf's safe_read_template_path: the UTF-8 text of
// path when it expands (~) to an existing regular file with no symlink in
// the path (the file or any parent as written); ok is false otherwise,
// meaning the value is a template itself. Line endings are normalised to
// "\n", as Python's text mode reads them.
func readTemplateFile(path string) (string, bool) {
	if path == "" || strings.ContainsRune(path, 0) {
		return "", false
	}
	if path == "~" || strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		path = home + path[1:]
	}
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", false
		}
		if parent := filepath.Dir(p); parent == p {
			break
		}
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil || !utf8.Valid(data) {
		return "", false
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n"), true
}
