package sdktest

import (
	"testing"

	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

func TestConfigurableAcceptsConformingSettings(t *testing.T) {
	p := &fixtures.Processor{}
	before := *p.PluginConfig().(*fixtures.ProcessorSettings)
	runSuite(t, func(tb testing.TB) { Configurable(tb, p) }).wantClean(t)
	if got := *p.PluginConfig().(*fixtures.ProcessorSettings); got != before {
		t.Errorf("the check changed the plugin's settings: %+v, was %+v", got, before)
	}
}

func TestConfigurableReportsEachViolation(t *testing.T) {
	tests := []struct {
		fault string
		want  []string
	}{
		{fixtures.CFFreshPointer, []string{"PluginConfig() returns a different pointer on each call"}},
		{fixtures.CFNilConfig, []string{"PluginConfig() returned <nil>", "return a non-nil pointer"}},
		{fixtures.CFNotPointer, []string{"PluginConfig() returned fixtures.ProcessorSettings", "return a non-nil pointer"}},
		{fixtures.CFAcceptsUnknownKeys, []string{`the unknown setting in {"sdktest_unknown_setting": true} was accepted`, "*map[string]interface {}"}},
		{fixtures.CFLossyDefaults, []string{`sdk.DecodeConfig refuses the plugin's own default settings "{\"level\":\"high\"}"`}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			r := runSuite(t, func(tb testing.TB) { Configurable(tb, &fixtures.Processor{Fault: tc.fault}) })
			r.wantReport(t, tc.want...)
		})
	}
}

func TestConfigurableRefusesPluginsWithoutSettings(t *testing.T) {
	r := runSuite(t, func(tb testing.TB) { Configurable(tb, &fixtures.Loader{}) })
	r.wantReport(t, "*fixtures.Loader does not implement sdk.Configurable")
	if !r.fatal {
		t.Error("a plugin without settings should stop the check")
	}
}
