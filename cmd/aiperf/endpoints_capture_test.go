package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

const endpointCapturesDir = "../../testdata/aiperf013/endpoints"

// needsAnotherServer are captures made against a misbehaving server (the
// fake server's --empty or --embeddings-no-object mode); our mock always
// answers well, so they cannot be replayed here. The endpoint packages'
// parse tests cover those answers.
var needsAnotherServer = map[string]bool{
	"chat_empty": true, "rankings_empty": true, "image_generation_empty": true, "embeddings_no_object": true,
	"video_generation_download": true, // a 300 ms /content delay only the fake server adds
}

// quirkTags are tags AIPerf reports for endpoints that produce no tokens
// only because its metric registry re-adds filtered dependencies
// (docs/METRICS.md §2.4.1); we apply the endpoint's flags as declared.
var quirkTags = []string{"output_sequence_length", "usage_completion_tokens"}

// nonTextOutputTags are the output metrics AIPerf derives from an OSL of
// 0 when a token-producing endpoint (template) answers with a non-text
// result (embeddings); a record without generated text has no OSL here.
var nonTextOutputTags = map[string][]string{
	"template_named_nvembedqa": {"e2e_output_token_throughput", "output_token_throughput", "total_osl", "output_sequence_length"},
}

// serverTags depend on what the server reports, not on the client: our
// mock reports completion_tokens_details.reasoning_tokens (0), the fake
// server AIPerf was captured against does not.
var serverTags = []string{"usage_reasoning_tokens", "total_usage_reasoning_tokens"}

// unsupportedFlags are AIPerf flags a capture used that we do not have yet.
var unsupportedFlags = map[string]string{}

// captureArgs turns a capture's AIPerf command into ours: the mock's URL,
// the builtin tokenizer, inputs from the checked-in copies.
func captureArgs(t *testing.T, name, url, dir string) ([]string, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(endpointCapturesDir, name, "cmd.txt"))
	if err != nil {
		t.Fatal(err)
	}
	words := shellWords(t, strings.TrimSpace(string(raw)))
	i := slices.Index(words, "profile")
	if i < 0 {
		t.Fatalf("%s: not an aiperf profile command", name)
	}
	inputs := captureInputs(t)
	args := []string{"profile"}
	for j := i + 1; j < len(words); j++ {
		w := words[j]
		if reason, ok := unsupportedFlags[w]; ok {
			return nil, w + ": " + reason
		}
		switch w {
		case "--url", "--tokenizer":
			j++
			v := url
			if w == "--tokenizer" {
				v = "builtin"
			}
			args = append(args, w, v)
			continue
		}
		args = append(args, strings.ReplaceAll(w, "/tmp/issue10", inputs))
	}
	return append(args, "--artifact-dir", dir), ""
}

// captureInputs copies the captures' input files (datasets, media,
// templates) to a temporary directory and returns it: the captures were
// made with the inputs under /tmp/issue10, and the datasets name their
// media files by that absolute path, rewritten here to the copy's.
func captureInputs(t *testing.T) string {
	t.Helper()
	src := filepath.Join(endpointCapturesDir, "_inputs")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json") {
			b = bytes.ReplaceAll(b, []byte("/tmp/issue10"), []byte(dst))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy the capture inputs: %v", err)
	}
	return dst
}

// shellWords splits a POSIX shell command line (single and double quotes,
// backslash escapes), as the capture script wrote it with shlex.join.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unbalanced quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				cur.WriteByte(s[i])
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// captureTags reads the metric tags AIPerf exported.
func captureTags(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(endpointCapturesDir, name, "profile_export_aiperf_tags.txt"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var tags []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if tag, _, _ := strings.Cut(sc.Text(), "\t"); tag != "" {
			tags = append(tags, tag)
		}
	}
	return tags
}

// captureExit is AIPerf's exit code for the capture.
func captureExit(t *testing.T, name string) string {
	raw, err := os.ReadFile(filepath.Join(endpointCapturesDir, name, "exit_code.txt"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	return strings.TrimSpace(first)
}

// ourTags reads the metric tags of our summary.
func ourTags(t *testing.T, dir string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for k, v := range doc {
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte(`{`)) && bytes.Contains(v, []byte(`"unit"`)) &&
			!slices.Contains([]string{"telemetry_data", "input_config", "warmup_metrics"}, k) {
			tags = append(tags, k)
		}
	}
	return tags
}

// Every AIPerf 0.13 capture of issue 10 is replayed against our mock with
// the same flags: a run AIPerf refused we refuse, and a run it completed
// exports the same metric tags (listed differences aside).
func TestEndpointCapturesReplay(t *testing.T) {
	// Tokens 1 ms apart: a zero inter-token gap would leave the per-user
	// token throughput undefined.
	url := startMock(t, mockserver.Config{ITL: time.Millisecond, VideoJobTime: 20 * time.Millisecond})
	custom := customAPI(t)
	_, ffmpegErr := exec.LookPath("ffmpeg")
	entries, err := os.ReadDir(endpointCapturesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, "_") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if needsAnotherServer[name] {
				t.Skip("captured against a misbehaving server")
			}
			dir := t.TempDir()
			target := url
			if strings.HasPrefix(name, "template") {
				target = custom // the template captures post to a made-up API
			}
			args, unsupported := captureArgs(t, name, target, dir)
			if unsupported != "" {
				t.Skip(unsupported)
			}
			if ffmpegErr != nil && slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--video-") || a == "mp3" }) {
				if os.Getenv("AIPERF_REQUIRE_FFMPEG") == "1" {
					t.Fatal("ffmpeg is required (AIPERF_REQUIRE_FFMPEG=1) and not on PATH")
				}
				t.Skip("needs ffmpeg")
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			if want := captureExit(t, name); want != "0" {
				if code == 0 {
					t.Errorf("AIPerf refused this run (exit %s); we ran it", want)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d (AIPerf 0)\n%s\n%s", code, stdout.String(), stderr.String())
			}
			theirs, ours := captureTags(t, name), ourTags(t, dir)
			var missing, extra []string
			noTokens := !slices.Contains(theirs, "output_token_count") && !slices.Contains(theirs, "time_to_first_token")
			for _, tag := range theirs {
				if !slices.Contains(ours, tag) && !slices.Contains(serverTags, tag) && !(noTokens && slices.Contains(quirkTags, tag)) &&
					!slices.Contains(nonTextOutputTags[name], tag) {
					missing = append(missing, tag)
				}
			}
			for _, tag := range ours {
				if !slices.Contains(theirs, tag) && !slices.Contains(serverTags, tag) {
					extra = append(extra, tag)
				}
			}
			slices.Sort(missing)
			slices.Sort(extra)
			if len(missing)+len(extra) > 0 {
				t.Errorf("metric tags differ from AIPerf's\nmissing %v\nextra   %v", missing, extra)
			}
		})
	}
}

// customAPI answers any path the way the capture server answered the
// template captures' made-up API: {"text", "custom": {"answer"}}, or one
// {"text": word} SSE event per word then [DONE] when the body asks to
// stream; /v1/embeddings answers with one vector per input.
func customAPI(t *testing.T) string {
	t.Helper()
	words := []string{"Hello", " from", " the", " fake", " server", "."}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/v1/embeddings") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2],"index":0}]}`)
			return
		}
		if body["stream"] == true {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, word := range words {
				ev, _ := json.Marshal(map[string]string{"text": word})
				io.WriteString(w, "data: "+string(ev)+"\n\n")
				// Apart in time, so the per-user token rate is defined.
				w.(http.Flusher).Flush()
				time.Sleep(time.Millisecond)
			}
			io.WriteString(w, "data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		all := strings.Join(words, "")
		json.NewEncoder(w).Encode(map[string]any{"text": all, "custom": map[string]any{"answer": all}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
