package config

import (
	"fmt"
	"slices"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// validatePluginChoices checks every option that names a plugin against
// the registered names of its category (empty values are unset).
func (c *RunConfig) validatePluginChoices(ch Choices, add adder) {
	values := c.pluginFlagValues()
	for _, o := range options {
		names, v := ch[o.category], values[o.key]
		if o.category == "" || v == "" || len(names) == 0 || slices.Contains(names, v) {
			continue
		}
		add("--%s %q is not valid; choose one of: %s", o.names[0], v, strings.Join(names, ", "))
	}
}

// PluginSetting is one --plugin-config value: category.name.key=value.
type PluginSetting struct {
	Category, Name, Key string
	// Value is the JSON value, or the text as a string when it is not JSON.
	Value any
}

// ID is the plugin's "category.name".
func (s PluginSetting) ID() string { return s.Category + "." + s.Name }

// ParsePluginSetting splits category.name.key=value. Category and name
// follow the registry's name rule; the key is kept as written (it is a
// json field name of the plugin's settings).
func ParsePluginSetting(item string) (PluginSetting, error) {
	lhs, value, ok := strings.Cut(item, "=")
	if !ok {
		return PluginSetting{}, fmt.Errorf("expected category.name.key=value")
	}
	parts := strings.SplitN(strings.TrimSpace(lhs), ".", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || strings.TrimSpace(parts[2]) == "" {
		return PluginSetting{}, fmt.Errorf("%q is not category.name.key", lhs)
	}
	v, err := jsonScalar(strings.TrimSpace(value), nil, false)
	if err != nil {
		return PluginSetting{}, err
	}
	return PluginSetting{Category: sdk.NormalizeName(parts[0]), Name: sdk.NormalizeName(parts[1]),
		Key: strings.TrimSpace(parts[2]), Value: v}, nil
}

// PluginSettings parses every --plugin-config value.
func (c *RunConfig) PluginSettings() ([]PluginSetting, error) {
	out := make([]PluginSetting, 0, len(c.PluginConfig))
	for _, item := range c.PluginConfig {
		s, err := ParsePluginSetting(item)
		if err != nil {
			return nil, fmt.Errorf("--plugin-config %q is not valid: %w", item, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// validatePluginConfig checks that each --plugin-config names a registered
// plugin; its keys are checked against the plugin's own settings later, by
// the plugin host, before any request.
func (c *RunConfig) validatePluginConfig(ch Choices, add adder) {
	for _, item := range c.PluginConfig {
		s, err := ParsePluginSetting(item)
		if err != nil {
			add("--plugin-config %q is not valid: %v", item, err)
			continue
		}
		if _, known := sdk.LookupCategory(s.Category); !known {
			add("--plugin-config %q: unknown plugin category %q", item, s.Category)
			continue
		}
		if names, listed := ch[s.Category]; listed && !slices.Contains(names, s.Name) {
			add("--plugin-config %q: no plugin %s.%s; %s plugins: %s", item, s.Category, s.Name, s.Category, strings.Join(names, ", "))
		}
	}
}

// CategoryFlags lists, per plugin category, the flags whose value names a
// plugin of it (for docs and help).
func CategoryFlags() map[string][]string {
	out := map[string][]string{}
	for _, o := range options {
		if o.category != "" {
			out[o.category] = append(out[o.category], "--"+o.names[0])
		}
	}
	return out
}

// pluginFlagValues are the values of the options that name a plugin, by
// option key.
func (c *RunConfig) pluginFlagValues() map[string]string {
	return map[string]string{
		keyEndpointType: c.EndpointType, keyURLStrategy: c.URLStrategy, keyCustomDatasetType: c.CustomDatasetType,
		keyPublicDataset:   c.PublicDataset,
		keyDatasetSampling: c.DatasetSamplingStrategy, keyArrivalPattern: c.ArrivalPattern,
		keyWarmupArrival: c.WarmupArrivalPattern, keyUIType: c.UIType, keyTransport: c.Transport,
		keyRampType: c.RampType, keyTokenizerPlugin: c.TokenizerPlugin,
		keyGPUCollectorPlugin: c.GPUCollectorPlugin, keyServerCollectorPlugin: c.ServerCollectorPlugin,
	}
}

// PluginChoices maps each category a run-wide flag selects to the plugin it
// names (set values only). Per-phase choices (--arrival-pattern, and its
// warmup twin) and --custom-dataset-type, which the custom composer reads,
// are not run-wide selections.
func (c *RunConfig) PluginChoices() map[string]string {
	values := c.pluginFlagValues()
	out := map[string]string{}
	for _, o := range options {
		switch {
		case o.category == "" || values[o.key] == "":
		case o.key == keyArrivalPattern || o.key == keyWarmupArrival || o.key == keyCustomDatasetType:
		default:
			out[o.category] = values[o.key]
		}
	}
	return out
}

// RedactSettings returns a copy of a plugin's settings with the value of
// every credential-looking key (api_key, token, ...) replaced, for display.
func RedactSettings(m map[string]any) map[string]any {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if isSensitiveName(k) {
			v = Redacted
		}
		out[k] = v
	}
	return out
}
