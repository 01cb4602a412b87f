package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"gopkg.in/yaml.v3"
)

// Kind says how a plugin is loaded.
type Kind string

const (
	KindBuiltin Kind = "builtin"
	KindGRPC    Kind = "grpc"
	KindWASM    Kind = "wasm"
)

// Entry is one plugin declared by a manifest.
type Entry struct {
	Category    string         `yaml:"-"`
	Name        string         `yaml:"-"`
	Kind        Kind           `yaml:"kind"`
	Description string         `yaml:"description"`
	Priority    int            `yaml:"priority"`
	Metadata    map[string]any `yaml:"metadata"`
	// Config holds the plugin's own settings (sdk.Configurable); flags and
	// --plugin-config values override them. Keys are checked strictly by
	// the plugin host before the run.
	Config     map[string]any `yaml:"config"`
	Path       string         `yaml:"path"`
	SHA256     string         `yaml:"sha256"`
	APIVersion int            `yaml:"api_version"`
	// Source names the manifest the entry came from, for messages.
	Source string `yaml:"-"`
	// Dir is the manifest's directory: a relative Path is resolved from it.
	Dir string `yaml:"-"`
	// Limits and Grants configure WASM sandboxes (memory cap, per-call
	// deadline; filesystem or network access the manifest grants).
	Limits Limits `yaml:"limits"`
	Grants Grants `yaml:"grants"`

	// line is where the entry starts in its manifest, for messages.
	line int
}

// Limits bound an external plugin.
type Limits struct {
	// MemoryMB caps a WASM instance's memory (0 = the loader's default).
	MemoryMB int `yaml:"memory_mb" json:"memory_mb,omitempty"`
	// CallTimeoutMS is the per-call deadline (0 = the loader's default).
	CallTimeoutMS int `yaml:"call_timeout_ms" json:"call_timeout_ms,omitempty"`
}

// Grants open a WASM sandbox; nothing is granted by default.
type Grants struct {
	// ReadDirs are host directories mounted read-only at the same path.
	ReadDirs []string `yaml:"read_dirs" json:"read_dirs,omitempty"`
	// Network is reserved: WASM plugins get no sockets in this version.
	Network bool `yaml:"network" json:"network,omitempty"`
}

// ResolvedPath is Path made absolute against the manifest's directory.
func (e *Entry) ResolvedPath() string {
	if e.Path == "" || filepath.IsAbs(e.Path) || e.Dir == "" {
		return e.Path
	}
	return filepath.Join(e.Dir, e.Path)
}

// Where names the entry and the manifest line it comes from, for messages.
func (e *Entry) Where() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %s.%s", e.Source, e.line, e.Category, e.Name)
	}
	return fmt.Sprintf("%s: %s.%s", e.Source, e.Category, e.Name)
}

// Manifest is a parsed plugins.yaml.
type Manifest struct {
	SchemaVersion string
	// Name and Description label the manifest in `aiperf plugins` (optional
	// top-level keys); Name defaults to Source.
	Name        string
	Description string
	// Source names the manifest in messages (a file path for external ones).
	Source string
	// Dir is the manifest's directory (external manifests only).
	Dir string
	// External is true for manifests read from files (not the embedded one):
	// their entries must be grpc or wasm plugins.
	External bool
	Entries  []*Entry
}

// Top-level manifest keys that are not categories.
const (
	keySchemaVersion = "schema_version"
	keyName          = "name"
	keyDescription   = "description"
)

// Names of the validation checks (see ValidateAll). A ManifestError carries
// the one its problem belongs to.
const (
	CheckSchema   = "Manifest schema"
	CheckNames    = "Plugin names"
	CheckKinds    = "Categories and kinds"
	CheckBuiltins = "Built-ins match compiled code"
	CheckFiles    = "External files and checksums"
	CheckAPI      = "API versions"
	CheckLive     = "Live load"
)

// ManifestError is one problem found while parsing a manifest.
type ManifestError struct {
	Source string
	Line   int
	// Check is the validation check the problem belongs to (CheckSchema,
	// CheckNames or CheckKinds).
	Check string
	Err   error
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Source, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Source, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// Normalize turns a user-supplied plugin name into its registry key
// (sdk.NormalizeName: lowercase, '-' -> '_').
func Normalize(name string) string { return sdk.NormalizeName(name) }

// ParseManifest parses a manifest. source names it in error messages. Unknown
// fields inside an entry are rejected so a typo cannot silently disable a
// setting. Every bad entry is reported (errors.Join of *ManifestError), not
// just the first.
func ParseManifest(data []byte, source string) (*Manifest, error) {
	return parseManifest(data, source, false)
}

// ParseManifestFile reads an external manifest. A relative plugin path in it
// resolves against the manifest's directory. Its entries must declare kind
// grpc or wasm, a path and an api_version: built-in plugins come only from
// the embedded manifest.
func ParseManifestFile(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plugin manifest: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("plugin manifest %s: %w", path, err)
	}
	m, err := parseManifest(data, path, true)
	if m != nil {
		m.Dir = filepath.Dir(abs)
		for _, e := range m.Entries {
			e.Dir = m.Dir
		}
	}
	return m, err
}

func parseManifest(data []byte, source string, external bool) (*Manifest, error) {
	m := &Manifest{Source: source, External: external}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, &ManifestError{Source: source, Check: CheckSchema, Err: err}
	}
	if len(root.Content) == 0 {
		return m, nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, &ManifestError{Source: source, Line: top.Line, Check: CheckSchema, Err: errors.New("manifest must be a mapping of category -> plugins")}
	}
	var errs []error
	fail := func(line int, check string, format string, args ...any) {
		errs = append(errs, &ManifestError{Source: source, Line: line, Check: check, Err: fmt.Errorf(format, args...)})
	}
	// seen maps category.normalized_name to the line that first declared it,
	// so "my-ep" and "my_ep" in one file are caught.
	seen := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		switch key.Value {
		case keySchemaVersion, keyName, keyDescription:
			if val.Kind != yaml.ScalarNode {
				fail(val.Line, CheckSchema, "%s must be a string", key.Value)
				continue
			}
			switch key.Value {
			case keySchemaVersion:
				m.SchemaVersion = val.Value
			case keyName:
				m.Name = val.Value
			default:
				m.Description = val.Value
			}
			continue
		}
		category := Normalize(key.Value)
		if val.Kind != yaml.MappingNode {
			fail(val.Line, CheckSchema, "category %q must map plugin names to entries", key.Value)
			continue
		}
		for j := 0; j+1 < len(val.Content); j += 2 {
			nameNode, entryNode := val.Content[j], val.Content[j+1]
			where := category + "." + nameNode.Value
			e, err := decodeEntry(entryNode)
			if err != nil {
				line := entryNode.Line
				if fe := (*fieldError)(nil); errors.As(err, &fe) {
					line = fe.line
				}
				fail(line, CheckSchema, "%s: %w", where, err)
				continue
			}
			e.Category, e.Name, e.Source, e.line = category, Normalize(nameNode.Value), source, entryNode.Line
			if first, dup := seen[category+"."+e.Name]; dup {
				fail(nameNode.Line, CheckNames, "%s: duplicate plugin name: normalizes to %q, already declared at line %d", where, e.Name, first)
				continue
			}
			seen[category+"."+e.Name] = nameNode.Line
			if ok := checkKind(e, external, func(check, format string, args ...any) {
				fail(entryNode.Line, check, "%s: "+format, append([]any{where}, args...)...)
			}); !ok {
				continue
			}
			m.Entries = append(m.Entries, e)
		}
	}
	return m, errors.Join(errs...)
}

// checkKind validates (and defaults) an entry's kind and the fields an
// external plugin needs, reporting through fail. It returns false when the
// entry is unusable.
func checkKind(e *Entry, external bool, fail func(check, format string, args ...any)) bool {
	if e.Kind == "" && !external {
		e.Kind = KindBuiltin
	}
	switch e.Kind {
	case KindGRPC, KindWASM:
	case KindBuiltin:
		if external {
			fail(CheckKinds, "kind builtin is reserved for plugins compiled into aiperf; an external manifest declares kind grpc or wasm")
			return false
		}
	case "":
		fail(CheckSchema, "kind is required in an external manifest (grpc or wasm)")
		return false
	default:
		fail(CheckSchema, "unknown kind %q (want builtin, grpc or wasm)", e.Kind)
		return false
	}
	if e.Kind == KindBuiltin {
		return true
	}
	ok := true
	if external && strings.TrimSpace(e.Path) == "" {
		fail(CheckSchema, "path is required for a %s plugin (the executable or .wasm file)", e.Kind)
		ok = false
	}
	if external && e.APIVersion == 0 {
		fail(CheckSchema, "api_version is required for a %s plugin (this aiperf speaks plugin API v%d)", e.Kind, sdk.APIVersion)
		ok = false
	}
	return ok
}

func decodeEntry(n *yaml.Node) (*Entry, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return &Entry{}, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, errors.New("entry must be a mapping (kind, description, ...)")
	}
	// Unknown keys are checked by hand: yaml.v3 rejects them only through
	// a Decoder, which costs a re-encode of every entry.
	if err := checkKnownFields(n, reflect.TypeFor[Entry]()); err != nil {
		return nil, err
	}
	e := &Entry{}
	if err := n.Decode(e); err != nil {
		return nil, err
	}
	return e, nil
}

// fieldError is an unknown key, with its own line.
type fieldError struct {
	line int
	msg  string
}

func (e *fieldError) Error() string { return e.msg }

// checkKnownFields rejects mapping keys that are not yaml fields of t,
// recursively for struct-typed fields (limits, grants).
func checkKnownFields(n *yaml.Node, t reflect.Type) error {
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" && f.IsExported() {
			fields[name] = f.Type
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		ft, ok := fields[key]
		if !ok {
			valid := make([]string, 0, len(fields))
			for k := range fields {
				valid = append(valid, k)
			}
			sort.Strings(valid)
			return &fieldError{line: n.Content[i].Line, msg: fmt.Sprintf("unknown field %q (valid: %s)", key, strings.Join(valid, ", "))}
		}
		if err := checkKnownFields(n.Content[i+1], ft); err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				fe.msg = key + ": " + fe.msg
			}
			return err
		}
	}
	return nil
}
