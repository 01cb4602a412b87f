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
