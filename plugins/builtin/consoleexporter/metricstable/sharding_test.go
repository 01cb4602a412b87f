package metricstable

import (
	"bytes"
	"context"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestShardingLine(t *testing.T) {
	for _, c := range []struct {
		sh   sdk.ShardingInfo
		want string
	}{
		{sdk.ShardingInfo{Shards: 4, Completed: 4, Percentiles: "exact"}, "Merged 4 of 4 shards; every statistic exact\n"},
		{sdk.ShardingInfo{Shards: 4, Completed: 4, Percentiles: "ddsketch", RelativeAccuracy: 0.001},
			"Merged 4 of 4 shards; ≈ percentiles (p1-p99) from merged DDSketches, within 0.1% relative; count, avg, min, max, std exact\n"},
		{sdk.ShardingInfo{Shards: 4, Completed: 3, Partial: true, Percentiles: "exact", Failed: []sdk.ShardFailure{{Shard: 2, Reason: "exit status 1"}}},
			"PARTIAL: merged 3 of 4 shards; every statistic exact\n  shard 2 failed: exit status 1\n"},
	} {
		if got := ShardingLine(&c.sh); got != c.want {
			t.Errorf("ShardingLine(%+v) = %q, want %q", c.sh, got, c.want)
		}
	}
	// Render prints it under the tables; a normal run prints none.
	res := &sdk.Results{Metrics: []sdk.MetricResult{{Tag: "request_count", Header: "Request Count", Unit: "requests", Avg: new(float64)}}}
	var plain, sharded bytes.Buffer
	if err := New(WithColor(false)).Render(context.Background(), &plain, &sdk.ExportContext{Results: res}); err != nil {
		t.Fatal(err)
	}
	sh := &sdk.ShardingInfo{Shards: 2, Completed: 1, Partial: true, Percentiles: "ddsketch", RelativeAccuracy: 0.001}
	if err := New(WithColor(false)).Render(context.Background(), &sharded, &sdk.ExportContext{Results: res, Sharding: sh}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "shards") || sharded.String() != plain.String()+ShardingLine(sh) {
		t.Errorf("plain:\n%s\nsharded:\n%s", plain.String(), sharded.String())
	}
}
