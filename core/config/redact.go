package config

import (
	"regexp"
	"sort"
	"strings"
)

// Redacted is the placeholder for secrets in exports, logs and commands.
const Redacted = "<redacted>"

// sensitiveHeaders are AIPerf's credential-carrying header names plus cookies.
var sensitiveHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "x-api-key": true, "api-key": true,
	"ocp-apim-subscription-key": true, "x-goog-api-key": true, "x-functions-key": true,
	"aeg-sas-key": true, "x-amz-security-token": true, "cookie": true, "set-cookie": true,
}

// sensitiveFragments catch other credential-looking names (x-auth-token,
// client_secret, ...). "token" alone is not one: max_tokens is not a secret.
var sensitiveFragments = []string{
	"auth", "api-key", "api_key", "apikey", "secret", "password", "passwd",
	"cookie", "credential", "signature", "access-token", "access_token",
	"refresh-token", "refresh_token", "id-token", "id_token", "bearer", "session-token", "session_token",
}

// isSensitiveName reports whether a header name or an extra-inputs key is
// likely to carry a credential.
func isSensitiveName(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if sensitiveHeaders[n] || n == "token" || n == "key" ||
		strings.HasSuffix(n, "-key") || strings.HasSuffix(n, "_key") ||
		strings.HasSuffix(n, "-token") || strings.HasSuffix(n, "_token") {
		return true
	}
	for _, f := range sensitiveFragments {
		if strings.Contains(n, f) {
			return true
		}
	}
	return false
}

// urlUserinfo matches "scheme://user:pass@" and bare "user:pass@host".
var (
	urlUserinfo     = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.\-]*://)[^@/?#]+@`)
	bareUserinfo    = regexp.MustCompile(`^[^@:/?#]+:[^@/?#]+@`)
	sensitiveQueryP = regexp.MustCompile(`(?i)([?&])(api[-_]?key|apikey|key|token|access[-_]?token|auth[-_]?token|secret|client[-_]?secret|password|passwd|sig|signature)=([^&#]*)`)
)

// redactURL hides userinfo and credential query parameters in a URL.
func redactURL(u string) string {
	out := urlUserinfo.ReplaceAllString(u, "${1}"+Redacted+"@")
	if out == u && !strings.Contains(u, "://") {
		out = bareUserinfo.ReplaceAllString(u, Redacted+"@")
	}
	return sensitiveQueryP.ReplaceAllString(out, "${1}${2}="+Redacted)
}

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
