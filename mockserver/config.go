package mockserver

import (
	"fmt"
	"math"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Config configures a mock server.
type Config struct {
	// Host and Port are where Start listens; Port 0 picks a free port.
	Host string
	Port int
	// TTFT is the delay before the first token; ITL the gap between tokens.
	TTFT, ITL time.Duration
	// Fast disables every delay and writes a whole stream before one flush.
	Fast bool
	// ErrorRate is the percentage (0-100) of inference requests answered
	// with HTTP 500.
	ErrorRate float64
	// RandomSeed makes the error-injection sequence reproducible.
	RandomSeed int64
	// Tokenizer counts prompt tokens and filters the output vocabulary;
	// nil selects the builtin o200k tokenizer.
	Tokenizer sdk.Tokenizer
	// EmbeddingDim is the length of /v1/embeddings vectors when the request
	// gives no "dimensions"; 0 selects DefaultEmbeddingDim.
	EmbeddingDim int
	// VideoJobTime is how long a /v1/videos job stays in_progress before it
	// completes; 0 completes it by the first poll.
	VideoJobTime time.Duration
}

// DefaultEmbeddingDim is the embedding length when neither the request nor
// the config sets one: small, since no client reads the values.
const DefaultEmbeddingDim = 16

// MaxEmbeddingDim bounds a vector's length (config or request).
const MaxEmbeddingDim = 65536

func (c Config) validate() error {
	if c.TTFT < 0 {
		return fmt.Errorf("mockserver: TTFT must be >= 0, got %v", c.TTFT)
	}
	if c.ITL < 0 {
		return fmt.Errorf("mockserver: ITL must be >= 0, got %v", c.ITL)
	}
	if math.IsNaN(c.ErrorRate) || c.ErrorRate < 0 || c.ErrorRate > 100 {
		return fmt.Errorf("mockserver: error rate must be a percentage in [0, 100], got %v", c.ErrorRate)
	}
	if c.EmbeddingDim < 0 || c.EmbeddingDim > MaxEmbeddingDim {
		return fmt.Errorf("mockserver: embedding dimension must be in [0, %d], got %d", MaxEmbeddingDim, c.EmbeddingDim)
	}
	if c.VideoJobTime < 0 {
		return fmt.Errorf("mockserver: video job time must be >= 0, got %v", c.VideoJobTime)
	}
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("mockserver: port must be in [0, 65535], got %d", c.Port)
	}
	return nil
}
