package sdktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// unknownSetting is a settings object no plugin has a key for.
const unknownSetting = `{"sdktest_unknown_setting": true}`

// Configurable checks a plugin's settings (sdk.Configurable) in process, as
// the core decodes them: PluginConfig returns a non-nil pointer, the same
// one on every call (the core decodes into it, the plugin reads it); the
// default settings survive a JSON round trip through sdk.DecodeConfig; an
// empty object is accepted and an unknown key refused. The category checks
// (Endpoint, RecordProcessor, DatasetLoader, DataExporter) run it for every
// plugin that is Configurable. It does not change the plugin's settings.
func Configurable(t testing.TB, plugin any) {
	t.Helper()
	c, ok := plugin.(sdk.Configurable)
	if !ok {
		t.Fatalf("sdktest: Configurable: %T does not implement sdk.Configurable (PluginConfig() any)", plugin)
	}
	checkConfigurable(t, c)
}

func checkConfigurable(t testing.TB, c sdk.Configurable) {
	t.Helper()
	target, ok := callNoErr(t, "PluginConfig()", c.PluginConfig)
	if !ok {
		return
	}
	rv := reflect.ValueOf(target)
	if target == nil || rv.Kind() != reflect.Pointer || rv.IsNil() {
		t.Errorf("sdktest: PluginConfig() returned %T (%v): return a non-nil pointer to the plugin's settings struct", target, target)
		return
	}
	if again, ok := callNoErr(t, "PluginConfig()", c.PluginConfig); ok && reflect.ValueOf(again).Pointer() != rv.Pointer() {
		t.Errorf("sdktest: PluginConfig() returns a different pointer on each call: return a pointer to the settings the plugin reads (the core decodes the configured values into it)")
	}
	// Decode into fresh values of the same type: the plugin's settings stay
	// as they are.
	fresh := func() any { return reflect.New(rv.Elem().Type()).Interface() }
	defaults, err := json.Marshal(target)
	if err != nil {
		t.Errorf("sdktest: PluginConfig(): the default settings do not encode as JSON: %v", err)
		return
	}
	back := fresh()
	if err := sdk.DecodeConfig(defaults, back); err != nil {
		t.Errorf("sdktest: PluginConfig(): sdk.DecodeConfig refuses the plugin's own default settings %s: %v (every setting must decode from what it encodes to)",
			quote(defaults), err)
	} else if again, err := json.Marshal(back); err != nil || !bytes.Equal(again, defaults) {
		t.Errorf("sdktest: PluginConfig(): the default settings %s decode to %s: settings must survive a JSON round trip", quote(defaults), quote(again))
	}
	if err := sdk.DecodeConfig([]byte("{}"), fresh()); err != nil {
		t.Errorf("sdktest: PluginConfig(): sdk.DecodeConfig refuses empty settings {}: %v", err)
	}
	if err := sdk.DecodeConfig([]byte(unknownSetting), fresh()); err == nil {
		t.Errorf("sdktest: PluginConfig(): the unknown setting in %s was accepted: %s",
			unknownSetting, fmt.Sprintf("%T must refuse keys it does not have (a pointer to a struct does)", target))
	}
}
