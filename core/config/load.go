package config

import (
	"fmt"
	"os"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// stderrIsTerminal decides the default UI; a variable so tests can pin it.
var stderrIsTerminal = func() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Load resolves the run configuration from four layers, later ones winning:
// defaults (the options table) < --user-config-file YAML < AIPERF_*
// environment (env is os.Environ()-style "NAME=value") < the flags the user
// actually set on cmd. cmd must have been prepared with RegisterProfileFlags
// and parsed. Warnings are for the caller to print; Load does not call
// Validate.
func Load(cmd *cobra.Command, env []string) (*RunConfig, []string, error) {
	fs := cmd.Flags()
	if fs.Lookup(options[0].names[0]) == nil {
		return nil, nil, fmt.Errorf("config: command %q has no profile flags (call RegisterProfileFlags)", cmd.Name())
	}
	if extra := fs.Args(); len(extra) > 0 {
		// cobra would silently ignore them; AIPerf users often mean another
		// value of a multi-value flag (see ExpandMultiValueArgs).
		return nil, nil, fmt.Errorf("unexpected argument %q: profile takes no positional arguments; repeat the flag for each value (e.g. --extra-inputs a:1 --extra-inputs b:2)", extra[0])
	}
	k := koanf.New(".")
	if err := k.Load(confmap.Provider(defaultValues(), "."), nil); err != nil {
		return nil, nil, fmt.Errorf("loading defaults: %w", err)
	}

	userSet := map[string]bool{}
	cfgFile := configFilePath(fs, env)
	if cfgFile != "" {
		fileVals, err := readConfigFile(cfgFile)
		if err != nil {
			return nil, nil, err
		}
		if err := loadLayer(k, fileVals, userSet); err != nil {
			return nil, nil, fmt.Errorf("loading --user-config-file %q: %w", cfgFile, err)
		}
	}

	envVals, err := readEnv(env)
	if err != nil {
		return nil, nil, err
	}
	if err := loadLayer(k, envVals, userSet); err != nil {
		return nil, nil, fmt.Errorf("loading environment: %w", err)
	}

	var flagErr error
	// ko=nil: posflag then yields only flags the user changed, so a flag's
	// default never masks the file or the environment.
	prov := posflag.ProviderWithFlag(fs, ".", nil, func(f *pflag.Flag) (string, any) {
		key, val, err := flagValue(fs, f)
		if err != nil && flagErr == nil {
			flagErr = err
		}
		if key != "" {
			userSet[key] = true
		}
		return key, val
	})
	if err := k.Load(prov, nil); err != nil {
		return nil, nil, fmt.Errorf("loading flags: %w", err)
	}
	if flagErr != nil {
		return nil, nil, flagErr
	}

	cfg := &RunConfig{}
	if err := k.UnmarshalWithConf("", cfg, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		return nil, nil, fmt.Errorf("decoding configuration: %w", err)
	}
	cfg.ConfigFile = cfgFile
	cfg.ArtifactDirSet = userSet[keyArtifactDir]
	cfg.NumDatasetEntriesSet = userSet[keyNumDatasetEntries]
	warnings := cfg.resolve(userSet[keyUIType])
	warnings = append(warnings, cfg.resolveMultiRun(userSet)...)
	return cfg, warnings, nil
}

// defaultValues is the defaults layer, taken from the options table.
func defaultValues() map[string]any {
	m := make(map[string]any, len(options))
	for _, o := range options {
		if o.def != nil {
			m[o.key] = o.def
		}
	}
	return m
}

func loadLayer(k *koanf.Koanf, vals map[string]any, userSet map[string]bool) error {
	for key := range vals {
		userSet[key] = true
	}
	return k.Load(confmap.Provider(vals, "."), nil)
}

// configFilePath is --user-config-file/--config when given, else the
// environment's AIPERF_USER_CONFIG_FILE or AIPerf's AIPERF_CONFIG_USER_FILE.
func configFilePath(fs *pflag.FlagSet, env []string) string {
	if f := fs.Lookup(optionByKey[keyConfigFile].names[0]); f != nil && f.Changed {
		return f.Value.String()
	}
	return envConfigFile(env)
}

// flagValue maps one changed flag to its key and typed value; it skips flags
// this package does not own and the config-file flag itself.
func flagValue(fs *pflag.FlagSet, f *pflag.Flag) (string, any, error) {
	o, ok := optionByName[f.Name]
	if !ok || !f.Changed || o.key == keyConfigFile {
		return "", nil, nil
	}
	raw := posflag.FlagVal(fs, f)
	if o.kind == kindCount {
		// -v is verbose, -vv (or -v -v) is extra verbose.
		if n, _ := raw.(int); n >= 2 {
			return keyExtraVerbose, true, nil
		}
	}
	v, err := coerce(o, raw)
	if err != nil {
		return "", nil, fmt.Errorf("--%s: %w", f.Name, err)
	}
	return o.key, v, nil
}

// resolve normalizes spellings and applies the derived settings that do not
// depend on the plugin registry. It returns user-facing warnings.
func (c *RunConfig) resolve(uiSet bool) []string {
	var warnings []string
	// Plugin names follow the registry's one name rule (text-gen == text_gen).
	for _, p := range []*string{&c.EndpointType, &c.URLStrategy, &c.CustomDatasetType, &c.DatasetSamplingStrategy,
		&c.ArrivalPattern, &c.WarmupArrivalPattern, &c.Transport, &c.RampType, &c.TokenizerPlugin, &c.PublicDataset} {
		*p = sdk.NormalizeName(*p)
	}
	c.ExportLevel = strings.ToLower(strings.TrimSpace(c.ExportLevel))
	c.LogLevel = strings.ToUpper(strings.TrimSpace(c.LogLevel))
	switch {
	case c.ExtraVerbose:
		c.LogLevel = "TRACE"
	case c.Verbose:
		c.LogLevel = "DEBUG"
	}

	// AIPerf: dashboard on a terminal, none otherwise; an explicit dashboard
	// without a terminal, or with -v/-vv (the logs would tear the full
	// screen), runs as simple.
	c.UIType = sdk.NormalizeName(c.UIType)
	tty := stderrIsTerminal()
	switch {
	case !uiSet || c.UIType == "":
		c.UIType = "none"
		if tty {
			c.UIType = "dashboard"
			if c.Verbose || c.ExtraVerbose {
				c.UIType = "simple"
			}
		}
	case c.UIType == "dashboard" && !tty:
		c.UIType = "simple"
		warnings = append(warnings, `--ui-type "dashboard" needs stderr to be a terminal; using "simple"`)
	case c.UIType == "dashboard" && (c.Verbose || c.ExtraVerbose):
		c.UIType = "simple"
		warnings = append(warnings, `--ui-type "dashboard" with --verbose/--extra-verbose runs as "simple" (the logs would tear the dashboard)`)
	}

	if c.OutputTokensMean == nil && c.OutputTokensStddev != 0 {
		warnings = append(warnings, "--prompt-output-tokens-stddev has no effect without --prompt-output-tokens-mean")
	}

	for _, p := range []*string{&c.ModelSelectionStrategy, &c.ConnectionReuseStrategy} {
		*p = strings.ToLower(strings.TrimSpace(*p))
	}
	warnings = append(warnings, c.resolvePayloadFile()...)
	// Only trace replay needs to look inside the dataset file.
	if c.InputFile != "" && (traceTypes[c.CustomDatasetType] || (c.FixedScheduleFlag != nil && *c.FixedScheduleFlag)) {
		c.inspectInputTrace()
	}
	return append(warnings, c.loadWarnings()...)
}
