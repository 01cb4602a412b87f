package jsonexport

import (
	"bytes"
	"encoding/json"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// A merged sharded run's summary carries its sharding block after
// error_summary; any other run's has none.
func TestShardingBlock(t *testing.T) {
	plain, err := Render(&sdk.ExportContext{Results: sampleResults()})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte(`"sharding"`)) {
		t.Errorf("a normal run's summary has a sharding block:\n%s", plain)
	}
	for _, c := range []struct {
		name string
		sh   sdk.ShardingInfo
		want string
	}{
		{"sketch, complete", sdk.ShardingInfo{Shards: 4, Completed: 4, Percentiles: "ddsketch", RelativeAccuracy: 0.001},
			`{"shards":4,"completed":4,"failed":[],"partial":false,"percentiles":"ddsketch","relative_accuracy":0.001}`},
		{"exact, partial", sdk.ShardingInfo{Shards: 3, Completed: 2, Partial: true, Percentiles: "exact",
			Failed: []sdk.ShardFailure{{Shard: 1, Reason: "exit status 137"}}},
			`{"shards":3,"completed":2,"failed":[{"shard":1,"reason":"exit status 137"}],"partial":true,"percentiles":"exact"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh := c.sh
			b, err := Render(&sdk.ExportContext{Results: sampleResults(), Sharding: &sh})
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("summary does not parse: %v", err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, doc["sharding"]); err != nil || got.String() != c.want {
				t.Errorf("sharding = %s (%v), want %s", got.String(), err, c.want)
			}
			if i, j := bytes.Index(b, []byte(`"error_summary"`)), bytes.Index(b, []byte(`"sharding"`)); i < 0 || j < i {
				t.Errorf("sharding block at %d, want after error_summary at %d", j, i)
			}
			if !bytes.Equal(bytes.Replace(b, []byte("  \"sharding\": "+string(doc["sharding"])+",\n"), nil, 1), plain) {
				t.Errorf("the block changed more than its own key:\n%s", b)
			}
		})
	}
}
