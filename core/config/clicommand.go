package config

import (
	"encoding/json"
	"strconv"
	"strings"
)

// optionByShort maps a one-letter shorthand to its option.
var optionByShort = func() map[byte]*option {
	m := map[byte]*option{}
	for _, o := range options {
		if o.short != "" {
			m[o.short[0]] = o
		}
	}
	return m
}()

// CLICommand renders the command line for the exports ("aiperf profile
// --model 'x' ..."), quoting string values like AIPerf and replacing every
// secret with '<redacted>': --api-key values, credential headers (also when
// split across shell words), credential extra inputs, URL userinfo and credential query parameters
// (--url, --custom-endpoint), values
// of unknown flags whose names look like credentials, and, as a last
// defence, any literal occurrence of the configured api key or credential
// header values.
func (c *RunConfig) CLICommand(args []string) string {
	r := cliRedactor{}
	parts := make([]string, 0, len(args)+1)
	parts = append(parts, "aiperf")
	for _, tok := range args {
		parts = append(parts, r.token(tok))
	}
	out := strings.Join(parts, " ")
	for _, secret := range c.secretValues() {
		out = strings.ReplaceAll(out, secret, Redacted)
	}
	return out
}

// secretValues are literal strings that must never appear in output.
func (c *RunConfig) secretValues() []string {
	var s []string
	if c.APIKey != "" {
		s = append(s, c.APIKey)
	}
	h := c.userHeaders()
	for _, k := range sortedKeys(h) {
		// Short values ("1", "yes") would redact unrelated text.
		if isSensitiveName(k) && len(h[k]) >= 6 {
			s = append(s, h[k])
		}
	}
	return s
}

// cliRedactor walks argv tokens, tracking which flag a value belongs to.
type cliRedactor struct {
	pending       *option // the flag whose value comes next
	pendingSecret bool    // an unknown credential-looking flag's value comes next
	window        *option // multi-value flag still consuming bare values
	headerSecret  bool    // the last header item was a credential
	literal       bool    // after "--": no more flags
}

func (r *cliRedactor) token(tok string) string {
	switch {
	case r.literal:
		return quoteValue(tok)
	case tok == "--":
		r.literal = true
		r.reset()
		return tok
	case strings.HasPrefix(tok, "--"):
		return r.longFlag(tok)
	case isShortFlagToken(tok):
		return r.shortFlags(tok)
	}
	return r.value(tok)
}

func (r *cliRedactor) reset() {
	r.pending, r.pendingSecret, r.window, r.headerSecret = nil, false, nil, false
}

func (r *cliRedactor) longFlag(tok string) string {
	r.reset()
	name, inline, hasInline := strings.Cut(tok[2:], "=")
	o := optionByName[name]
	if o == nil {
		secret := isSensitiveName(name)
		if hasInline {
			if secret {
				return "--" + name + "=" + Redacted
			}
			return tok
		}
		r.pendingSecret = secret
		return tok
	}
	if hasInline {
		v := r.redactFor(o, inline)
		r.openWindow(o)
		return "--" + name + "=" + v
	}
	if takesValue(o) {
		r.pending = o
	}
	return tok
}

// shortFlags handles "-m", "-Hname:value" (attached value) and "-vv".
func (r *cliRedactor) shortFlags(tok string) string {
	r.reset()
	for j := 1; j < len(tok); j++ {
		o := optionByShort[tok[j]]
		if o == nil || !takesValue(o) {
			continue
		}
		if rest := tok[j+1:]; rest != "" {
			v := r.redactFor(o, strings.TrimPrefix(rest, "="))
			r.openWindow(o)
			return tok[:j+1] + v
		}
		r.pending = o
		break
	}
	return tok
}

func (r *cliRedactor) value(tok string) string {
	switch {
	case r.pendingSecret:
		r.pendingSecret = false
		return quoteValue(Redacted)
	case r.pending != nil:
		o := r.pending
		r.pending = nil
		v := r.redactFor(o, tok)
		r.openWindow(o)
		return quoteValue(v)
	case r.window != nil:
		// AIPerf flags take several values: --url a b, --extra-inputs x:1 y:2.
		return quoteValue(r.redactFor(r.window, tok))
	}
	return quoteValue(tok)
}

func (r *cliRedactor) openWindow(o *option) {
	if o.kind.repeatable() {
		r.window = o
	}
}

// redactFor redacts one value of option o.
func (r *cliRedactor) redactFor(o *option, v string) string {
	switch o.key {
	case keyAPIKey:
		return Redacted
	case keyURL, keyCustomEndpoint:
		return redactURL(v)
	case keyHeader:
		return r.redactHeaderItem(v)
	case keyExtraInputs:
		return redactPairsItem(v, jsonScalar)
	case keyPluginConfig:
		return redactPluginConfig([]string{v})[0]
	}
	return v
}

// redactHeaderItem also covers a credential split over several shell words
// (-H Authorization: Bearer xyz): words without a colon after a credential
// header belong to its value.
func (r *cliRedactor) redactHeaderItem(v string) string {
	if !strings.Contains(v, ":") && !strings.HasPrefix(strings.TrimSpace(v), "{") {
		if r.headerSecret || containsSensitive(v) {
			return Redacted
		}
		return v
	}
	pairs, err := parsePairs(v, headerValue)
	if err != nil {
		r.headerSecret = containsSensitive(v)
		if r.headerSecret {
			return Redacted
		}
		return v
	}
	r.headerSecret = isSensitiveName(pairs[len(pairs)-1].key)
	return redactPairsItem(v, headerValue)
}

// redactPairsItem rewrites a -H / --extra-inputs item with credential values
// replaced, keeping the text untouched when it holds none.
func redactPairsItem(v string, conv valueFunc) string {
	pairs, err := parsePairs(v, conv)
	if err != nil {
		if containsSensitive(v) {
			return Redacted
		}
		return v
	}
	secret := false
	for _, p := range pairs {
		if isSensitiveName(p.key) {
			secret = true
		}
	}
	if !secret {
		return v
	}
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		m := make(map[string]any, len(pairs))
		for _, p := range pairs {
			m[p.key] = p.val
		}
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // keep "<redacted>" readable
		if err := enc.Encode(redactValues(m)); err != nil {
			return Redacted
		}
		return strings.TrimSuffix(buf.String(), "\n")
	}
	items := make([]string, len(pairs))
	for i, p := range pairs {
		val := Redacted
		if !isSensitiveName(p.key) {
			if s, ok := p.val.(string); ok {
				val = s
			} else if b, err := json.Marshal(p.val); err == nil {
				val = string(b)
			}
		}
		items[i] = p.key + ":" + val
	}
	return strings.Join(items, ",")
}

func takesValue(o *option) bool { return o.kind != kindBool && o.kind != kindCount }

// isShortFlagToken reports "-x..." tokens, excluding negative numbers.
func isShortFlagToken(tok string) bool {
	if len(tok) < 2 || tok[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(tok, 64)
	return err != nil
}

// quoteValue follows AIPerf's cli_command: numbers, booleans, flags and the
// subcommand stay bare; other strings are single-quoted.
func quoteValue(v string) string {
	if v == "profile" || strings.HasPrefix(v, "-") && !isNumber(v) {
		return v
	}
	if isNumber(v) || v == "true" || v == "false" {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

func isNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil && !strings.ContainsAny(v, "xXnN") // not hex, inf or nan
}
