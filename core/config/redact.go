package config

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
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

// Redacted returns the resolved configuration as a map for input_config in
// the JSON export: canonical keys (the same the config file accepts),
// effective values for computed defaults, unset options omitted, and every
// secret replaced by "<redacted>": the api key, credential headers,
// credential-looking extra inputs and URL userinfo.
func (c *RunConfig) Redacted() map[string]any {
	m := map[string]any{
		keyModelNames:        append([]string(nil), c.ModelNames...),
		keyEndpointType:      c.EndpointType,
		keyStreaming:         c.Streaming,
		keyRequestTimeout:    c.RequestTimeoutSeconds,
		keyLegacyMaxTokens:   c.UseLegacyMaxTokens,
		keyServerTokenCount:  c.UseServerTokenCount,
		keyTokenizerRevision: c.TokenizerRevision,
		keyTokenizerTrust:    c.TokenizerTrustRemoteCode,
		keyISLMean:           c.InputTokensMean,
		keyISLStddev:         c.InputTokensStddev,
		keyOSLStddev:         c.OutputTokensStddev,
		keyNumDatasetEntries: c.NumDatasetEntries,
		keyArtifactDir:       c.ArtifactDir,
		keyExportLevel:       c.ExportLevel,
		keyLogLevel:          c.LogLevel,
		keyVerbose:           c.Verbose,
		keyExtraVerbose:      c.ExtraVerbose,
		keyUIType:            c.UIType,
	}
	urls := c.URLs()
	for i, u := range urls {
		urls[i] = redactURL(u)
	}
	m[keyURL] = urls
	setIf := func(key string, ok bool, v any) {
		if ok {
			m[key] = v
		}
	}
	setIf(keyCustomEndpoint, c.CustomEndpoint != "", c.CustomEndpoint)
	setIf(keyAPIKey, c.APIKey != "", Redacted)
	setIf(keyGoodput, c.Goodput != "", c.Goodput)
	setIf(keyPluginConfig, len(c.PluginConfig) > 0, redactPluginConfig(c.PluginConfig))
	setIf(keyTokenizer, c.Tokenizer != "", c.Tokenizer)
	setIf(keyExportPrefix, c.ProfileExportPrefix != "", c.ProfileExportPrefix)
	if c.RandomSeed != nil {
		m[keyRandomSeed] = *c.RandomSeed
	}
	if c.OutputTokensMean != nil {
		m[keyOSLMean] = *c.OutputTokensMean
	}
	if c.WarmupRequestCount != nil {
		m[keyWarmupRequestCount] = *c.WarmupRequestCount
	}
	c.addLoadKeys(m)
	if h := c.userHeaders(); len(h) > 0 {
		red := make(map[string]any, len(h))
		for k, v := range h {
			if isSensitiveName(k) {
				v = Redacted
			}
			red[k] = v
		}
		m[keyHeader] = red
	}
	if x := c.ExtraInputs(); len(x) > 0 {
		m[keyExtraInputs] = redactValues(x)
	}
	return m
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

// addLoadKeys adds the load-generation and dataset settings: effective
// values where a default is computed, user values otherwise, unset ones
// omitted.
func (c *RunConfig) addLoadKeys(m map[string]any) {
	m[keyModelSelection] = c.ModelSelectionStrategy
	m[keyURLStrategy] = c.URLStrategy
	m[keyConnectionReuse] = c.ConnectionReuseStrategy
	m[keyTurnsMean] = c.SessionTurnsMean
	m[keyTurnsStddev] = c.SessionTurnsStddev
	m[keyTurnDelayMean] = c.TurnDelayMeanMs
	m[keyTurnDelayStddev] = c.TurnDelayStddevMs
	m[keyTurnDelayRatio] = c.TurnDelayRatio
	m[keyFixedSchedule] = c.FixedSchedule()
	if n := c.EffectiveConcurrency(); n > 0 {
		m[keyConcurrency] = n
	}
	if n := c.EffectiveRequestCount(); n > 0 {
		m[keyRequestCount] = n
	}
	if c.Mode() == ModeRequestRate {
		m[keyArrivalPattern] = c.configuredArrivalPattern()
	}
	if c.BenchmarkDuration != nil {
		m[keyBenchmarkGrace] = graceJSON(c.profilingGrace())
	}
	if c.NoFixedSchedule {
		m[keyNoFixedSchedule] = true
	}
	for key, v := range map[string]string{
		keyInputFile: c.InputFile, keyCustomDatasetType: c.CustomDatasetType,
		keyDatasetSampling: c.DatasetSamplingStrategy, keyWarmupArrival: c.WarmupArrivalPattern,
	} {
		if v != "" {
			m[key] = v
		}
	}
	for key, v := range map[string]*int{
		keyFixedStartOffset: c.FixedScheduleStartOffset, keyFixedEndOffset: c.FixedScheduleEndOffset,
		keyISLBlockSize: c.ISLBlockSize, keyNumSessions: c.NumSessions, keyPrefillConcurrency: c.PrefillConcurrency,
		keyNumWarmupSessions: c.NumWarmupSessions, keyWarmupConcurrency: c.WarmupConcurrency,
		keyWarmupPrefill: c.WarmupPrefillConcurrency, keyNumUsers: c.NumUsers,
	} {
		if v != nil {
			m[key] = *v
		}
	}
	for key, v := range map[string]*float64{
		keyBenchmarkDuration: c.BenchmarkDuration, keyRequestRate: c.RequestRate,
		keyArrivalSmoothness: c.ArrivalSmoothness, keyWarmupDuration: c.WarmupDuration,
		keyWarmupRequestRate: c.WarmupRequestRate, keyWarmupGrace: c.WarmupGracePeriod,
		keyCancelRate: c.RequestCancellationRate, keyCancelDelay: c.RequestCancellationDelay,
		keyUserCentricRate: c.UserCentricRate, keyConcurrencyRamp: c.ConcurrencyRampDuration,
		keyPrefillRamp: c.PrefillConcurrencyRampDuration, keyWarmupConcRamp: c.WarmupConcurrencyRampDuration,
		keyWarmupPrefillRamp: c.WarmupPrefillConcurrencyRampDuration, keyRequestRateRamp: c.RequestRateRampDuration,
		keyWarmupRateRamp: c.WarmupRequestRateRampDuration,
	} {
		if v != nil {
			m[key] = floatJSON(*v)
		}
	}
	if c.FixedScheduleAutoOffset != nil {
		m[keyFixedAutoOffset] = *c.FixedScheduleAutoOffset
	}
}

// floatJSON keeps values encoding/json can write: infinite grace periods
// become "inf" (the spelling the flag accepts).
func floatJSON(v float64) any {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	return v
}

// graceJSON renders a resolved grace period in seconds, "inf" for forever.
func graceJSON(d time.Duration) any {
	if d < 0 {
		return "inf"
	}
	return d.Seconds()
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
