package config

import (
	"strings"
	"testing"
)

// Every option that names a plugin follows the registry's name rule:
// --endpoint-type text-gen finds the plugin text_gen.
func TestPluginNamesAreNormalized(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--endpoint-type", "Text-Gen", "--ramp-type", "EXPONENTIAL",
		"--transport-type", "HTTP", "--dataset-sampling-strategy", "Shuffle")
	if cfg.EndpointType != "text_gen" || cfg.RampType != "exponential" || cfg.Transport != "http" || cfg.DatasetSamplingStrategy != "shuffle" {
		t.Fatalf("names = %q %q %q %q", cfg.EndpointType, cfg.RampType, cfg.Transport, cfg.DatasetSamplingStrategy)
	}
	if err := cfg.Validate(testChoices); err != nil {
		t.Fatal(err)
	}
	if cfg.RampType == "" || cfg.TokenizerPlugin != "hf" {
		t.Errorf("defaults: ramp %q tokenizer plugin %q", cfg.RampType, cfg.TokenizerPlugin)
	}
}

func TestPluginChoicesComeFromTheRegistry(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--ramp-type", "sigmoid", "--transport", "grpc")
	err := cfg.Validate(testChoices)
	for _, want := range []string{
		`--ramp-type "sigmoid" is not valid; choose one of: linear, exponential, poisson`,
		`--transport "grpc" is not valid; choose one of: http`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want %q", err, want)
		}
	}
}

func TestParsePluginSetting(t *testing.T) {
	s, err := ParsePluginSetting("Timing-Strategy.request_rate.rate=2.5")
	if err != nil || s.ID() != "timing_strategy.request_rate" || s.Key != "rate" || s.Value != 2.5 {
		t.Fatalf("= %+v, %v", s, err)
	}
	if s, err := ParsePluginSetting(`endpoint.x.extra={"a": [1]}`); err != nil || s.Key != "extra" {
		t.Fatalf("JSON value: %+v, %v", s, err)
	} else if m, ok := s.Value.(map[string]any); !ok || len(m["a"].([]any)) != 1 {
		t.Errorf("JSON value = %#v", s.Value)
	}
	if s, _ := ParsePluginSetting("ui.simple.label=hello world"); s.Value != "hello world" {
		t.Errorf("text value = %#v", s.Value)
	}
	for _, bad := range []string{"rate=1", "a.b=1", "a.b.=1", "a.b.c"} {
		if _, err := ParsePluginSetting(bad); err == nil {
			t.Errorf("ParsePluginSetting(%q) accepted", bad)
		}
	}
}

func TestPluginConfigNamesARegisteredPlugin(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m",
		"--plugin-config", "record_processor.metric_record.x=1",
		"--plugin-config", "record_processor.nope.x=1",
		"--plugin-config", "chart.pareto.x=1",
		"--plugin-config", "bad")
	err := cfg.Validate(testChoices)
	if err == nil {
		t.Fatal("Validate accepted unknown plugins")
	}
	for _, want := range []string{
		`--plugin-config "record_processor.nope.x=1": no plugin record_processor.nope; record_processor plugins: metric_record`,
		`--plugin-config "chart.pareto.x=1": unknown plugin category "chart"`,
		`--plugin-config "bad" is not valid: expected category.name.key=value`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v\nwant %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "metric_record.x") {
		t.Errorf("a registered plugin was refused: %v", err)
	}
}

func TestPluginConfigSecretsAreRedacted(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--plugin-config", "endpoint.acme.api_key=sk-123", "--plugin-config", "endpoint.acme.region=eu")
	got := cfg.InputConfig()[inputConfigExtension].(map[string]any)["plugin_config"].([]string)
	if got[0] != "endpoint.acme.api_key=<redacted>" || got[1] != "endpoint.acme.region=eu" {
		t.Errorf("redacted plugin config = %q", got)
	}
}

// A --plugin-config value is never split: commas and JSON objects stay in
// it, on the command line and in a config file.
func TestPluginConfigValuesStayWhole(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--plugin-config", "ui.simple.label=a,b",
		"--plugin-config", `endpoint.acme.extra={"a": 1, "b": [2, 3]}`)
	if len(cfg.PluginConfig) != 2 || cfg.PluginConfig[0] != "ui.simple.label=a,b" {
		t.Fatalf("PluginConfig = %q", cfg.PluginConfig)
	}
	s, err := cfg.PluginSettings()
	if err != nil || s[0].Value != "a,b" || len(s[1].Value.(map[string]any)) != 2 {
		t.Fatalf("settings = %+v, %v", s, err)
	}
}

func TestPluginChoicesAreTheRunWideFlags(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--endpoint-type", "completions", "--ramp-type", "poisson",
		"--arrival-pattern", "gamma", "--custom-dataset-type", "single_turn", "--ui", "none")
	got := cfg.PluginChoices()
	want := map[string]string{"endpoint": "completions", "ramp": "poisson", "ui": "none", "transport": "http",
		"url_selection_strategy": "round_robin", "tokenizer": "hf"}
	if len(got) != len(want) {
		t.Errorf("PluginChoices = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("PluginChoices[%s] = %q, want %q", k, got[k], v)
		}
	}
}

func TestSliceDurationMustNotBeNegative(t *testing.T) {
	cfg, _ := load(t, nil, "-m", "m", "--slice-duration", "-1")
	if err := cfg.Validate(testChoices); err == nil || !strings.Contains(err.Error(), "--slice-duration") {
		t.Errorf("Validate = %v, want --slice-duration refused", err)
	}
}
