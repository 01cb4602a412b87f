package config

import (
	"slices"
	"testing"
)

func TestShardArgsDropsTheLaunchersOptions(t *testing.T) {
	in := []string{"profile", "-m", "m", "--url", "http://x", "--service-manager", "local", "--shards=4",
		"--artifact-dir", "out", "--ui", "simple", "--allow-partial", "--exact", "--concurrency", "8",
		"--image", "reg/aiperf:1", "--node-selector", "pool=gpu", "--keep-job", "--streaming",
		"--junit", "r.xml", "--markdown-summary=s.md", "--generate-plots", "--threshold", "x"}
	got := ShardArgs(in, 7)
	// --threshold stays: a shard's own watch (--abort-on-threshold-breach)
	// needs it; the reports and plots are the launcher's, of the merged run.
	want := []string{"-m", "m", "--url", "http://x", "--concurrency", "8", "--streaming", "--threshold", "x",
		"--random-seed", "7", "--service-manager", "inprocess", "--shards", "1"}
	if !slices.Equal(got, want) {
		t.Errorf("ShardArgs =\n %q\nwant\n %q", got, want)
	}
	// A seed given is kept, not overridden.
	got = ShardArgs([]string{"profile", "--random-seed=3", "--shards", "2"}, 9)
	want = []string{"--random-seed=3", "--service-manager", "inprocess", "--shards", "1"}
	if !slices.Equal(got, want) {
		t.Errorf("ShardArgs with a seed = %q, want %q", got, want)
	}
}
