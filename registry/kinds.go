package registry

import (
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// AllowedKinds lists the plugin kinds a category accepts, from its
// descriptor (sdk.Category.ExternalKinds).
func AllowedKinds(category string) []Kind {
	kinds := []Kind{KindBuiltin}
	if c, ok := sdk.LookupCategory(category); ok {
		for _, k := range c.ExternalKinds {
			kinds = append(kinds, Kind(k))
		}
	}
	return kinds
}

// refusal words why a category refuses a kind.
func refusal(c sdk.Category) string {
	if c.BuiltinOnly() {
		return fmt.Sprintf("category %s accepts only builtin plugins (%s)", c.Name, c.BuiltinReason)
	}
	msg := fmt.Sprintf("category %s accepts %s plugins", c.Name, kindList(AllowedKinds(c.Name)))
	if c.BuiltinReason != "" {
		msg += " (" + c.BuiltinReason + ")"
	}
	return msg
}

// apiVersionMismatch words a refused plugin API version, naming both.
func apiVersionMismatch(v int) string {
	if v == 0 {
		return fmt.Sprintf("declares no api_version; this aiperf speaks plugin API v%d", sdk.APIVersion)
	}
	return fmt.Sprintf("built for plugin API v%d; this aiperf speaks v%d", v, sdk.APIVersion)
}

// implementsCategory reports whether v implements category's interface,
// naming the interface.
func implementsCategory(category string, v any) (string, bool) {
	c, known := sdk.LookupCategory(category)
	if !known {
		return "", false
	}
	return c.InterfaceName(), c.Implements(v)
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
