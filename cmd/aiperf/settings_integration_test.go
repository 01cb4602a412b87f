package main

import (
	"context"
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/core/config"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/customloader/mooncaketrace"
	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/synthetic"
	"github.com/spf13/cobra"
)

// AIPerf's dataset flags reach the real plugins' own settings through the
// host: their keys are the plugins' json keys, and --plugin-config still
// wins over the flags.
func TestDatasetFlagsReachPluginSettings(t *testing.T) {
	args := []string{"-m", "m", "--session-turns-mean", "3", "--session-turns-stddev", "1",
		"--session-turn-delay-mean", "200", "--session-turn-delay-stddev", "50", "--isl-block-size", "16",
		"--plugin-config", "dataset_composer.synthetic.turn_delay_stddev_ms=7"}
	cmd := &cobra.Command{Use: "profile"}
	config.RegisterProfileFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(cmd, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := app.FromConfig(cfg, "openai", args)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := embeddedRegistry()
	if err != nil {
		t.Fatal(err)
	}
	h := app.NewPluginHost(reg, s)
	defer h.Close()
	c, err := app.Use(context.Background(), h, sdk.DatasetComposers, synthetic.Name, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want := synthetic.Config{SessionTurnsMean: 3, SessionTurnsStddev: 1, TurnDelayMeanMs: 200, TurnDelayStddevMs: 7}
	if got := c.(*synthetic.Composer).Config; !reflect.DeepEqual(got, want) {
		t.Errorf("synthetic settings = %+v, want %+v", got, want)
	}
	l, err := app.Use(context.Background(), h, sdk.CustomDatasetLoaders, mooncaketrace.Name, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := l.(*mooncaketrace.Loader).Config; got != (mooncaketrace.Config{BlockSize: 16}) {
		t.Errorf("mooncake_trace settings = %+v, want block_size 16", got)
	}
	if u := h.Unused(); len(u) != 0 {
		t.Errorf("Unused = %v", u)
	}
}
