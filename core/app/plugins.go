package app

import (
	"errors"

	"github.com/aiperf-go/aiperf/registry"
)

// EmbeddedManifestSource names the embedded plugins.yaml in messages.
const EmbeddedManifestSource = "plugins.yaml (embedded)"

// RegistryOptions say where LoadRegistry looks for plugin manifests and
// which loaders it installs. Zero values take the process's environment,
// home and working directory; tests inject their own.
type RegistryOptions struct {
	// Builtins and Manifest are the distribution: the built-in plugins this
	// binary carries and the manifest declaring them (cmd/aiperf picks
	// both; the core never names a plugin).
	Builtins registry.Builtins
	Manifest []byte
	// ExtraManifests are the --plugins FILE arguments, in order.
	ExtraManifests []string
	// Env reads environment variables (AIPERF_PLUGIN_PATH,
	// XDG_CONFIG_HOME); nil means os.Getenv.
	Env              func(string) string
	HomeDir, WorkDir string
	// Loaders instantiate external plugins, one per kind (grpc, wasm).
	Loaders map[registry.Kind]registry.Loader
	// Lenient keeps going past broken manifests and refused entries,
	// keeping them for (*registry.Registry).ValidateAll: what
	// `aiperf plugins --validate` needs to report every problem.
	Lenient bool
}

// LoadRegistry discovers the plugin manifests (embedded < user dir <
// ./aiperf-plugins.yaml < AIPERF_PLUGIN_PATH < --plugins), builds the
// registry over the built-in constructors and installs the loaders. The
// warnings are non-fatal notes (skipped AIPERF_PLUGIN_PATH entries, equal
// priority conflicts) for the caller to print.
func LoadRegistry(opts RegistryOptions) (*registry.Registry, []string, error) {
	var broken []error
	if len(opts.Manifest) == 0 {
		return nil, nil, errors.New("no built-in plugin manifest given")
	}
	embedded, err := registry.ParseManifest(opts.Manifest, EmbeddedManifestSource)
	if err != nil {
		if !opts.Lenient || embedded == nil {
			return nil, nil, err
		}
		broken = append(broken, err)
	}
	embedded.Name = registry.BuiltinPackage
	disc := registry.Discovery{Env: opts.Env, HomeDir: opts.HomeDir, WorkDir: opts.WorkDir, Extra: opts.ExtraManifests}
	paths, warnings, err := disc.ManifestPaths()
	if err != nil {
		return nil, nil, err
	}
	external, err := registry.ParseManifestFiles(paths)
	manifests := append([]*registry.Manifest{embedded}, external...)
	var reg *registry.Registry
	if opts.Lenient {
		reg = registry.NewLenient(opts.Builtins, manifests, append(broken, err)...)
	} else {
		if err != nil {
			return nil, nil, err
		}
		if reg, err = registry.New(opts.Builtins, manifests...); err != nil {
			return nil, nil, err
		}
	}
	for kind, l := range opts.Loaders {
		reg.SetLoader(kind, l)
	}
	return reg, append(warnings, reg.Warnings...), nil
}
