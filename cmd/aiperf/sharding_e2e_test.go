package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/app"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// recordingMock is the real mock server behind a handler that keeps the
// SHA-256 of every request body it receives.
type recordingMock struct {
	URL    string
	mu     sync.Mutex
	bodies []string
}

func startRecordingMock(t *testing.T, cfg mockserver.Config) *recordingMock {
	t.Helper()
	srv, err := mockserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	m := &recordingMock{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			sum := sha256.Sum256(b)
			m.mu.Lock()
			m.bodies = append(m.bodies, hex.EncodeToString(sum[:]))
			m.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	m.URL = ts.URL
	return m
}

func (m *recordingMock) sortedBodies() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.bodies)
	slices.Sort(out)
	return out
}

// shardedSummary is what the sharded tests read of the merged summary.
type shardedSummary struct {
	RequestCount struct {
		Avg float64 `json:"avg"`
	} `json:"request_count"`
	RequestLatency struct {
		Unit string  `json:"unit"`
		Min  float64 `json:"min"`
		P50  float64 `json:"p50"`
		Max  float64 `json:"max"`
	} `json:"request_latency"`
	Sharding *struct {
		Shards    int  `json:"shards"`
		Completed int  `json:"completed"`
		Partial   bool `json:"partial"`
		Failed    []struct {
			Shard  int    `json:"shard"`
			Reason string `json:"reason"`
		} `json:"failed"`
		Percentiles string `json:"percentiles"`
	} `json:"sharding"`
}

func readShardedSummary(t *testing.T, dir string) shardedSummary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s shardedSummary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("merged summary: %v", err)
	}
	return s
}

// sessionPayloads maps each profiling record's session (the credit index
// in the whole run) to its conversation: which entry credit i sent.
func sessionPayloads(t *testing.T, path string) map[int]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var l struct {
			Metadata struct {
				SessionNum     int    `json:"session_num"`
				ConversationID string `json:"conversation_id"`
				Phase          string `json:"benchmark_phase"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if l.Metadata.Phase != sdk.PhaseProfiling {
			continue
		}
		if prev, dup := out[l.Metadata.SessionNum]; dup {
			t.Fatalf("%s: session %d sent twice (%s, %s)", path, l.Metadata.SessionNum, prev, l.Metadata.ConversationID)
		}
		out[l.Metadata.SessionNum] = l.Metadata.ConversationID
	}
	return out
}

// TestShardedLocalRunSendsTheSinglePlan runs one seeded benchmark as one
// process and as four local shards, each against its own recording mock:
// the shards together send exactly the single process's requests (the
// same bodies, and credit i the same dataset entry), and the merged result
// counts them all. Open loop (request rate) and closed loop (concurrency).
func TestShardedLocalRunSendsTheSinglePlan(t *testing.T) {
	bin := aiperfBinary(t)
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"request rate", []string{"--request-rate", "200", "--request-count", "60"}},
		{"concurrency", []string{"--concurrency", "8", "--request-count", "61"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var runs [2]struct {
				bodies   []string
				sessions map[int]string
				summary  shardedSummary
			}
			for k, shards := range []int{1, 4} {
				mock := startRecordingMock(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
				dir := t.TempDir()
				args := append([]string{"profile", "-m", "m", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
					"--isl", "24", "--osl", "6", "--num-dataset-entries", "30", "--random-seed", "11",
					"--artifact-dir", dir, "--ui", "none"}, mode.args...)
				if shards > 1 {
					args = append(args, "--service-manager", "local", "--shards", strconv.Itoa(shards))
				}
				out, err := exec.Command(bin, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("%d shards: %v\n%s", shards, err, out)
				}
				runs[k].bodies = mock.sortedBodies()
				runs[k].sessions = sessionPayloads(t, filepath.Join(dir, "profile_export.jsonl"))
				runs[k].summary = readShardedSummary(t, dir)
				if shards > 1 {
					s := runs[k].summary.Sharding
					if s == nil || s.Shards != 4 || s.Completed != 4 || s.Partial || s.Percentiles != "exact" {
						t.Errorf("sharding block %+v, want 4 of 4 shards, not partial, exact percentiles", s)
					}
					for i := 0; i < shards; i++ {
						if _, err := os.Stat(filepath.Join(sdk.ShardDir(dir, i), "profile_export.jsonl")); err != nil {
							t.Errorf("shard %d kept no records: %v", i, err)
						}
					}
				}
			}
			one, four := runs[0], runs[1]
			if len(one.bodies) == 0 || !slices.Equal(one.bodies, four.bodies) {
				t.Errorf("the shards sent %d bodies, one process %d; the multisets of SHA-256 differ", len(four.bodies), len(one.bodies))
			}
			if len(one.sessions) != len(four.sessions) {
				t.Fatalf("%d sessions with 4 shards, %d with one process", len(four.sessions), len(one.sessions))
			}
			for i, conv := range one.sessions {
				if four.sessions[i] != conv {
					t.Errorf("credit %d sent entry %s with 4 shards, %s with one process", i, four.sessions[i], conv)
				}
			}
			if one.summary.RequestCount.Avg != four.summary.RequestCount.Avg || one.summary.RequestCount.Avg == 0 {
				t.Errorf("request_count %v with 4 shards, %v with one process", four.summary.RequestCount.Avg, one.summary.RequestCount.Avg)
			}
			// Latencies differ run to run; the merged statistics must still be
			// ordered and in the unit a single process reports.
			for _, s := range []shardedSummary{one.summary, four.summary} {
				l := s.RequestLatency
				if l.Unit != "ms" || !(0 < l.Min && l.Min <= l.P50 && l.P50 <= l.Max) {
					t.Errorf("request_latency %+v: want ms with 0 < min <= p50 <= max", l)
				}
			}
		})
	}
}

// TestShardedLocalRunWithAKilledShardIsPartial kills one shard mid-run:
// the others finish, the merged result is theirs and says PARTIAL, and the
// exit status is the partial one (0 with --allow-partial).
func TestShardedLocalRunWithAKilledShardIsPartial(t *testing.T) {
	bin := aiperfBinary(t)
	for _, allow := range []bool{false, true} {
		mock := startRecordingMock(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
		dir := t.TempDir()
		args := []string{"profile", "-m", "m", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
			"--isl", "16", "--osl", "4", "--num-dataset-entries", "20", "--random-seed", "5",
			"--request-rate", "40", "--benchmark-duration", "4", "--artifact-dir", dir, "--ui", "none",
			"--service-manager", "local", "--shards", "3"}
		if allow {
			args = append(args, "--allow-partial")
		}
		cmd := exec.Command(bin, args...)
		var stdout, stderr syncBuffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill shard 1 once the shards have started sending.
		pidRe := regexp.MustCompile(`shard 1: started \(pid (\d+)`)
		deadline := time.Now().Add(30 * time.Second)
		var pid int
		for pid == 0 {
			if m := pidRe.FindStringSubmatch(stderr.String()); m != nil {
				pid, _ = strconv.Atoi(m[1])
				break
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("shard 1 never started:\n%s", stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		for st, err := os.Stat(filepath.Join(sdk.ShardDir(dir, 1), "profile_export.jsonl")); err != nil || st.Size() == 0; st, err = os.Stat(filepath.Join(sdk.ShardDir(dir, 1), "profile_export.jsonl")) {
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("shard 1 sent nothing:\n%s", stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill shard 1 (pid %d): %v", pid, err)
		}
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		want := app.ExitPartial
		if allow {
			want = app.ExitOK
		}
		if code != want {
			t.Errorf("allow-partial=%v: exit %d, want %d\n%s", allow, code, want, stderr.String())
		}
		s := readShardedSummary(t, dir)
		if s.Sharding == nil || !s.Sharding.Partial || s.Sharding.Completed != 2 || len(s.Sharding.Failed) != 1 || s.Sharding.Failed[0].Shard != 1 {
			t.Errorf("sharding block %+v, want partial: 2 of 3 completed, shard 1 failed", s.Sharding)
		}
		if !bytes.Contains([]byte(stderr.String()+stdout.String()), []byte("PARTIAL")) {
			t.Errorf("the run does not say PARTIAL:\n%s", stderr.String())
		}
		if s.RequestCount.Avg == 0 {
			t.Error("the merged result holds no requests from the shards that finished")
		}
	}
}

// TestShardedLocalRunIsGatedOnTheMergedResult: a threshold each shard's
// stripe passes alone (10 requests < 15) but the whole run breaches (20)
// fails the sharded run with the thresholds' exit status, and the JUnit
// and Markdown reports are the launcher's, of the merged run.
func TestShardedLocalRunIsGatedOnTheMergedResult(t *testing.T) {
	bin := aiperfBinary(t)
	mock := startRecordingMock(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	dir := t.TempDir()
	junit, md := filepath.Join(dir, "gate.xml"), filepath.Join(dir, "gate.md")
	cmd := exec.Command(bin, "profile", "-m", "m", "-u", mock.URL, "--streaming", "--tokenizer", "builtin",
		"--isl", "16", "--osl", "4", "--random-seed", "3", "--concurrency", "2", "--request-count", "20",
		"--artifact-dir", filepath.Join(dir, "run"), "--ui", "none", "--service-manager", "local", "--shards", "2",
		"--threshold", "request_count:avg<15", "--junit", junit, "--markdown-summary", md)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != app.ExitThresholds {
		t.Fatalf("exit %d, want %d (thresholds breached)\n%s", code, app.ExitThresholds, out)
	}
	if !bytes.Contains(out, []byte("FAIL request_count:avg<15: measured 20")) {
		t.Errorf("the gate did not judge the merged 20 requests:\n%s", out)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !bytes.Contains(x, []byte("ThresholdBreached")) {
		t.Errorf("JUnit report of the merged run (%v):\n%s", err, x)
	}
	if m, err := os.ReadFile(md); err != nil || !bytes.Contains(m, []byte("request_count")) {
		t.Errorf("Markdown summary of the merged run (%v):\n%s", err, m)
	}
}
