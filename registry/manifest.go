package registry

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

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
	Path        string         `yaml:"path"`
	SHA256      string         `yaml:"sha256"`
	APIVersion  int            `yaml:"api_version"`
	// Source names the manifest the entry came from, for messages.
	Source string `yaml:"-"`
	// Dir is the manifest's directory: a relative Path is resolved from it.
	Dir string `yaml:"-"`
	// Limits and Grants configure WASM sandboxes (memory cap, per-call
	// deadline; filesystem or network access the manifest grants).
	Limits Limits `yaml:"limits"`
	Grants Grants `yaml:"grants"`
}

// Limits bound an external plugin.
type Limits struct {
	// MemoryMB caps a WASM instance's memory (0 = the loader's default).
	MemoryMB int `yaml:"memory_mb"`
	// CallTimeoutMS is the per-call deadline (0 = the loader's default).
	CallTimeoutMS int `yaml:"call_timeout_ms"`
}

// Grants open a WASM sandbox; nothing is granted by default.
type Grants struct {
	// ReadDirs are host directories mounted read-only at the same path.
	ReadDirs []string `yaml:"read_dirs"`
	// Network is reserved: WASM plugins get no sockets in this version.
	Network bool `yaml:"network"`
}

// ResolvedPath is Path made absolute against the manifest's directory.
func (e *Entry) ResolvedPath() string {
	if e.Path == "" || filepath.IsAbs(e.Path) || e.Dir == "" {
		return e.Path
	}
	return filepath.Join(e.Dir, e.Path)
}

// Manifest is a parsed plugins.yaml.
type Manifest struct {
	SchemaVersion string
	Entries       []*Entry
}

// Normalize turns a user-supplied plugin name into its registry key:
// lowercase, with '-' replaced by '_' (so my-endpoint == my_endpoint).
func Normalize(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
}

// ParseManifest parses a manifest. source names it in error messages. Unknown
// fields inside an entry are rejected so a typo cannot silently disable a
// setting.
func ParseManifest(data []byte, source string) (*Manifest, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(root.Content) == 0 {
		return &Manifest{}, nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: manifest must be a mapping of category -> plugins", source, top.Line)
	}
	m := &Manifest{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		if key.Value == "schema_version" {
			m.SchemaVersion = val.Value
			continue
		}
		category := Normalize(key.Value)
		if val.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: category %q must map plugin names to entries", source, val.Line, key.Value)
		}
		for j := 0; j+1 < len(val.Content); j += 2 {
			nameNode, entryNode := val.Content[j], val.Content[j+1]
			e, err := decodeEntry(entryNode)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s.%s: %w", source, entryNode.Line, category, nameNode.Value, err)
			}
			e.Category, e.Name, e.Source = category, Normalize(nameNode.Value), source
			if e.Kind == "" {
				e.Kind = KindBuiltin
			}
			switch e.Kind {
			case KindBuiltin, KindGRPC, KindWASM:
			default:
				return nil, fmt.Errorf("%s:%d: %s.%s: unknown kind %q (want builtin, grpc or wasm)", source, entryNode.Line, category, nameNode.Value, e.Kind)
			}
			m.Entries = append(m.Entries, e)
		}
	}
	return m, nil
}

func decodeEntry(n *yaml.Node) (*Entry, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(&buf)
	dec.KnownFields(true)
	e := &Entry{}
	if err := dec.Decode(e); err != nil {
		return nil, err
	}
	return e, nil
}
