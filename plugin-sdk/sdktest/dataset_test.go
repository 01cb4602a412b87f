package sdktest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/plugin-sdk/sdktest/internal/fixtures"
)

// writeSample writes a two-line dataset in the fixture loader's format.
func writeSample(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sample.jsonl")
	data := `{"session_id":"s1","text":"What is the capital of France?","max_tokens":32}
{"session_id":"s2","text":"Summarize the plot of Hamlet."}
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDatasetLoaderAcceptsConformingLoader(t *testing.T) {
	sample := writeSample(t)
	runSuite(t, func(tb testing.TB) { DatasetLoader(tb, &fixtures.Loader{}, sample) }).wantClean(t)
}

func TestDatasetLoaderReportsEachViolation(t *testing.T) {
	sample := writeSample(t)
	tests := []struct {
		fault string
		want  []string
	}{
		{fixtures.DLCanLoadAnything, []string{"garbage.bin) = true for a garbage file"}},
		{fixtures.DLCanLoadByExtension, []string{"does-not-exist.jsonl) = true for a missing file"}},
		{fixtures.DLRefusesSample, []string{"sample.jsonl) = false for the sample file"}},
		{fixtures.DLSkipsBadLines, []string{"0 conversations with no error for a garbage file"}},
		{fixtures.DLNoTurns, []string{`Load: conversation 0 (session "s1") has no turns`}},
		{fixtures.DLEmptyTexts, []string{`Load: conversation 1 (session "s2") turn 0 has no non-empty text`}},
		{fixtures.DLPanicsOnGarbage, []string{"Load(a garbage file) panicked", "nil pointer dereference"}},
		{fixtures.DLLoadsNothing, []string{"sample.jsonl) returned no conversations"}},
	}
	for _, tc := range tests {
		t.Run(tc.fault, func(t *testing.T) {
			r := runSuite(t, func(tb testing.TB) { DatasetLoader(tb, &fixtures.Loader{Fault: tc.fault}, sample) })
			r.wantReport(t, tc.want...)
		})
	}
}

func TestDatasetLoaderMissingSampleIsFatal(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	r := runSuite(t, func(tb testing.TB) { DatasetLoader(tb, &fixtures.Loader{}, missing) })
	r.wantReport(t, "DatasetLoader: sample file", "nope.jsonl")
	if !r.fatal {
		t.Error("a missing sample should stop the checks")
	}
}

func TestByteTokenizerRoundTripsText(t *testing.T) {
	tok := byteTokenizer{}
	for _, s := range []string{"", "hello world", "a{b}~"} {
		if got := tok.Decode(tok.Encode(s)); got != s || tok.Count(s) != len(s) {
			t.Errorf("Decode(Encode(%q)) = %q, Count %d", s, got, tok.Count(s))
		}
	}
	if got := tok.Decode([]int{0, 27, 100_000, -1}); got != "abez" {
		t.Errorf("Decode of non-printable ids = %q, want \"abez\"", got)
	}
}
