package servermetrics

import (
	"regexp"
	"sort"
	"strings"
)

// InferUnit is AIPerf 0.13's infer_unit (server_metrics/units.py) as its
// display name: a 0-1 or 0-100 scale in the description first, then a unit
// named in the description, then the metric name's suffix. "" when none.
func InferUnit(name, description string) string {
	if description != "" {
		if ratioRange.MatchString(description) {
			return "ratio"
		}
		if percentRange.MatchString(description) {
			return "percent"
		}
		if m := parenIn.FindStringSubmatch(description); m != nil {
			if u, ok := unitTags[strings.TrimSpace(m[1])]; ok {
				return u
			}
		}
		for _, p := range descPatterns {
			if p.re.MatchString(description) {
				return p.unit
			}
		}
	}
	lower := strings.ToLower(name)
	for _, s := range sortedSuffixes {
		if strings.HasSuffix(lower, s) {
			return suffixUnits[s]
		}
	}
	if strings.Contains(lower, "num_requests_") {
		return "requests"
	}
	return ""
}

var suffixUnits = map[string]string{
	"_seconds": "seconds", "_seconds_total": "seconds", "_milliseconds": "milliseconds", "_ms": "milliseconds",
	"_ms_total": "milliseconds", "_nanoseconds": "nanoseconds", "_ns": "nanoseconds", "_ns_total": "nanoseconds",
	"_bytes": "bytes", "_kilobytes": "kilobytes", "_megabytes": "megabytes", "_gigabytes": "gigabytes",
	"_bytes_total": "bytes", "_total": "count", "_count": "count", "_tokens": "tokens", "_tokens_total": "tokens",
	"_requests": "requests", "_requests_total": "requests", "request_success": "requests", "_errors": "errors",
	"_errors_total": "errors", "_error_count": "errors", "_error_count_total": "errors", "_reqs": "requests",
	"_blocks": "blocks", "_blocks_total": "blocks", "_block_count": "blocks", "_gb_s": "gb/s", "_ratio": "ratio",
	"_percent": "percent", "_perc": "percent", "_celsius": "celsius", "_joules": "joule", "_watts": "watt",
}

// sortedSuffixes are tried longest first, as AIPerf does.
var sortedSuffixes = func() []string {
	out := make([]string, 0, len(suffixUnits))
	for s := range suffixUnits {
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}()

var descPatterns = []struct {
	re   *regexp.Regexp
	unit string
}{
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()seconds?(?:\b|\))`), "seconds"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()(?:milliseconds?|ms)(?:\b|\))`), "milliseconds"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()(?:nanoseconds?|ns)(?:\b|\))`), "nanoseconds"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()bytes?(?:\b|\))`), "bytes"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()GB/s(?:\b|\))`), "gb/s"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()MB/s(?:\b|\))`), "mb/s"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()tokens?/s(?:ec(?:ond)?)?(?:\b|\))`), "tokens/s"},
	{regexp.MustCompile(`(?i)(?:\bin\s+|\()requests?/s(?:ec(?:ond)?)?(?:\b|\))`), "requests/s"},
	{regexp.MustCompile(`(?i)\bin\s+tokens?\b`), "tokens"},
}

var unitTags = map[string]string{
	"MiB": "megabytes", "GiB": "gigabytes", "KiB": "kilobytes", "B": "bytes", "MB": "megabytes", "GB": "gigabytes",
	"KB": "kilobytes", "TB": "terabytes", "C": "celsius", "°C": "celsius", "F": "fahrenheit", "°F": "fahrenheit",
	"K": "kelvin", "Hz": "hertz", "MHz": "megahertz", "GHz": "gigahertz", "W": "watt", "mW": "milliwatt",
	"J": "joule", "mJ": "millijoule", "MJ": "megajoule", "s": "seconds", "sec": "seconds", "ms": "milliseconds",
	"ns": "nanoseconds", "us": "microseconds", "µs": "microseconds", "GB/s": "gb/s", "MB/s": "mb/s",
	"%": "percent", "percent": "percent",
}

var (
	parenIn      = regexp.MustCompile(`\(in\s+([^\s)]+)\)`)
	ratioRange   = regexp.MustCompile(`(?i)\(0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\)|\b0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b|\brange\s+0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b|(?:\b|\()1(?:\.0)?\s*(?:means|is|equals?|==?)\s*100\s*(?:%|percent)`)
	percentRange = regexp.MustCompile(`(?i)\(0(?:\.0)?\s*(?:[-–—]+|to)\s*100(?:\.0)?\)|\brange\s+0\s*(?:[-–—]+|to)\s*100\b|\b0\s*(?:[-–—]+|to)\s*100\s*%`)
)
