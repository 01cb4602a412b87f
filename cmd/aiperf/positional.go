package main

import (
	"fmt"

	"github.com/spf13/pflag"
)

// positional is one parameter a command takes either as its i-th argument
// or as a flag (cyclopts' rule, which AIPerf's trace commands follow).
type positional struct {
	flag, what string
	set        func(arg string) error
}

// takePositionals applies the arguments given to their parameters; giving
// one both ways is an error naming it.
func takePositionals(f *pflag.FlagSet, args []string, params ...positional) error {
	for i, p := range params {
		if i >= len(args) {
			break
		}
		if f.Changed(p.flag) {
			return fmt.Errorf("%s given both as an argument and as --%s", p.what, p.flag)
		}
		if err := p.set(args[i]); err != nil {
			return err
		}
	}
	return nil
}

// setString is a positional setter for a string parameter.
func setString(dst *string) func(string) error {
	return func(s string) error { *dst = s; return nil }
}
