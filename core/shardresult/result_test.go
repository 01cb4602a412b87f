package shardresult

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

func TestDecodeErrors(t *testing.T) {
	d, err := metrics.NewDigest([]float64{1, 2, 3}, metrics.DefaultRelativeAccuracy)
	if err != nil {
		t.Fatal(err)
	}
	good := Result{Version: Version, ShardIndex: 1, ShardCount: 2, PlanHash: "h", Summary: []byte(`{}`),
		Partial: &metrics.Partial{Metrics: map[string]*metrics.Digest{"x": d}}}
	enc := func(mut func(m map[string]any)) []byte {
		b, _ := json.Marshal(&good)
		var m map[string]any
		json.Unmarshal(b, &m)
		mut(m)
		b, _ = json.Marshal(m)
		return b
	}
	r, err := Decode(enc(func(map[string]any) {}))
	if err != nil || r.ShardIndex != 1 || r.Partial.Metrics["x"].Count != 3 || r.Partial.Metrics["x"].Stats().P50 < 1.99 {
		t.Fatalf("Decode of a good result: %+v, %v", r, err)
	}
	for _, c := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"not JSON", []byte("AIPERF"), "not JSON"},
		{"truncated JSON", enc(func(map[string]any) {})[:40], "not JSON"},
		{"no version", enc(func(m map[string]any) { delete(m, "version") }), "no version"},
		{"newer version", enc(func(m map[string]any) { m["version"] = 2 }), "version 2, this aiperf reads version 1"},
		{"index out of range", enc(func(m map[string]any) { m["shard_index"] = 2 }), "shard 2 of 2"},
		{"no summary", enc(func(m map[string]any) { delete(m, "summary") }), "no summary"},
		{"no metrics", enc(func(m map[string]any) { delete(m, "partial") }), "no metrics"},
		{"bad sketch", enc(func(m map[string]any) {
			m["partial"].(map[string]any)["metrics"].(map[string]any)["x"].(map[string]any)["ddsketch"] = "AAAA"
		}), "ddsketch"},
		{"sketch count disagrees", enc(func(m map[string]any) {
			m["partial"].(map[string]any)["metrics"].(map[string]any)["x"].(map[string]any)["count"] = 4
		}), "holds 3 values, the digest says 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.payload)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestWriteRunDir(t *testing.T) {
	r := &Result{ShardIndex: 2, Summary: []byte(`{"a":1}`), RecordsJSONL: []byte("{}\n")}
	dir := filepath.Join(t.TempDir(), "s")
	if err := r.WriteRunDir(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"profile_export_aiperf.json": `{"a":1}`, "profile_export.jsonl": "{}\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	r.RecordsJSONL = nil
	if err := r.WriteRunDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "shard 2") {
		t.Errorf("WriteRunDir without records: %v", err)
	}
}

func TestFromRunDirErrors(t *testing.T) {
	if _, err := FromRunDir(t.TempDir(), nil, sdk.RunInfo{}, 0, 1, "", false); err == nil || !strings.Contains(err.Error(), "catalog") {
		t.Errorf("FromRunDir without a catalog: %v", err)
	}
	empty := t.TempDir()
	if _, err := FromRunDir(empty, &metrics.Catalog{}, sdk.RunInfo{}, 0, 1, "", false); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("FromRunDir of an empty directory: %v", err)
	}
}
