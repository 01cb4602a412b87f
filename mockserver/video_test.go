package mockserver

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

type wireVideoJob struct {
	ID             string   `json:"id"`
	Object         string   `json:"object"`
	CreatedAt      int64    `json:"created_at"`
	Status         string   `json:"status"`
	Model          string   `json:"model"`
	Progress       int      `json:"progress"`
	Seconds        string   `json:"seconds"`
	Size           string   `json:"size"`
	CompletedAt    *int64   `json:"completed_at"`
	ExpiresAt      *int64   `json:"expires_at"`
	InferenceTimeS *float64 `json:"inference_time_s"`
	PeakMemoryMB   *float64 `json:"peak_memory_mb"`
}

// capturedVideoSubmit is AIPerf's multipart submit from the video_generation
// capture (testdata/aiperf013_requests.jsonl).
func capturedVideoSubmit(t *testing.T) (contentType, body string) {
	t.Helper()
	for _, r := range loadCapturedRequests(t) {
		if r.Capture == "video_generation" {
			return r.Headers["Content-Type"], r.Body
		}
	}
	t.Fatal("no video_generation capture in testdata")
	return "", ""
}

func getJob(t *testing.T, url string) wireVideoJob {
	t.Helper()
	resp, b := send(t, "GET", url, "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET %s: status %d %s", url, resp.StatusCode, b)
	}
	var j wireVideoJob
	strictJSON(t, string(b), &j)
	return j
}

// A job is queued at submit, in_progress while the job time runs (on the
// server's clock, stepped here), then completed with its metrics; the
// video downloads only once completed.
func TestVideoJobLifecycle(t *testing.T) {
	const jobTime = 10 * time.Second
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	base := startServerWith(t, Config{VideoJobTime: jobTime}, func(s *Server) { s.now = clock.now })

	ct, body := capturedVideoSubmit(t)
	resp, b := send(t, "POST", base+"/v1/videos", body, map[string]string{"Content-Type": ct})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("submit: %d %s", resp.StatusCode, b)
	}
	var job wireVideoJob
	strictJSON(t, string(b), &job)
	if job.Object != "video" || job.Status != "queued" || job.Progress != 0 || job.Model != "mock-model" ||
		job.Size != "64x64" || job.Seconds != "4" || job.CreatedAt != 1_700_000_000 || !strings.HasPrefix(job.ID, "video_") {
		t.Fatalf("submit answer %+v", job)
	}
	poll := base + "/v1/videos/" + job.ID

	if j := getJob(t, poll); j.Status != "in_progress" || j.Progress != 0 || j.InferenceTimeS != nil {
		t.Fatalf("first poll %+v", j)
	}
	resp, _ = send(t, "GET", poll+"/content", "", nil)
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("download before completion: status %d, want 409", resp.StatusCode)
	}
	clock.advance(jobTime / 2)
	if j := getJob(t, poll); j.Status != "in_progress" || j.Progress != 50 {
		t.Fatalf("poll at half time %+v", j)
	}
	clock.advance(jobTime / 2)
	done := getJob(t, poll)
	// 1 GiB plus 96 frames (4 s × 24 fps) of 64×64 RGB.
	wantMem := 1024 + float64(64*64*3*96)/(1<<20)
	if done.Status != "completed" || done.Progress != 100 || done.InferenceTimeS == nil || *done.InferenceTimeS != jobTime.Seconds() ||
		done.PeakMemoryMB == nil || *done.PeakMemoryMB != float64(int(wantMem*10+0.5))/10 ||
		done.CompletedAt == nil || *done.CompletedAt != 1_700_000_010 || done.ExpiresAt == nil || *done.ExpiresAt != 1_700_003_610 {
		t.Fatalf("completed poll %+v (want peak memory %.1f)", done, wantMem)
	}

	resp, content := send(t, "GET", poll+"/content", "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "video/mp4" || len(content) < 32 || string(content[4:8]) != "ftyp" {
		t.Fatalf("download: status %d type %q %d bytes %q", resp.StatusCode, resp.Header.Get("Content-Type"), len(content), content)
	}
	_, again := send(t, "GET", poll+"/content", "", nil)
	if string(again) != string(content) {
		t.Fatal("the same video downloaded different bytes")
	}
}

func TestVideoSubmitEncodingsAndUnknownIDs(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	var fromJSON, fromForm wireVideoJob
	postOK(t, base+"/v1/videos", `{"prompt":"a cat","model":"sora-2","seconds":8,"size":"1280x720"}`, &fromJSON)
	resp, b := send(t, "POST", base+"/v1/videos", "prompt=a+cat&seconds=12", map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("urlencoded submit: %d %s", resp.StatusCode, b)
	}
	strictJSON(t, string(b), &fromForm)
	if fromJSON.Seconds != "8" || fromJSON.Size != "1280x720" || fromJSON.Model != "sora-2" {
		t.Fatalf("JSON submit %+v", fromJSON)
	}
	if fromForm.Seconds != "12" || fromForm.Size != defaultVideoSize || fromForm.Model != "mock-model" || fromForm.ID == fromJSON.ID {
		t.Fatalf("form submit %+v", fromForm)
	}
	// Fast mode: no job time, completed by the first poll.
	if j := getJob(t, base+"/v1/videos/"+fromJSON.ID); j.Status != "completed" || *j.InferenceTimeS != 0 {
		t.Fatalf("fast-mode poll %+v", j)
	}
	for _, path := range []string{"/v1/videos/video_nope", "/v1/videos/video_nope/content"} {
		e := decodeAPIError(t, mustGet(t, base+path), http.StatusNotFound)
		if !strings.Contains(e.Error.Message, "video_nope") || e.Error.Code != 404 {
			t.Fatalf("GET %s: %+v", path, e.Error)
		}
	}
}

func mustGet(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestVideoBadRequests(t *testing.T) {
	base := startServer(t, Config{Fast: true})
	const boundary = "ccf9e2686a8f491286ab5f9924daa38a"
	multipartModelOnly := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nm\r\n--" + boundary + "--\r\n"
	cases := []struct{ contentType, body, wantMsg string }{
		{"application/json", `{"prompt":`, "invalid JSON body"},
		{"application/json", `{"model":"m"}`, `"prompt"`},
		{"multipart/form-data; boundary=" + boundary, multipartModelOnly, `"prompt"`},
		{"multipart/form-data; boundary=" + boundary, "--" + boundary + "\r\nbroken", "multipart"},
		{"application/json", `{"prompt":"x","size":"0x5"}`, `"size"`},
		{"application/json", `{"prompt":"x","seconds":"-1"}`, `"seconds"`},
		{"application/json", `{"prompt":"x","seconds":"four"}`, `"seconds"`},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			req, _ := http.NewRequest("POST", base+"/v1/videos", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if e := decodeAPIError(t, resp, 400); !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v, want it to mention %q", e.Error, tc.wantMsg)
			}
		})
	}
}

// capturedRequest is one line of testdata/aiperf013_requests.jsonl.
type capturedRequest struct {
	Capture string            `json:"capture"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

func loadCapturedRequests(t *testing.T) []capturedRequest {
	t.Helper()
	f, err := os.Open("testdata/aiperf013_requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []capturedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r capturedRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("testdata line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
