package mockserver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// OpenAI/SGLang video generation jobs (AIPerf's video_generation type):
//
//	POST /v1/videos (multipart/form-data, urlencoded or JSON: prompt, model, seconds, size)
//	  → {"id","object":"video","created_at","status":"queued","model","progress":0,"seconds","size"}
//	GET  /v1/videos/{id} → the same object, "in_progress" with a progress
//	  percentage until Config.VideoJobTime has passed since the submit, then
//	  "completed" with completed_at, expires_at, inference_time_s (the job
//	  time) and peak_memory_mb (from the size and length)
//	GET  /v1/videos/{id}/content → a small MP4 (video/mp4) once completed
//
// Unknown ids get a 404 JSON error, a download before completion a 409.
// --error-rate applies to the submit; polls and downloads of a job that
// was accepted always answer.

const (
	// maxVideoJobs bounds the jobs kept; the oldest are forgotten first.
	maxVideoJobs     = 1 << 14
	maxVideoSide     = 8192
	maxVideoSeconds  = 3600
	defaultVideoSize = "720x1280"
	defaultVideoSecs = "4"
	// videoExpiry is how long a completed video stays downloadable, as
	// reported in expires_at.
	videoExpiry = time.Hour
	// videoFPS sizes the simulated frame buffers behind peak_memory_mb.
	videoFPS = 24
)

type videoJob struct {
	id, model string
	// size and seconds echo the request ("WxH", "4").
	size, seconds string
	w, h          int
	secs          float64
	created       time.Time
	seed          uint64
}

// videoJobs is the job table: a map plus a ring of ids that evicts the
// oldest job once maxVideoJobs are held.
type videoJobs struct {
	mu   sync.Mutex
	m    map[string]*videoJob
	ring []string
	next int
}

func newVideoJobs() *videoJobs { return &videoJobs{m: make(map[string]*videoJob)} }

func (v *videoJobs) add(j *videoJob) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ring == nil {
		v.ring = make([]string, maxVideoJobs)
	}
	if old := v.ring[v.next]; old != "" {
		delete(v.m, old)
	}
	v.ring[v.next] = j.id
	v.next = (v.next + 1) % maxVideoJobs
	v.m[j.id] = j
}

func (v *videoJobs) get(id string) (*videoJob, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	j, ok := v.m[id]
	return j, ok
}

// videoRequest is a validated submit.
type videoRequest struct {
	prompt, model, size, seconds string
	w, h                         int
	secs                         float64
}

// decodeVideo reads the submit body in whichever encoding contentType names.
func decodeVideo(body []byte, contentType string) (*videoRequest, error) {
	fields, err := videoFields(body, contentType)
	if err != nil {
		return nil, err
	}
	req := &videoRequest{prompt: fields["prompt"], model: fields["model"], size: fields["size"], seconds: fields["seconds"]}
	if req.prompt == "" {
		return nil, badRequest("missing required field \"prompt\"")
	}
	if req.model == "" {
		req.model = defaultModels[0]
	}
	if req.size == "" {
		req.size = defaultVideoSize
	}
	if req.w, req.h, err = parseSize(req.size, maxVideoSide); err != nil {
		return nil, err
	}
	if req.seconds == "" {
		req.seconds = defaultVideoSecs
	}
	req.secs, err = strconv.ParseFloat(req.seconds, 64)
	if err != nil || !(req.secs > 0 && req.secs <= maxVideoSeconds) {
		return nil, badRequest("\"seconds\" must be a number in (0, %d], got %q", maxVideoSeconds, req.seconds)
	}
	return req, nil
}

// videoFields returns the submit's text fields; file parts (an
// input_reference image) are read past and ignored.
func videoFields(body []byte, contentType string) (map[string]string, error) {
	mediaType, params, _ := mime.ParseMediaType(contentType)
	fields := make(map[string]string)
	switch mediaType {
	case "multipart/form-data":
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return fields, nil
			}
			if err != nil {
				return nil, badRequest("invalid multipart/form-data body: %v", err)
			}
			name := part.FormName()
			value, err := io.ReadAll(part)
			if err != nil {
				return nil, badRequest("invalid multipart/form-data body: %v", err)
			}
			if _, seen := fields[name]; !seen && part.FileName() == "" {
				fields[name] = string(value)
			}
		}
	case "application/x-www-form-urlencoded":
		q, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, badRequest("invalid form body: %v", err)
		}
		for k := range q {
			fields[k] = q.Get(k)
		}
		return fields, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, badRequest("invalid JSON body: %v", err)
	}
	for k, raw := range obj {
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) > 0 && raw[0] == '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, badRequest("%s: %v", k, err)
			}
			fields[k] = s
		case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
			fields[k] = string(raw) // "seconds": 4 reads as "4"
		}
	}
	return fields, nil
}

func (s *Server) videoCreateHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ct := r.Header.Get("Content-Type")
		req, ok := admitAs(s, w, r, writeAPIError, func(b []byte) (*videoRequest, error) { return decodeVideo(b, ct) })
		if !ok {
			return
		}
		info := s.prompts.lookup(req.prompt)
		job := &videoJob{id: s.newID("video_"), model: req.model, size: req.size, seconds: req.seconds,
			w: req.w, h: req.h, secs: req.secs, created: s.now(), seed: info.seed}
		s.videos.add(job)
		mm := s.metrics.forModel(req.model)
		if writeJSONStatus(w, http.StatusOK, s.appendVideoJob(nil, job, "queued", 0)) {
			mm.finished(start, info.tokens, 0, "stop")
		} else {
			mm.aborted(info.tokens, 0)
		}
	})
}

// jobTime is how long every job runs; Fast mode has no delays at all.
func (s *Server) jobTime() time.Duration {
	if s.cfg.Fast {
		return 0
	}
	return s.cfg.VideoJobTime
}

// videoStatus is a job's state when polled: in_progress (with the share of
// the job time passed) until the job time is over, then completed. Only the
// submit answer says queued.
func (s *Server) videoStatus(j *videoJob) (status string, progress int) {
	elapsed, total := s.now().Sub(j.created), s.jobTime()
	if elapsed >= total {
		return "completed", 100
	}
	return "in_progress", max(0, int(100*elapsed/total))
}

// appendVideoJob writes the job object in the given state.
func (s *Server) appendVideoJob(dst []byte, j *videoJob, status string, progress int) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, j.id)
	dst = append(dst, `,"object":"video","created_at":`...)
	dst = strconv.AppendInt(dst, j.created.Unix(), 10)
	dst = append(dst, `,"status":"`...)
	dst = append(dst, status...)
	dst = append(dst, `","model":`...)
	dst = appendJSONString(dst, j.model)
	dst = append(dst, `,"progress":`...)
	dst = appendInt(dst, progress)
	dst = append(dst, `,"seconds":`...)
	dst = appendJSONString(dst, j.seconds)
	dst = append(dst, `,"size":`...)
	dst = appendJSONString(dst, j.size)
	if status == "completed" {
		done := j.created.Add(s.jobTime())
		dst = append(dst, `,"completed_at":`...)
		dst = strconv.AppendInt(dst, done.Unix(), 10)
		dst = append(dst, `,"expires_at":`...)
		dst = strconv.AppendInt(dst, done.Add(videoExpiry).Unix(), 10)
		dst = append(dst, `,"inference_time_s":`...)
		dst = strconv.AppendFloat(dst, s.jobTime().Seconds(), 'f', -1, 64)
		dst = append(dst, `,"peak_memory_mb":`...)
		dst = strconv.AppendFloat(dst, peakMemoryMB(j), 'f', -1, 64)
	}
	return append(dst, "}\n"...)
}

// peakMemoryMB is 1 GiB of weights plus the RGB frames of the clip, to
// one decimal: bigger and longer videos "need" more memory.
func peakMemoryMB(j *videoJob) float64 {
	frames := math.Ceil(j.secs * videoFPS)
	mb := 1024 + float64(j.w)*float64(j.h)*3*frames/(1<<20)
	return math.Round(mb*10) / 10
}

func (s *Server) lookupVideo(w http.ResponseWriter, r *http.Request) (*videoJob, bool) {
	id := r.PathValue("id")
	j, ok := s.videos.get(id)
	if !ok {
		writeAPIError(w, http.StatusNotFound, "invalid_request_error", "video "+strconv.Quote(id)+" not found")
	}
	return j, ok
}

func (s *Server) handleVideoStatus(w http.ResponseWriter, r *http.Request) {
	if j, ok := s.lookupVideo(w, r); ok {
		status, progress := s.videoStatus(j)
		writeJSON(w, s.appendVideoJob(make([]byte, 0, 256), j, status, progress))
	}
}

func (s *Server) handleVideoContent(w http.ResponseWriter, r *http.Request) {
	j, ok := s.lookupVideo(w, r)
	if !ok {
		return
	}
	if status, _ := s.videoStatus(j); status != "completed" {
		writeAPIError(w, http.StatusConflict, "invalid_request_error",
			"video "+strconv.Quote(j.id)+" is not ready (status "+status+")")
		return
	}
	body := videoBytes(j.seed)
	h := w.Header()
	h.Set("Content-Type", "video/mp4")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// videoBytes is a minimal ISO BMFF file: an ftyp box and an mdat box of
// bytes drawn from the prompt, so each prompt downloads its own "video".
func videoBytes(seed uint64) []byte {
	const payload = 64
	b := make([]byte, 0, 24+8+payload)
	b = binary.BigEndian.AppendUint32(b, 24)
	b = append(b, "ftypisom"...)
	b = binary.BigEndian.AppendUint32(b, 0x200)
	b = append(b, "isommp41"...)
	b = binary.BigEndian.AppendUint32(b, 8+payload)
	b = append(b, "mdat"...)
	w := newWalk(seed, saltContent)
	for range payload / 8 {
		b = binary.LittleEndian.AppendUint64(b, w.next())
	}
	return b
}
