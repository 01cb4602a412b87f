package genaiperf_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/aiperf-go/aiperf/core/config"
	"github.com/aiperf-go/aiperf/core/config/genaiperf"
)

// FuzzTranslate: an error names the file (and, as *Error, a line the file
// has); a translation is a command line the profile flags parse.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{
		genaiperf.Template,
		"model_names: m\nendpoint:\n  type: chat\n  service_kind: openai\ninput:\n  image:\n    width_mean: -3\n",
		"model_names: [a, b]\nendpoint:\n  type: chat\n  streaming: true\n  url: localhost:8000\nperf_analyzer:\n  stimulus: {concurrency: 4}\n",
		"analyze:\n  runtime_batch_size: {start: 1}\n", "endpoint:\n  streaming: yes please\n",
		"model_names: m\ninput:\n  extra: {temperature: 0.5}\n  header: ['X:1']\n", "- a\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "gp.yaml"
		res, err := genaiperf.Translate(file, data, genaiperf.Options{EndpointTypes: []string{"chat", "completions"}})
		if err != nil {
			if !strings.HasPrefix(err.Error(), file+":") {
				t.Fatalf("error does not name the file: %v", err)
			}
			var e *genaiperf.Error
			if errors.As(err, &e) && (e.Line < 0 || e.Line > bytes.Count(data, []byte("\n"))+1) {
				t.Fatalf("error names line %d of a %d-byte file: %v", e.Line, len(data), err)
			}
			return
		}
		cmd := &cobra.Command{Use: res.Command, RunE: func(*cobra.Command, []string) error { return nil }}
		config.RegisterProfileFlags(cmd)
		// analyze adds its sweep flags to the profile flags.
		cmd.FParseErrWhitelist.UnknownFlags = res.Command == "analyze"
		if err := cmd.ParseFlags(res.Argv()); err != nil {
			t.Fatalf("translation %q does not parse: %v", res.Argv(), err)
		}
	})
}
