package config

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flag annotations. Flags registered by other packages on the profile
// command can set GroupAnnotation (one of the Group* headings) and
// AliasesAnnotation (extra long names, for display) to appear in --help.
const (
	GroupAnnotation   = "aiperf_help_group"
	AliasesAnnotation = "aiperf_help_aliases"
	choicesAnnotation = "aiperf_help_choices"
)

// RegisterProfileFlags adds every option of this package to cmd, installs
// alias normalization (--model, --isl, ... resolve to their primary flag, so
// repeated values accumulate across spellings) and the grouped help.
func RegisterProfileFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.SortFlags = false // help lists flags in reference order
	for _, o := range options {
		registerFlag(fs, o)
	}
	installAliasNormalization(fs)
	installHelp(cmd)
}

func registerFlag(fs *pflag.FlagSet, o *option) {
	name := o.names[0]
	switch o.kind {
	case kindString:
		def, _ := o.def.(string)
		fs.StringP(name, o.short, def, o.usage)
	case kindInt:
		def, _ := o.def.(int)
		fs.IntP(name, o.short, def, o.usage)
	case kindFloat:
		def, _ := o.def.(float64)
		fs.Float64P(name, o.short, def, o.usage)
	case kindBool:
		def, _ := o.def.(bool)
		fs.BoolP(name, o.short, def, o.usage)
	case kindList:
		def, _ := o.def.([]string)
		fs.StringSliceP(name, o.short, def, o.usage)
	case kindPairs, kindItems:
		// StringArray: no comma splitting at parse time, JSON objects and
		// "a:1,b:2" items are split by parsePairs with JSON awareness.
		fs.StringArrayP(name, o.short, nil, o.usage)
	case kindCount:
		fs.CountP(name, o.short, o.usage)
	default:
		panic(fmt.Sprintf("config: option %s has no flag kind", o.key)) // programming error in the table
	}
}

// installAliasNormalization maps every alias to its primary flag name,
// chaining any normalization already installed on the flag set.
func installAliasNormalization(fs *pflag.FlagSet) {
	prev := fs.GetNormalizeFunc()
	fs.SetNormalizeFunc(func(f *pflag.FlagSet, name string) pflag.NormalizedName {
		if o, ok := optionByName[name]; ok {
			return pflag.NormalizedName(o.names[0])
		}
		return prev(f, name)
	})
}

// AnnotateChoices records registry-backed choices (every option naming a
// plugin category) on the flags so --help lists them. Validate checks them
// independently.
func AnnotateChoices(cmd *cobra.Command, ch Choices) {
	fs := cmd.Flags()
	for _, o := range options {
		if names := ch[o.category]; o.category != "" && len(names) > 0 {
			_ = fs.SetAnnotation(o.names[0], choicesAnnotation, names)
		}
	}
}
