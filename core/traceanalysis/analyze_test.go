package traceanalysis

import (
	"bytes"
	"encoding/json"
	"github.com/aiperf-go/aiperf/internal/jsontest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compareJSON checks that got and want (AIPerf's report) have the same
// keys and numbers, within a relative 1e-12 for floats.
func compareJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("our JSON: %v", err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("AIPerf JSON: %v", err)
	}
	jsontest.EqualWithin(t, "", g, w, 1e-12)
}

func TestMatchesAIPerf(t *testing.T) {
	for _, tc := range []struct {
		bs     int
		suffix string
	}{{DefaultBlockSize, "bs512"}, {64, "bs64"}} {
		t.Run(tc.suffix, func(t *testing.T) {
			st, err := AnalyzeFile("testdata/mooncake_small.jsonl", tc.bs)
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := WriteJSON(&js, st); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "aiperf_analysis_"+tc.suffix+".json"))
			if err != nil {
				t.Fatal(err)
			}
			compareJSON(t, js.Bytes(), want)

			var out bytes.Buffer
			WriteReport(&out, st)
			out.WriteString("Analysis report saved to aiperf_analysis_" + tc.suffix + ".json\n")
			wantOut, err := os.ReadFile(filepath.Join("testdata", "aiperf_stdout_"+tc.suffix+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != string(wantOut) {
				t.Errorf("report differs from AIPerf's:\n got:\n%s\nwant:\n%s", out.String(), wantOut)
			}
		})
	}
}

func TestPyFloat(t *testing.T) {
	for v, want := range map[float64]string{
		236: "236.0", 0: "0.0", 0.5: "0.5", 1e-5: "1e-05", 1e16: "1e+16", 1747.375: "1747.375",
	} {
		b, _ := PyFloat(v).MarshalJSON()
		if string(b) != want {
			t.Errorf("PyFloat(%v) = %s, want %s", v, b, want)
		}
	}
}

func TestEmptyTrace(t *testing.T) {
	st, err := AnalyzeReader(strings.NewReader("\n\n"), "empty.jsonl", 512)
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalRequests != 0 || st.ISLStats != nil || st.HitRateStats != nil {
		t.Errorf("empty trace: %+v", st)
	}
	var out bytes.Buffer
	WriteReport(&out, st)
	if !strings.Contains(out.String(), "N/A") {
		t.Errorf("empty report has no N/A rows:\n%s", out.String())
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	_, err := AnalyzeReader(strings.NewReader("{\"input_length\":1}\n\n{bad\n"), "t.jsonl", 512)
	if err == nil || !strings.HasPrefix(err.Error(), "t.jsonl:3:") {
		t.Errorf("malformed line error = %v, want t.jsonl:3: prefix", err)
	}
	_, err = AnalyzeReader(strings.NewReader("{\"input_length\":\"x\"}"), "t.jsonl", 512)
	if err == nil || !strings.HasPrefix(err.Error(), "t.jsonl:1:") {
		t.Errorf("wrong-type error = %v, want t.jsonl:1: prefix", err)
	}
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	_, err = AnalyzeFile(missing, 512)
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file error = %v, want it to name %s", err, missing)
	}
}
