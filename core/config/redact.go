package config

import (
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/core/redact"
)

// Redacted is the placeholder for secrets in exports, logs and commands.
const Redacted = redact.Marker

// isSensitiveName reports whether a header name or an extra-inputs key is
// likely to carry a credential.
func isSensitiveName(name string) bool { return redact.Name(name) }

// HeaderItemHasSecret reports whether one -H / --header item ("Name:Value",
// several comma-separated pairs, or a JSON object) names a credential
// header (redact.Header); an item that does not parse counts when any of
// its words is a credential name.
func HeaderItemHasSecret(item string) bool {
	pairs, err := parsePairs(item, headerValue)
	if err != nil {
		return containsSensitive(item)
	}
	for _, p := range pairs {
		if redact.Header(p.key) {
			return true
		}
	}
	return false
}

// redactURL hides userinfo and credential query parameters in a URL.
func redactURL(u string) string { return redact.URL(u) }

// safeItem renders a -H / --extra-inputs item for an error message without
// leaking a credential it may hold.
func safeItem(item string) string {
	if !containsSensitive(item) {
		return item
	}
	name, _, _ := strings.Cut(item, ":")
	name, _, _ = strings.Cut(name, " ")
	if len(name) > 40 || strings.HasPrefix(strings.TrimSpace(item), "{") {
		return Redacted
	}
	return name + ":" + Redacted
}

// containsSensitive reports whether any word of s looks like a credential
// name (the name may sit anywhere in a malformed item).
func containsSensitive(s string) bool {
	fields := strings.FieldsFunc(s, func(r rune) bool {
		return r == ':' || r == ' ' || r == ',' || r == '"' || r == '{' || r == '}' || r == '='
	})
	for _, f := range fields {
		if isSensitiveName(f) {
			return true
		}
	}
	return false
}

// userHeaders are the -H headers alone (no api-key Authorization).
func (c *RunConfig) userHeaders() map[string]string {
	c2 := *c
	c2.APIKey = ""
	return c2.Headers()
}

// redactValues replaces credential-looking keys at any depth.
func redactValues(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case isSensitiveName(k):
			out[k] = Redacted
		default:
			if sub, ok := v.(map[string]any); ok {
				v = redactValues(sub)
			}
			out[k] = v
		}
	}
	return out
}

// sortedKeys is used where map order must be stable (CLI rendering).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// redactPluginConfig hides the value of every --plugin-config setting whose
// key looks like a credential (a plugin's api_key, token, ...).
func redactPluginConfig(items []string) []string {
	out := make([]string, len(items))
	for i, item := range items {
		out[i] = item
		if s, err := ParsePluginSetting(item); err != nil || isSensitiveName(s.Key) {
			lhs, _, _ := strings.Cut(item, "=")
			out[i] = lhs + "=" + Redacted
		}
	}
	return out
}
