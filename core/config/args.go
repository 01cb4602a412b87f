package config

import "strings"

// ExpandMultiValueArgs rewrites AIPerf's multi-value form, where one flag
// takes several words (--extra-inputs a:1 b:2, --url h1 h2, -m a b), into
// repeated flags pflag understands (--extra-inputs a:1 --extra-inputs b:2).
// Call it on os.Args[1:] before cobra parses them. Only list options
// (model names, URLs, headers, extra inputs) consume extra words; "--" ends
// the rewriting.
func ExpandMultiValueArgs(args []string) []string {
	out := make([]string, 0, len(args))
	var repeat string // the flag token that bare words repeat
	for i := 0; i < len(args); i++ {
		tok := args[i]
		switch {
		case tok == "--":
			return append(out, args[i:]...)
		case strings.HasPrefix(tok, "-") && len(tok) > 1:
			repeat = ""
			out = append(out, tok)
			if optionalValueFlag(tok) && (i+1 == len(args) || isFlagToken(args[i+1])) {
				// Bare (AIPerf's consume_multiple takes zero words): an
				// empty value, which turns the option on with its defaults.
				out[len(out)-1] = tok + "="
				continue
			}
			if multiValueFlag(tok) && i+1 < len(args) {
				// The first value is taken as-is, even if it starts with "-",
				// exactly as pflag would.
				repeat = tok
				i++
				out = append(out, args[i])
			}
		case repeat != "":
			out = append(out, repeat, tok)
		default:
			out = append(out, tok)
		}
	}
	return out
}

// multiValueFlag reports "--url", "--model" or "-H" style tokens (without an
// inline value) of list options.
func multiValueFlag(tok string) bool {
	var o *option
	switch {
	case strings.HasPrefix(tok, "--"):
		if strings.Contains(tok, "=") {
			return false
		}
		o = optionByName[tok[2:]]
	case len(tok) == 2:
		o = optionByShort[tok[1]]
	}
	return o != nil && o.kind.repeatable()
}

// optionalValueFlag reports list options that may be given with no value
// (--server-metrics alone means "on, with the endpoint's /metrics").
func optionalValueFlag(tok string) bool {
	if !strings.HasPrefix(tok, "--") || strings.Contains(tok, "=") {
		return false
	}
	o := optionByName[tok[2:]]
	return o != nil && o.optionalValue
}

// isFlagToken reports a token that starts another flag ("-x", "--name"),
// not a value such as "-" or a negative number.
func isFlagToken(tok string) bool {
	if len(tok) < 2 || tok[0] != '-' {
		return false
	}
	return tok == "--" || tok[1] == '-' || (tok[1] < '0' || tok[1] > '9') && tok[1] != '.'
}
