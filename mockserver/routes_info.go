package mockserver

import (
	"net/http"
	"slices"
	"strconv"
)

// defaultModels are always listed by /v1/models: a plain model and one that
// triggers the reasoning behaviour. Any model name is accepted regardless.
var defaultModels = []string{"mock-model", "mock-gpt-oss"}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	names := append(slices.Clone(defaultModels), s.metrics.seenModels()...)
	slices.Sort(names)
	names = slices.Compact(names)
	b := make([]byte, 0, 64+96*len(names))
	b = append(b, `{"object":"list","data":[`...)
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, name)
		b = append(b, `,"object":"model","created":`...)
		b = strconv.AppendInt(b, s.created, 10)
		b = append(b, `,"owned_by":"aiperf-mock"}`...)
	}
	b = append(b, "]}\n"...)
	writeJSON(w, b)
}

func handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, []byte(`{"status":"healthy"}`+"\n"))
}

func writeJSON(w http.ResponseWriter, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
