package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/aiperf-go/aiperf/core/app"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/spf13/cobra"
)

func newPluginsCmd() *cobra.Command {
	var all, validate bool
	cmd := &cobra.Command{
		Use:   "plugins [category] [name]",
		Short: "Explore plugins: aiperf plugins [category] [name]",
		Args:  cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := app.NewRegistry()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case validate:
				return validatePlugins(out, reg)
			case len(args) == 2:
				return showPlugin(out, reg, registry.Normalize(args[0]), args[1])
			case len(args) == 1:
				return listCategory(out, reg, registry.Normalize(args[0]))
			default:
				_ = all // every category is listed; --all is accepted for AIPerf compatibility
				return listCategories(out, reg)
			}
		},
	}
	cmd.Flags().BoolVarP(&all, "all", "a", false, "Show every plugin category")
	cmd.Flags().BoolVarP(&validate, "validate", "v", false, "Validate plugins.yaml against the built-in implementations")
	return cmd
}

func listCategories(w io.Writer, reg *registry.Registry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CATEGORY\tPLUGINS\tDESCRIPTION")
	for _, c := range sdk.Categories {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c.Name, len(reg.Names(c.Name)), c.Description)
	}
	return tw.Flush()
}

func listCategory(w io.Writer, reg *registry.Registry, category string) error {
	if _, ok := sdk.LookupCategory(category); !ok {
		_, err := reg.Resolve(category, "")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tDESCRIPTION")
	for _, e := range reg.Entries(category) {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Name, e.Kind, e.Description)
	}
	return tw.Flush()
}

func showPlugin(w io.Writer, reg *registry.Registry, category, name string) error {
	e, err := reg.Resolve(category, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Type:        %s\nCategory:    %s\nKind:        %s\nSource:      %s\nPriority:    %d\nDescription: %s\n",
		e.Name, e.Category, e.Kind, e.Source, e.Priority, e.Description)
	return nil
}

func validatePlugins(w io.Writer, reg *registry.Registry) error {
	errs := reg.Validate()
	for _, warn := range reg.Warnings {
		fmt.Fprintf(w, "(WARN) %s\n", warn)
	}
	if len(errs) == 0 {
		fmt.Fprintln(w, "(OK) Manifest entries and built-in implementations agree")
		fmt.Fprintln(w, "All checks passed")
		return nil
	}
	for _, err := range errs {
		fmt.Fprintf(w, "(FAIL) %v\n", err)
	}
	fmt.Fprintln(w, "Validation failed")
	return exitError{code: 1}
}
