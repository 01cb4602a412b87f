package registry

import (
	"fmt"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// externalCategories are the categories whose calls cross the plugin
// protocol (pluginpb), so only they accept grpc and wasm plugins. The others
// either sit inside the timed window (sdk.Category.BuiltinOnly) or have no
// RPCs yet.
var externalCategories = map[string]bool{
	sdk.CategoryEndpoint:        true,
	sdk.CategoryCustomDataset:   true,
	sdk.CategoryDatasetComposer: true,
	sdk.CategoryRecordProcessor: true,
	sdk.CategoryDataExporter:    true,
	sdk.CategoryConsoleExporter: true,
}

// AllowedKinds lists the plugin kinds a category accepts.
func AllowedKinds(category string) []Kind {
	if externalCategories[category] {
		return []Kind{KindBuiltin, KindGRPC, KindWASM}
	}
	return []Kind{KindBuiltin}
}

func kindAllowed(category string, k Kind) bool {
	for _, a := range AllowedKinds(category) {
		if a == k {
			return true
		}
	}
	return false
}

// apiVersionMismatch words a refused plugin API version, naming both.
func apiVersionMismatch(v int) string {
	if v == 0 {
		return fmt.Sprintf("declares no api_version; this aiperf speaks plugin API v%d", sdk.APIVersion)
	}
	return fmt.Sprintf("built for plugin API v%d; this aiperf speaks v%d", v, sdk.APIVersion)
}

// categoryInterfaces checks a loaded value against its category's
// interface, and names the interface for messages.
var categoryInterfaces = map[string]struct {
	name string
	is   func(any) bool
}{
	sdk.CategoryEndpoint:        {"sdk.Endpoint", func(v any) bool { _, ok := v.(sdk.Endpoint); return ok }},
	sdk.CategoryCustomDataset:   {"sdk.CustomDatasetLoader", func(v any) bool { _, ok := v.(sdk.CustomDatasetLoader); return ok }},
	sdk.CategoryDatasetComposer: {"sdk.DatasetComposer", func(v any) bool { _, ok := v.(sdk.DatasetComposer); return ok }},
	sdk.CategoryRecordProcessor: {"sdk.RecordProcessor", func(v any) bool { _, ok := v.(sdk.RecordProcessor); return ok }},
	sdk.CategoryDataExporter:    {"sdk.DataExporter", func(v any) bool { _, ok := v.(sdk.DataExporter); return ok }},
	sdk.CategoryConsoleExporter: {"sdk.ConsoleExporter", func(v any) bool { _, ok := v.(sdk.ConsoleExporter); return ok }},
}

// implementsCategory reports whether v implements category's interface,
// naming the interface. A category without a listed interface passes: the
// caller's Get[T] still checks the concrete type it needs.
func implementsCategory(category string, v any) (string, bool) {
	c, known := categoryInterfaces[category]
	if !known {
		return "", true
	}
	return c.name, c.is(v)
}
