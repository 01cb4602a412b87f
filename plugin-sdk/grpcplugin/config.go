package grpcplugin

import sdk "github.com/aiperf-go/aiperf/plugin-sdk"

// configure applies one entry's settings to impl (label: category.name) by
// the SDK's one rule, sdk.ApplyConfig.
func configure(impl any, label string, data []byte) error {
	return sdk.ApplyConfig(impl, label, data)
}
