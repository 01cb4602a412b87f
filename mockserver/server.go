package mockserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

// Server is a mock OpenAI-compatible inference server.
type Server struct {
	cfg     Config
	tok     sdk.Tokenizer
	vocab   *vocabulary
	prompts *promptCache
	errs    *errorInjector
	metrics *serverMetrics
	handler http.Handler

	// chatIDPrefix, completionIDPrefix and idTag carry a per-process random
	// tag so ids from different runs never collide; seq makes them unique
	// within one.
	chatIDPrefix       string
	completionIDPrefix string
	idTag              string
	seq                atomic.Uint64
	created            int64

	// videos holds the video generation jobs; now is their clock (tests
	// replace it to step a job through its states).
	videos *videoJobs
	now    func() time.Time

	// active counts requests inside a handler, so Shutdown can wait for
	// them without waiting on connections that never sent a request.
	active atomic.Int64

	mu       sync.Mutex
	httpSrv  *http.Server
	cancel   context.CancelFunc
	serveErr chan error
}

// New validates cfg and builds a server; it does not listen yet.
func New(cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	tok := cfg.Tokenizer
	if tok == nil {
		tok = tiktoken.New()
	}
	vocab, err := buildVocabulary(tok)
	if err != nil {
		return nil, err
	}
	var tag [4]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return nil, fmt.Errorf("mockserver: generating id prefix: %w", err)
	}
	s := &Server{
		cfg:                cfg,
		tok:                tok,
		vocab:              vocab,
		prompts:            newPromptCache(tok),
		errs:               newErrorInjector(cfg.ErrorRate, cfg.RandomSeed),
		metrics:            newServerMetrics(),
		chatIDPrefix:       "chatcmpl-mock" + hex.EncodeToString(tag[:]) + "-",
		completionIDPrefix: "cmpl-mock" + hex.EncodeToString(tag[:]) + "-",
		idTag:              "mock" + hex.EncodeToString(tag[:]) + "-",
		created:            time.Now().Unix(),
		videos:             newVideoJobs(),
		now:                time.Now,
	}
	s.handler = s.routes()
	return s, nil
}

// Handler returns the server's routes, for in-process use without Start.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/chat/completions", s.inferenceHandler(kindChat))
	mux.Handle("POST /v1/completions", s.inferenceHandler(kindCompletions))
	mux.Handle("POST "+TextgenPath, s.textgenHandler())
	mux.Handle("POST /v1/embeddings", s.embeddingsHandler())
	mux.Handle("POST /v1/ranking", s.rankingHandler(rankNIM))
	mux.Handle("POST /rerank", s.rankingHandler(rankTEI))
	mux.Handle("POST /v2/rerank", s.rankingHandler(rankCohere))
	mux.Handle("POST /generate", s.tgiHandler(false))
	mux.Handle("POST /generate_stream", s.tgiHandler(true))
	mux.Handle("POST /v1/images/generations", s.imagesHandler())
	mux.Handle("POST /v1/videos", s.videoCreateHandler())
	mux.HandleFunc("GET /v1/videos/{id}", s.handleVideoStatus)
	mux.HandleFunc("GET /v1/videos/{id}/content", s.handleVideoContent)
	mux.Handle("POST /rag/api/prompt", s.solidoHandler())
	mux.Handle("POST /v1/responses", s.responsesHandler())
	mux.Handle("POST /v1/messages", s.messagesHandler())
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /health", handleHealth)
	mux.Handle("GET /metrics", s.metrics.handler())
	// The fake DCGM exporter; its load is the requests in flight, less the
	// scrape itself (counted when served by Start).
	mux.Handle("GET "+DCGMPath, newDCGMState(func() int { return int(s.active.Load()) - 1 }, s.now).handler())
	return mux
}

// Start listens on Host:Port and serves in the background. It returns the
// actual address (host:port), which differs from the config when Port is 0.
func (s *Server) Start() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.httpSrv != nil {
		return "", errors.New("mockserver: server already started")
	}
	addr := net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("mockserver: listen on %s: %w", addr, err)
	}
	// Every request context derives from base, so Shutdown can stop
	// in-flight generations that outlive its deadline.
	base, cancel := context.WithCancel(context.Background())
	s.httpSrv = &http.Server{
		Handler:           s.countActive(s.handler),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		// No WriteTimeout: a slow stream (large output × ITL) may
		// legitimately run for minutes; disconnects end it instead.
		IdleTimeout: 120 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base },
	}
	s.cancel = cancel
	s.serveErr = make(chan error, 1)
	go func(srv *http.Server, errc chan<- error) {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		errc <- err
	}(s.httpSrv, s.serveErr)
	return ln.Addr().String(), nil
}

func (s *Server) countActive(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.active.Add(1)
		defer s.active.Add(-1)
		h.ServeHTTP(w, r)
	})
}

// Shutdown stops accepting connections and waits for in-flight requests
// until ctx ends; then it cancels the remaining ones and closes.
//
// It waits on requests, not connections: http.Server.Shutdown treats a
// freshly accepted connection that has not sent a request yet as busy for
// 5 s (a client's spare dial does this), which would stall every shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv, cancel, errc := s.httpSrv, s.cancel, s.serveErr
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	// Shutdown closes the listeners and idle connections at once; it returns
	// when Close below drops whatever is left.
	stopped := make(chan struct{})
	go func() {
		_ = srv.Shutdown(ctx)
		close(stopped)
	}()
	var err error
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for s.active.Load() > 0 && err == nil {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-tick.C:
		}
	}
	cancel()
	_ = srv.Close()
	<-stopped
	if serveErr := <-errc; serveErr != nil {
		errc <- serveErr // keep it for a repeated Shutdown
		return fmt.Errorf("mockserver: serve: %w", serveErr)
	}
	errc <- nil
	if err != nil {
		return fmt.Errorf("mockserver: shutdown: %w", err)
	}
	return nil
}
