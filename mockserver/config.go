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
}

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
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("mockserver: port must be in [0, 65535], got %d", c.Port)
	}
	return nil
}
