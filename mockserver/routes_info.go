package mockserver

import (
	"net/http"
	"slices"
	"strconv"
)

// Route is one endpoint the mock serves.
type Route struct {
	Method, Path string
	// API names the protocol spoken there and the AIPerf endpoint types
	// that use it.
	API string
}

// routes lists every route in the order of the help text.
var routes = []Route{
	{"POST", "/v1/chat/completions", "OpenAI chat completions, SSE or JSON (chat)"},
	{"POST", "/v1/completions", "OpenAI completions, SSE or JSON (completions)"},
	{"POST", "/v1/embeddings", "OpenAI embeddings, input or chat messages (embeddings, nim_embeddings, chat_embeddings)"},
	{"POST", "/v1/ranking", "NVIDIA NIM reranking (nim_rankings)"},
	{"POST", "/rerank", "Hugging Face TEI reranking (hf_tei_rankings)"},
	{"POST", "/v2/rerank", "Cohere reranking (cohere_rankings)"},
	{"POST", "/generate", "Hugging Face TGI generation (huggingface_generate)"},
	{"POST", "/generate_stream", "Hugging Face TGI streaming generation (huggingface_generate --streaming)"},
	{"POST", "/v1/images/generations", "OpenAI image generation, SSE or JSON (image_generation)"},
	{"POST", "/v1/videos", "OpenAI/SGLang video job submit, multipart or JSON (video_generation)"},
	{"GET", "/v1/videos/{id}", "video job status (video_generation polls)"},
	{"GET", "/v1/videos/{id}/content", "finished video download, video/mp4"},
	{"POST", "/rag/api/prompt", "Solido RAG, SSE or JSON (solido_rag)"},
	{"POST", "/v1/responses", "OpenAI Responses API, SSE or JSON (responses)"},
	{"POST", "/v1/messages", "Anthropic Messages API, SSE or JSON (messages)"},
	{"POST", TextgenPath, "the textgen JSON API of the example gRPC endpoint plugin"},
	{"GET", "/v1/models", "model list"},
	{"GET", "/health", "health check"},
	{"GET", "/metrics", "Prometheus metrics (vLLM names)"},
}

// Routes lists every route the mock serves.
func Routes() []Route { return slices.Clone(routes) }

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

func writeJSON(w http.ResponseWriter, body []byte) { writeJSONStatus(w, http.StatusOK, body) }

// writeJSONStatus sends body as application/json; it reports whether the
// write reached the connection.
func writeJSONStatus(w http.ResponseWriter, status int, body []byte) bool {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err == nil
}
