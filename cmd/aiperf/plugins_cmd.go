package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

// pluginLoaders supplies the loaders of external plugin kinds (grpc, wasm)
// for `aiperf plugins` (live validation). Tests install fakes.
var pluginLoaders = func() map[registry.Kind]registry.Loader {
	return app.ExternalLoaders(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}

func newPluginsCmd() *cobra.Command {
	var all, validate, asJSON bool
	var manifests []string
	cmd := &cobra.Command{
		Use:   "plugins [category] [name]",
		Short: "Explore plugins: aiperf plugins [category] [name]",
		Long: "List installed plugin packages (manifests), the plugins of a category, or one plugin's details.\n" +
			"Manifests are read from the embedded plugins.yaml, ~/.config/aiperf/plugins.d/*.yaml,\n" +
			"./aiperf-plugins.yaml, AIPERF_PLUGIN_PATH and --plugins FILE.",
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := registryOptions(manifests...)
			opts.Loaders, opts.Lenient = pluginLoaders(), validate
			reg, warnings, err := app.LoadRegistry(opts)
			if err != nil {
				return err
			}
			defer func() {
				if err := reg.Close(); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "Warning:", err)
				}
			}()
			v := pluginsView{out: cmd.OutOrStdout(), reg: reg, json: asJSON}
			if validate {
				return v.validate(cmd.Context(), warnings)
			}
			for _, w := range warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "Warning:", w)
			}
			switch {
			case len(args) == 2:
				return v.plugin(registry.Normalize(args[0]), args[1])
			case len(args) == 1:
				return v.category(registry.Normalize(args[0]))
			case all:
				return v.categories()
			default:
				return v.packages()
			}
		},
	}
	cmd.Flags().BoolVarP(&all, "all", "a", false, "Show every plugin category with its plugin count")
	cmd.Flags().BoolVarP(&validate, "validate", "v", false, "Validate manifests, built-ins, external plugin files and checksums, and load every external plugin")
	cmd.Flags().BoolVar(&asJSON, "json", false, "Print JSON instead of tables")
	cmd.Flags().StringArrayVar(&manifests, "plugins", nil, "Plugin manifest FILE (or directory of *.yaml) to add; repeatable, later ones after earlier ones")
	return cmd
}

// pluginsView renders one `aiperf plugins` view as a table or as JSON.
type pluginsView struct {
	out  io.Writer
	reg  *registry.Registry
	json bool
}

func (v pluginsView) writeJSON(x any) error {
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(v.out, "%s\n", b)
	return err
}

func (v pluginsView) table(title string, header string, rows [][]string) error {
	fmt.Fprintln(v.out, title)
	tw := tabwriter.NewWriter(v.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func (v pluginsView) packages() error {
	pkgs := v.reg.Packages()
	if v.json {
		return v.writeJSON(struct {
			Packages []registry.PackageInfo `json:"packages"`
		}{pkgs})
	}
	rows := make([][]string, 0, len(pkgs))
	for _, p := range pkgs {
		vs := make([]string, len(p.APIVersions))
		for i, n := range p.APIVersions {
			vs[i] = "v" + strconv.Itoa(n)
		}
		rows = append(rows, []string{p.Package, strings.Join(vs, ", "), strconv.Itoa(p.Plugins), p.Description})
	}
	return v.table("Installed Packages", "PACKAGE\tVERSION\tPLUGINS\tDESCRIPTION", rows)
}

func (v pluginsView) categories() error {
	cats := v.reg.CategoryInfos()
	if v.json {
		return v.writeJSON(struct {
			Categories []registry.CategoryInfo `json:"categories"`
		}{cats})
	}
	rows := make([][]string, 0, len(cats))
	for _, c := range cats {
		kinds := make([]string, len(c.Kinds))
		for i, k := range c.Kinds {
			kinds[i] = string(k)
		}
		rows = append(rows, []string{c.Name, strconv.Itoa(c.Plugins), strings.Join(kinds, ", "), c.Description})
	}
	return v.table("Plugin Categories", "CATEGORY\tPLUGINS\tKINDS\tDESCRIPTION", rows)
}

// category lists a category's plugins in declaration order: the order
// "many" categories run in.
func (v pluginsView) category(category string) error {
	if _, ok := sdk.LookupCategory(category); !ok {
		_, err := v.reg.Resolve(category, "")
		return err // names the valid categories
	}
	infos := []registry.PluginInfo{}
	for _, e := range v.reg.Entries(category) {
		infos = append(infos, v.reg.Info(e))
	}
	if v.json {
		return v.writeJSON(struct {
			Category string                `json:"category"`
			Plugins  []registry.PluginInfo `json:"plugins"`
		}{category, infos})
	}
	rows := make([][]string, 0, len(infos))
	for _, p := range infos {
		rows = append(rows, []string{p.Type, string(p.Kind), p.Package, p.Description})
	}
	return v.table("Plugins in "+category, "NAME\tKIND\tSOURCE\tDESCRIPTION", rows)
}

func (v pluginsView) plugin(category, name string) error {
	e, err := v.reg.Resolve(category, name)
	if err != nil {
		return err
	}
	p := v.reg.Info(e)
	p.Config = config.RedactSettings(p.Config)
	if v.json {
		return v.writeJSON(p)
	}
	line := func(label, value string) {
		if value == "" {
			value = "-"
		}
		fmt.Fprintf(v.out, "%-13s%s\n", label+":", value)
	}
	line("Type", p.Type)
	line("Category", p.Category)
	line("Kind", string(p.Kind))
	line("Package", p.Package)
	line("Source", p.Source)
	line("Path", p.Path)
	line("SHA256", p.SHA256)
	line("API version", strconv.Itoa(p.APIVersion))
	line("Priority", strconv.Itoa(p.Priority))
	line("Description", p.Description)
	if p.Limits != nil {
		line("Limits", fmt.Sprintf("memory_mb=%d call_timeout_ms=%d", p.Limits.MemoryMB, p.Limits.CallTimeoutMS))
	}
	if p.Grants != nil {
		line("Grants", fmt.Sprintf("read_dirs=%s network=%t", strings.Join(p.Grants.ReadDirs, ","), p.Grants.Network))
	}
	v.mapping(line, "Metadata", p.Metadata)
	v.mapping(line, "Config", p.Config)
	if category == sdk.CategoryEndpoint {
		v.endpointDetails(e, line)
	}
	return nil
}

// mapping prints a manifest mapping (metadata, config) one key a line.
func (v pluginsView) mapping(line func(label, value string), label string, m map[string]any) {
	if len(m) == 0 {
		line(label, "")
		return
	}
	fmt.Fprintln(v.out, label+":")
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(v.out, "  %s: %s\n", k, metadataValue(m[k]))
	}
}

// metadataValue prints scalars as they are and anything nested as JSON
// (encoding/json sorts map keys, so the output is stable).
func metadataValue(x any) string {
	switch x.(type) {
	case map[string]any, []any:
		if b, err := json.Marshal(x); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(x)
}

// validate prints one line per check, AIPerf style, and exits 1 on any
// failure.
func (v pluginsView) validate(ctx context.Context, warnings []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	checks := v.reg.ValidateAll(ctx, registry.ValidateOptions{Live: true})
	passed := registry.Passed(checks)
	if v.json {
		if warnings == nil {
			warnings = []string{}
		}
		if err := v.writeJSON(struct {
			Passed   bool             `json:"passed"`
			Checks   []registry.Check `json:"checks"`
			Warnings []string         `json:"warnings"`
		}{passed, checks, warnings}); err != nil {
			return err
		}
	} else {
		for _, w := range warnings {
			fmt.Fprintf(v.out, "(WARN) %s\n", w)
		}
		for _, c := range checks {
			fmt.Fprintln(v.out, c.String())
		}
		if passed {
			fmt.Fprintln(v.out, "All checks passed")
		} else {
			fmt.Fprintln(v.out, "Validation failed")
		}
	}
	if !passed {
		return exitError{code: 1}
	}
	return nil
}
