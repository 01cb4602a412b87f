package registry

import (
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// externalKinds lists, per category, the external kinds whose loaders can
// serve it: the categories whose calls cross the plugin protocol (pluginpb).
// The others either sit inside the timed window (sdk.Category.BuiltinOnly)
// or have no RPCs yet (dataset_composer, console_exporter). WASM data
// exporters are refused because the sandbox never grants a writable
// filesystem.
var externalKinds = map[string][]Kind{
	sdk.CategoryEndpoint:        {KindGRPC, KindWASM},
	sdk.CategoryCustomDataset:   {KindGRPC, KindWASM},
	sdk.CategoryRecordProcessor: {KindGRPC, KindWASM},
	sdk.CategoryDataExporter:    {KindGRPC},
}

// AllowedKinds lists the plugin kinds a category accepts.
func AllowedKinds(category string) []Kind {
	return append([]Kind{KindBuiltin}, externalKinds[category]...)
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

// kindList words kinds for messages: "builtin and grpc", "builtin, grpc and wasm".
func kindList(kinds []Kind) string {
	var b strings.Builder
	for i, k := range kinds {
		switch {
		case i == 0:
		case i == len(kinds)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(k))
	}
	return b.String()
}
