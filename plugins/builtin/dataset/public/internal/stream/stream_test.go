package stream

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJSONArrayStopsEarly(t *testing.T) {
	p := write(t, "a.json", `[{"a":1}, {"a":2}, {"a":3}]`)
	var got []string
	err := JSONArray(context.Background(), p, func(i int, raw json.RawMessage) error {
		got = append(got, string(raw))
		if i == 1 {
			return ErrStop
		}
		return nil
	})
	if err != nil || strings.Join(got, " ") != `{"a":1} {"a":2}` {
		t.Errorf("got %v, %v", got, err)
	}
}

func TestJSONLNamesFileAndLine(t *testing.T) {
	p := write(t, "q.jsonl", "{\"a\":1}\n\n{\"a\":2}\n")
	err := JSONL(context.Background(), p, func(line int, data []byte) error {
		if line == 3 {
			return os.ErrInvalid
		}
		return nil
	})
	if err == nil || !strings.HasPrefix(err.Error(), p+":3: ") {
		t.Errorf("err = %v, want it to start with %s:3:", err, p)
	}
}

func TestParquetRejectsGarbageWithoutPanicking(t *testing.T) {
	for name, body := range map[string]string{
		"short.parquet":  "PAR1",
		"magic.parquet":  "PAR1" + strings.Repeat("\x00", 64) + "\xff\xff\x00\x00PAR1",
		"random.parquet": strings.Repeat("not parquet ", 20),
	} {
		p := write(t, name, body)
		err := Parquet(context.Background(), []string{p}, func(Row) error { return nil })
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
	if err := IsParquet(write(t, "x.parquet", "<html></html> and more text")); err == nil {
		t.Error("IsParquet accepted HTML")
	}
}

func TestParquetRowsOfTheFixture(t *testing.T) {
	var rows []Row
	err := Parquet(context.Background(), []string{"../../testdata/hub/HuggingFaceH4--mt_bench_prompts/default/train/0000.parquet"}, func(r Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if p, _ := rows[0]["prompt"].([]any); len(p) != 2 || rows[0]["prompt_id"] != int64(81) || rows[2]["category"] != "math" {
		t.Errorf("row 0 = %v, row 2 = %v", rows[0], rows[2])
	}
}
