// Package redact holds the rules that decide which values are credentials,
// so that config exports, the command line, raw request exports and metrics
// source names agree: Marker replaces every secret, Name and Header say
// which keys carry one, and URL hides URL userinfo and credential query
// parameter values.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Marker is the placeholder for secrets in exports, logs and commands
// (AIPerf's REDACTED_VALUE).
const Marker = "<redacted>"

// configHeaders are AIPerf's credential-carrying header names plus cookies.
var configHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "x-api-key": true, "api-key": true,
	"ocp-apim-subscription-key": true, "x-goog-api-key": true, "x-functions-key": true,
	"aeg-sas-key": true, "x-amz-security-token": true, "cookie": true, "set-cookie": true,
}

// nameFragments catch other credential-looking names (x-auth-token,
// client_secret, ...). "token" alone is not one: max_tokens is not a secret.
var nameFragments = []string{
	"auth", "api-key", "api_key", "apikey", "secret", "password", "passwd",
	"cookie", "credential", "signature", "access-token", "access_token",
	"refresh-token", "refresh_token", "id-token", "id_token", "bearer", "session-token", "session_token",
}

// Name reports whether a header name, an --extra-inputs key or a plugin
// setting key is likely to carry a credential. It is narrower than Header
// because extra-inputs keys such as max_tokens or session_id are not secrets.
func Name(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if configHeaders[n] || n == "token" || n == "key" ||
		strings.HasSuffix(n, "-key") || strings.HasSuffix(n, "_key") ||
		strings.HasSuffix(n, "-token") || strings.HasSuffix(n, "_token") {
		return true
	}
	return containsAny(n, nameFragments)
}

// aiperfTokenHeaders complete configHeaders to AIPerf 0.13's exact
// credential header names (common/redact.py _SENSITIVE_HEADER_NAMES); Header
// checks configHeaders through Name.
var aiperfTokenHeaders = map[string]bool{
	"x-auth-token": true, "x-access-token": true, "x-session-token": true,
	"x-csrf-token": true, "x-xsrf-token": true,
}

// aiperfHeaderFragments are AIPerf's _SENSITIVE_HEADER_SUBSTRINGS.
var aiperfHeaderFragments = []string{
	"auth", "token", "secret", "password", "passwd", "credential", "cookie",
	"apikey", "api-key", "api_key", "session", "signature", "sas-key",
	"access-key", "private-key",
}

// Header reports whether a request header's value is a credential: the
// union of AIPerf 0.13's is_sensitive_header_name and Name, so it redacts
// whatever either would. Matching ignores case.
func Header(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return aiperfTokenHeaders[n] || containsAny(n, aiperfHeaderFragments) || Name(n)
}

func containsAny(s string, frags []string) bool {
	for _, f := range frags {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// queryName is AIPerf 0.13's _SENSITIVE_URL_QUERY_PARAMETER_NAME_PATTERN
// (whole name, case-insensitive) plus auth, authorization, code (Azure
// Functions keys) and subscription-key (Azure API Management).
var queryName = regexp.MustCompile(`(?i)^(?:` +
	`api[-_ ]?key|apikey|key|token|access[-_ ]?token|auth[-_ ]?token|` +
	`bearer[-_ ]?token|id[-_ ]?token|refresh[-_ ]?token|secret|` +
	`client[-_ ]?secret|password|passwd|credential|access[-_ ]?key[-_ ]?id|` +
	`awsaccesskeyid|sig|signature|x-amz-signature|x-amz-security-token|` +
	`x-amz-credential|x-goog-signature|x-goog-credential|` +
	`auth|authorization|code|subscription[-_ ]?key` +
	`)$`)

// QueryParam reports whether a URL query parameter's value is a credential.
// The name is percent-decoded first (a server treats api%5Fkey as api_key).
func QueryParam(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	return queryName.MatchString(name)
}

var (
	// urlUserinfo matches "scheme://user:pass@"; bareUserinfo "user:pass@host".
	urlUserinfo  = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.\-]*://)[^@/?#]+@`)
	bareUserinfo = regexp.MustCompile(`^[^@:/?#]+:[^@/?#]+@`)
	// queryParam splits a query into separator, name and value; spans stop
	// at & and # so a fragment is never swallowed.
	queryParam = regexp.MustCompile(`([?&])([^=&#?]*)=([^&#]*)`)
)

// URL hides the userinfo and the value of every credential query parameter
// of a URL (or of a path such as --custom-endpoint's). Only those spans are
// rewritten, so a URL without credentials comes back byte for byte.
func URL(u string) string {
	out := urlUserinfo.ReplaceAllString(u, "${1}"+Marker+"@")
	if out == u && !strings.Contains(u, "://") {
		out = bareUserinfo.ReplaceAllString(u, Marker+"@")
	}
	q := strings.IndexByte(out, '?')
	if q < 0 {
		return out
	}
	rest := queryParam.ReplaceAllStringFunc(out[q:], func(m string) string {
		sub := queryParam.FindStringSubmatch(m)
		if !QueryParam(sub[2]) {
			return m
		}
		return sub[1] + sub[2] + "=" + Marker
	})
	return out[:q] + rest
}
