package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, name string, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// FuzzJSONArray checks the element-by-element reader against
// encoding/json reading the whole array: both accept the same files and
// yield the same elements.
func FuzzJSONArray(f *testing.F) {
	for _, s := range []string{`[]`, ` [ {"a": 1}, [2], "s", null ] `, `[{"id": "x", "conversations": [{"from": "human", "value": "hi"}]}]`,
		`[1,]`, `[1] [2]`, `{"a": 1}`, `[`, "\xEF\xBB\xBF[1]", `[1 2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		path := writeTemp(t, "data.json", content)
		var got []json.RawMessage
		err := JSONArray(context.Background(), path, func(_ int, elem json.RawMessage) error {
			got = append(got, append(json.RawMessage{}, elem...))
			return nil
		})
		var want []json.RawMessage
		werr := json.Unmarshal(content, &want)
		if werr == nil && want == nil {
			werr = json.Unmarshal([]byte("x"), &want) // top-level null is not an array
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("JSONArray error %v, encoding/json error %v", err, werr)
		}
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d elements, encoding/json %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(bytes.TrimSpace(got[i]), bytes.TrimSpace(want[i])) {
				t.Fatalf("element %d: %s, encoding/json %s", i, got[i], want[i])
			}
		}
	})
}

// FuzzJSONL checks that every non-blank line reaches the callback once, in
// order, with its 1-based number.
func FuzzJSONL(f *testing.F) {
	for _, s := range []string{"{\"a\": 1}\n\n{\"b\": 2}\n", "x\r\ny", "", "\n\n", " \t{}\t "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		path := writeTemp(t, "data.jsonl", content)
		want := map[int]string{}
		for i, l := range strings.Split(string(content), "\n") {
			if l = strings.TrimSpace(strings.TrimSuffix(l, "\r")); l != "" {
				want[i+1] = l
			}
		}
		last := 0
		err := JSONL(context.Background(), path, func(line int, data []byte) error {
			if line <= last || want[line] != string(data) {
				t.Fatalf("line %d (after %d): %q, want %q", line, last, data, want[line])
			}
			last = line
			delete(want, line)
			return nil
		})
		if err != nil || len(want) != 0 {
			t.Fatalf("err %v, lines never seen: %v", err, want)
		}
	})
}

// FuzzParquet checks that a malformed Parquet file is an error naming the
// file, never a crash.
func FuzzParquet(f *testing.F) {
	for _, p := range []string{
		"../../testdata/hub/HuggingFaceH4--mt_bench_prompts/default/train/0000.parquet",
		"../../testdata/hub/AI-MO--NuminaMath-TIR/default/train/0000.parquet",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, content []byte) {
		path := writeTemp(t, "0000.parquet", content)
		rows := 0
		err := Parquet(context.Background(), []string{path}, func(Row) error {
			if rows++; rows > 10000 {
				return ErrStop
			}
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
		if IsParquet(path) != nil && err == nil && rows > 0 {
			t.Fatalf("%d rows read from a file without the Parquet magic", rows)
		}
	})
}
