package config

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const (
	helpWidth  = 100
	helpIndent = "      "
	otherGroup = "Other"
)

// installHelp replaces cobra's flat flag list with the reference's grouped
// layout: one heading per group, each flag with all its names.
func installHelp(cmd *cobra.Command) {
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		writeUsage(c.OutOrStderr(), c)
		return nil
	})
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		w := c.OutOrStdout()
		if desc := strings.TrimSpace(firstNonEmpty(c.Long, c.Short)); desc != "" {
			fmt.Fprintf(w, "%s\n\n", desc)
		}
		writeUsage(w, c)
	})
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// writeUsage prints the usage line, then every visible flag under its group
// heading, groups in reference order, flags in registration order.
func writeUsage(w io.Writer, c *cobra.Command) {
	fmt.Fprintf(w, "Usage:\n  %s [flags]\n", c.CommandPath())
	byGroup := map[string][]*pflag.Flag{}
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := flagGroup(f)
		byGroup[g] = append(byGroup[g], f)
	})
	for _, g := range append(append([]string(nil), groupOrder...), otherGroup) {
		flags := byGroup[g]
		if len(flags) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g)
		for _, f := range flags {
			writeFlag(w, f)
		}
	}
	if ex := strings.TrimSpace(c.Example); ex != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", c.Example)
	}
}

func flagGroup(f *pflag.Flag) string {
	if o, ok := optionByName[f.Name]; ok {
		return o.group
	}
	if g := f.Annotations[GroupAnnotation]; len(g) == 1 {
		for _, known := range groupOrder {
			if g[0] == known {
				return known
			}
		}
	}
	return otherGroup
}

// writeFlag prints "  -m, --model-names, --model <list>  (required)" and
// the wrapped description, default and choices below it.
func writeFlag(w io.Writer, f *pflag.Flag) {
	o := optionByName[f.Name]
	var names []string
	short := f.Shorthand
	if o != nil && o.helpShort != "" {
		short = o.helpShort
	}
	if short != "" {
		names = append(names, "-"+short)
	}
	if o != nil {
		for _, n := range o.names {
			names = append(names, "--"+n)
		}
	} else {
		names = append(names, "--"+f.Name)
		for _, a := range f.Annotations[AliasesAnnotation] {
			names = append(names, "--"+a)
		}
	}
	line := "  " + strings.Join(names, ", ")
	if mv := flagMetavar(f, o); mv != "" {
		line += " " + mv
	}
	if o != nil && o.required {
		line += "  (required)"
	}
	fmt.Fprintln(w, line)
	wrap(w, f.Usage)
	if d := defaultText(f, o); d != "" {
		wrap(w, "Default: "+d)
	}
	if ch := flagChoices(f, o); len(ch) > 0 {
		wrap(w, "Choices: "+strings.Join(ch, ", "))
	}
}

func flagMetavar(f *pflag.Flag, o *option) string {
	if o != nil {
		return o.kind.metavar()
	}
	if f.NoOptDefVal != "" {
		return "" // boolean-style flag
	}
	return "<" + f.Value.Type() + ">"
}

// defaultText renders the default from the same table the defaults layer
// uses, so --help cannot drift from behaviour.
func defaultText(f *pflag.Flag, o *option) string {
	if o == nil {
		if f.NoOptDefVal != "" || f.DefValue == "" || f.DefValue == "[]" || f.DefValue == "0" {
			return ""
		}
		return f.DefValue
	}
	if o.defHelp != "" {
		return o.defHelp
	}
	switch d := o.def.(type) {
	case string:
		return d
	case int:
		return strconv.Itoa(d)
	case float64:
		return strconv.FormatFloat(d, 'f', -1, 64)
	case []string:
		return strings.Join(d, ", ")
	}
	return "" // booleans and unset options
}

func flagChoices(f *pflag.Flag, o *option) []string {
	if ch := f.Annotations[choicesAnnotation]; len(ch) > 0 {
		return ch
	}
	if o != nil {
		return o.choices
	}
	return nil
}

// wrap writes text indented and wrapped at helpWidth columns.
func wrap(w io.Writer, text string) {
	words := strings.Fields(text)
	if len(words) == 0 {
		return
	}
	line := helpIndent
	for _, word := range words {
		if len(line) > len(helpIndent) && len(line)+1+len(word) > helpWidth {
			fmt.Fprintln(w, line)
			line = helpIndent
		}
		if len(line) > len(helpIndent) {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
