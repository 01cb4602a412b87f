package records

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Pipeline processes finished requests concurrently and folds them into
// accumulators and sinks from a single collector goroutine.
type Pipeline struct {
	endpoint     sdk.Endpoint
	tokenizer    sdk.Tokenizer
	processors   []sdk.RecordProcessor
	accumulators []sdk.Accumulator
	sinks        []sdk.RecordSink
	log          *slog.Logger
	tokenSource  TokenSource

	in        chan engine.Completed
	processed chan *sdk.RecordMetrics
	workers   sync.WaitGroup
	collector sync.WaitGroup

	errMu   sync.Mutex
	errs    []error
	records int
}

// Config holds the pipeline's collaborators.
type Config struct {
	Endpoint     sdk.Endpoint
	Tokenizer    sdk.Tokenizer
	Processors   []sdk.RecordProcessor
	Accumulators []sdk.Accumulator
	Sinks        []sdk.RecordSink
	Logger       *slog.Logger
	// TokenSource selects client tokenization or the server's usage.
	TokenSource TokenSource
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
}

// NewPipeline starts the pipeline's goroutines.
func NewPipeline(cfg Config) *Pipeline {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	p := &Pipeline{
		endpoint: cfg.Endpoint, tokenizer: cfg.Tokenizer, processors: cfg.Processors,
		accumulators: cfg.Accumulators, sinks: cfg.Sinks, log: log, tokenSource: cfg.TokenSource,
		in:        make(chan engine.Completed, 4096),
		processed: make(chan *sdk.RecordMetrics, 4096),
	}
	for range workers {
		p.workers.Go(p.work)
	}
	p.collector.Go(p.collect)
	return p
}

// Submit queues a finished request. It may block when processing falls far
// behind, which applies back-pressure instead of growing memory unbounded.
func (p *Pipeline) Submit(c engine.Completed) { p.in <- c }

// Close drains the pipeline and returns the processing errors, if any.
func (p *Pipeline) Close() error {
	close(p.in)
	p.workers.Wait()
	close(p.processed)
	p.collector.Wait()
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return errors.Join(p.errs...)
}

// Records returns how many records reached the collector.
func (p *Pipeline) Records() int {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.records
}

func (p *Pipeline) work() {
	for c := range p.in {
		parsed := Parse(p.endpoint, p.tokenizer, c, p.tokenSource)
		var merged *sdk.RecordMetrics
		for _, proc := range p.processors {
			rm, err := proc.Process(parsed)
			if err == nil && (rm == nil || rm.Values == nil) {
				err = fmt.Errorf("returned no metric values")
			}
			if err != nil {
				p.fail(fmt.Errorf("record processor %T on request %s: %w", proc, c.Record.XRequestID, err))
				continue
			}
			if merged == nil {
				merged = rm
				continue
			}
			for k, v := range rm.Values {
				merged.Values[k] = v
			}
		}
		if merged == nil {
			merged = &sdk.RecordMetrics{Record: c.Record, Values: map[string]sdk.MetricValue{}, InputTokens: parsed.InputTokens}
		}
		p.processed <- merged
	}
}

func (p *Pipeline) collect() {
	for rm := range p.processed {
		for _, acc := range p.accumulators {
			acc.Add(rm)
		}
		if len(p.sinks) > 0 {
			info := metrics.ToRecordInfo(rm, "record_processor_0")
			for _, s := range p.sinks {
				if err := s.WriteRecord(info); err != nil {
					p.fail(fmt.Errorf("record sink %T: %w", s, err))
				}
			}
		}
		p.errMu.Lock()
		p.records++
		p.errMu.Unlock()
	}
}

func (p *Pipeline) fail(err error) {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	// Keep the first few; a systematic failure would otherwise repeat per record.
	if len(p.errs) < 10 {
		p.errs = append(p.errs, err)
		p.log.Error("record processing failed", "err", err)
	}
}
