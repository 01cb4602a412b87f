package registry

import (
	"sort"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// BuiltinPackage labels the embedded manifest in `aiperf plugins`.
const BuiltinPackage = "aiperf (built-in)"

// builtinDescription describes the embedded manifest when it has none.
const builtinDescription = "Plugins compiled into aiperf"

// PackageInfo is one row of `aiperf plugins`: one manifest.
type PackageInfo struct {
	Package string `json:"package"`
	Source  string `json:"source"`
	// APIVersions are the plugin API versions its entries declare (sorted).
	APIVersions []int  `json:"api_versions"`
	Plugins     int    `json:"plugins"`
	Description string `json:"description"`
}

// CategoryInfo is one row of `aiperf plugins --all`.
type CategoryInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Cardinality string `json:"cardinality"`
	Kinds       []Kind `json:"kinds"`
	Plugins     int    `json:"plugins"`
}

// PluginInfo is `aiperf plugins <category> <name>`, and one row of
// `aiperf plugins <category>`.
type PluginInfo struct {
	Type        string         `json:"type"`
	Category    string         `json:"category"`
	Kind        Kind           `json:"kind"`
	Package     string         `json:"package"`
	Source      string         `json:"source"`
	Path        string         `json:"path,omitempty"`
	SHA256      string         `json:"sha256,omitempty"`
	APIVersion  int            `json:"api_version"`
	Priority    int            `json:"priority"`
	Description string         `json:"description"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Config      map[string]any `json:"config,omitempty"`
	Limits      *Limits        `json:"limits,omitempty"`
	Grants      *Grants        `json:"grants,omitempty"`
}

// Manifests lists the manifests the registry was built from, in
// registration order.
func (r *Registry) Manifests() []*Manifest {
	return append([]*Manifest(nil), r.manifests...)
}

// PackageName labels a manifest: its name key, else its file path, else
// BuiltinPackage for the embedded one.
func PackageName(m *Manifest) string {
	switch {
	case m.Name != "":
		return m.Name
	case m.External:
		return m.Source
	default:
		return BuiltinPackage
	}
}

// PackageOf labels the manifest an entry came from.
func (r *Registry) PackageOf(e *Entry) string {
	if m := r.bySource[e.Source]; m != nil {
		return PackageName(m)
	}
	return e.Source
}

// Packages lists one PackageInfo per manifest, in registration order.
func (r *Registry) Packages() []PackageInfo {
	out := make([]PackageInfo, 0, len(r.manifests))
	for _, m := range r.manifests {
		p := PackageInfo{Package: PackageName(m), Source: m.Source, Plugins: len(m.Entries), Description: m.Description, APIVersions: []int{}}
		seen := map[int]bool{}
		for _, e := range m.Entries {
			v := entryAPIVersion(e)
			if !seen[v] {
				seen[v] = true
				p.APIVersions = append(p.APIVersions, v)
			}
		}
		if !m.External {
			if p.Description == "" {
				p.Description = builtinDescription
			}
			if len(p.APIVersions) == 0 {
				p.APIVersions = []int{sdk.APIVersion}
			}
		}
		sort.Ints(p.APIVersions)
		out = append(out, p)
	}
	return out
}

// CategoryInfos lists every category of the contract with its plugin count,
// in the contract's order.
func (r *Registry) CategoryInfos() []CategoryInfo {
	out := make([]CategoryInfo, 0, len(sdk.Categories))
	for _, c := range sdk.Categories {
		out = append(out, CategoryInfo{
			Name: c.Name, Description: c.Description, Cardinality: string(c.Cardinality),
			Kinds: AllowedKinds(c.Name), Plugins: len(r.order[c.Name]),
		})
	}
	return out
}

// Info describes an entry for `aiperf plugins`.
func (r *Registry) Info(e *Entry) PluginInfo {
	p := PluginInfo{
		Type: e.Name, Category: e.Category, Kind: e.Kind, Package: r.PackageOf(e), Source: e.Source,
		Path: e.ResolvedPath(), SHA256: e.SHA256, APIVersion: entryAPIVersion(e), Priority: e.Priority,
		Description: e.Description, Metadata: e.Metadata, Config: e.Config,
	}
	if e.Limits != (Limits{}) {
		l := e.Limits
		p.Limits = &l
	}
	if len(e.Grants.ReadDirs) > 0 || e.Grants.Network {
		g := e.Grants
		p.Grants = &g
	}
	return p
}

// entryAPIVersion is the API version an entry speaks: built-ins are
// compiled against this contract.
func entryAPIVersion(e *Entry) int {
	if e.Kind == KindBuiltin && e.APIVersion == 0 {
		return sdk.APIVersion
	}
	return e.APIVersion
}
