// Package fuzzcheck holds the properties the fuzz targets of the built-in
// endpoints and dataset loaders share: what every response parser and every
// file loader must do with any bytes a server or a user hands it.
package fuzzcheck

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Endpoint fuzzes ep's response parsing from seeds (real response units of
// its API): ParseResponse is deterministic, a FirstTokenDetector agrees with
// ParseResponse(data).HasContent(), and a RecordParser agrees with
// ParseResponse on a one-unit record and fails a record exactly when one of
// its units (the input split at newlines) fails.
func Endpoint(f *testing.F, ep sdk.Endpoint, seeds ...string) {
	for _, s := range append(seeds, "", "[DONE]", `{"`, "{}", "null", `{"choices":[{}]}`) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ep.ParseResponse(data)
		again, err2 := ep.ParseResponse(data)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(p, again) {
			t.Fatalf("two parses differ: %+v (%v) then %+v (%v)", p, err, again, err2)
		}
		if err != nil {
			if p.HasContent() || p.Usage != nil {
				t.Fatalf("error %v came with content %+v", err, p)
			}
		} else if p.Result != nil && p.Result.Count < 0 {
			t.Fatalf("negative result count: %+v", p.Result)
		}
		if d, ok := ep.(sdk.FirstTokenDetector); ok {
			if got, want := d.IsFirstToken(data), err == nil && p.HasContent(); got != want {
				t.Fatalf("IsFirstToken = %v, ParseResponse content = %v (err %v)", got, want, err)
			}
		}
		rp, ok := ep.(sdk.RecordParser)
		if !ok {
			return
		}
		one, rerr := rp.ParseRecord([]sdk.Response{{PerfNs: 7, Data: data}})
		if (rerr == nil) != (err == nil) {
			t.Fatalf("ParseRecord error %v, ParseResponse error %v", rerr, err)
		}
		if rerr == nil {
			p.PerfNs = 7
			if len(one) != 1 || !reflect.DeepEqual(one[0], p) {
				t.Fatalf("ParseRecord %+v, ParseResponse %+v", one, p)
			}
		}
		lines := bytes.Split(data, []byte("\n"))
		units := make([]sdk.Response, len(lines))
		wantErr := false
		for i, l := range lines {
			units[i] = sdk.Response{PerfNs: int64(i + 1), Data: l}
			if _, err := ep.ParseResponse(l); err != nil {
				wantErr = true
			}
		}
		out, rerr := rp.ParseRecord(units)
		if (rerr != nil) != wantErr {
			t.Fatalf("ParseRecord of %d units: error %v, want one: %v", len(units), rerr, wantErr)
		}
		if rerr == nil {
			if len(out) != len(units) {
				t.Fatalf("ParseRecord returned %d responses for %d units", len(out), len(units))
			}
			for i := range out {
				if out[i].PerfNs != units[i].PerfNs {
					t.Fatalf("response %d: PerfNs %d, want %d", i, out[i].PerfNs, units[i].PerfNs)
				}
			}
		}
	})
}

// Loader fuzzes a dataset loader with file contents: the file is written
// to a temporary directory and loaded with opts. Load never panics; an
// error names the file, and a "file:line: ..." error names a line the file
// has. A file that loads gives
// conversations with at least one turn each. skip, when set, passes over
// inputs too costly for a fuzz iteration (traces asking for huge prompts).
func Loader(f *testing.F, l sdk.CustomDatasetLoader, name string, opts sdk.DatasetOptions, skip func([]byte) bool, seeds ...string) {
	for _, s := range append(seeds, "", "\n", "{}", `{"`, "[]", "null") {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		if skip != nil && skip(content) {
			t.Skip("too costly for one iteration")
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		l.CanLoad(path)
		o := opts
		o.InputFile = path
		convs, err := l.Load(context.Background(), path, o)
		if err != nil {
			CheckFileError(t, err, path, content)
			return
		}
		for i, c := range convs {
			if len(c.Turns) == 0 {
				t.Fatalf("conversation %d (%q) has no turns", i, c.SessionID)
			}
		}
	})
}

// LongNumber reports whether content has a run of more than five digits:
// a trace line asking for that many tokens builds a prompt too large for a
// fuzz iteration, however well the loader handles it.
func LongNumber(content []byte) bool {
	run := 0
	for _, c := range content {
		if c >= '0' && c <= '9' {
			if run++; run > 5 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// CheckFileError fails t unless err names path and, where it has the
// loaders' "path:line:" form, a line within content.
func CheckFileError(t *testing.T, err error, path string, content []byte) {
	t.Helper()
	msg := err.Error()
	if !strings.Contains(msg, path) {
		t.Fatalf("error does not name the file %s: %v", path, err)
	}
	m := regexp.MustCompile(regexp.QuoteMeta(path) + `:(\d+):`).FindStringSubmatch(msg)
	if m == nil {
		return
	}
	line, _ := strconv.Atoi(m[1])
	if lines := bytes.Count(content, []byte("\n")) + 1; line < 1 || line > lines {
		t.Fatalf("error names line %d of a %d-line file: %v", line, lines, err)
	}
}
