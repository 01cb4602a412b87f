package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// EnvPluginPath lists extra manifest files or directories, separated
	// like PATH.
	EnvPluginPath = "AIPERF_PLUGIN_PATH"
	// ProjectManifest is the manifest aiperf picks up from the working
	// directory.
	ProjectManifest = "aiperf-plugins.yaml"
)

// Discovery says where to look for external manifests. Empty fields take
// the process's values (os.Getenv, os.UserHomeDir, os.Getwd); tests inject
// their own so they never read the real home directory.
type Discovery struct {
	Env     func(string) string
	HomeDir string
	WorkDir string
	// Extra are the --plugins FILE arguments, in the order given.
	Extra []string
}

// UserDir is the per-user manifest directory:
// $XDG_CONFIG_HOME/aiperf/plugins.d, else ~/.config/aiperf/plugins.d. It is
// "" when neither is known.
func (d Discovery) UserDir() string {
	if x := d.getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "aiperf", "plugins.d")
	}
	home := d.HomeDir
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "aiperf", "plugins.d")
}

// ManifestPaths returns the external manifest files in registration order,
// most specific first: --plugins (in the order given), AIPERF_PLUGIN_PATH
// (in order), ./aiperf-plugins.yaml, then the user directory (by name).
// Because the registry keeps the first of two external plugins with equal
// priority, a more specific source wins a tie: embedded < user dir <
// project < AIPERF_PLUGIN_PATH < --plugins. A file found twice is read
// once. A --plugins file that does not exist is an error; an
// AIPERF_PLUGIN_PATH entry that does not exist is a warning.
func (d Discovery) ManifestPaths() (paths, warnings []string, err error) {
	work := d.WorkDir
	if work == "" {
		if work, err = os.Getwd(); err != nil {
			return nil, nil, fmt.Errorf("plugin discovery: %w", err)
		}
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(work, p)
	}
	seen := map[string]bool{}
	add := func(files ...string) {
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				paths = append(paths, f)
			}
		}
	}
	for _, p := range d.Extra {
		files, err := manifestsAt(abs(p))
		if err != nil {
			return nil, nil, fmt.Errorf("--plugins %s: %w", p, err)
		}
		add(files...)
	}
	for _, p := range filepath.SplitList(d.getenv(EnvPluginPath)) {
		if strings.TrimSpace(p) == "" {
			continue
		}
		files, err := manifestsAt(abs(p))
		if errors.Is(err, fs.ErrNotExist) {
			warnings = append(warnings, fmt.Sprintf("%s: %s does not exist; skipped", EnvPluginPath, p))
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s entry %s: %w", EnvPluginPath, p, err)
		}
		add(files...)
	}
	if project := filepath.Join(work, ProjectManifest); isFile(project) {
		add(project)
	}
	if dir := d.UserDir(); dir != "" {
		files, err := manifestsAt(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("plugin directory %s: %w", dir, err)
		}
		add(files...)
	}
	return paths, warnings, nil
}

func (d Discovery) getenv(key string) string {
	if d.Env != nil {
		return d.Env(key)
	}
	return os.Getenv(key)
}

// manifestsAt returns path itself when it is a file, or the *.yaml and
// *.yml files directly inside it (by name) when it is a directory.
func manifestsAt(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		ext := filepath.Ext(e.Name())
		if ext != ".yaml" && ext != ".yml" {
			continue
		}
		if p := filepath.Join(path, e.Name()); isFile(p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// ParseManifestFiles parses external manifests in order. It returns every
// manifest that parsed (with the good entries of those that partly did)
// and, joined, every error, so a caller can stop (aiperf profile) or report
// them all (--validate).
func ParseManifestFiles(paths []string) ([]*Manifest, error) {
	var out []*Manifest
	var errs []error
	for _, p := range paths {
		m, err := ParseManifestFile(p)
		if err != nil {
			errs = append(errs, err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out, errors.Join(errs...)
}
