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

// RecordProcessorID is the record_processor_id every profile_export.jsonl
// line carries: one pipeline processes the whole run.
const RecordProcessorID = "record_processor_0"

// Pipeline processes finished requests concurrently and folds them into
// accumulators and sinks from a single collector goroutine.
type Pipeline struct {
	endpoint     sdk.Endpoint
	tokenizer    sdk.Tokenizer
	processors   []sdk.RecordProcessor
	names        []string
	catalog      *metrics.Catalog
	layout       metrics.PhaseLayout
	accumulators []sdk.Accumulator
	warmupAccs   []sdk.Accumulator
	sinks        []sdk.RecordSink
	hooks        []Hook
	exclude      func(*sdk.RequestRecord) bool
	log          *slog.Logger
	tokenSource  TokenSource
	// warned holds the undeclared tags already logged.
	warned sync.Map

	// recyclers[i] takes back what processors[i] returned (nil when it
	// does not pool them).
	recyclers []sdk.RecordRecycler
	// info is reused for every record's export line (the collector is one
	// goroutine and sinks do not keep what they are given).
	info metrics.RecordInfoBuilder

	in        chan engine.Completed
	processed chan processed
	workers   sync.WaitGroup
	collector sync.WaitGroup

	errMu   sync.Mutex
	errs    []error
	records int
}

// Config holds the pipeline's collaborators.
type Config struct {
	Endpoint   sdk.Endpoint
	Tokenizer  sdk.Tokenizer
	Processors []sdk.RecordProcessor
	// ProcessorNames name Processors (same order) in messages; a missing
	// name falls back to the processor's Go type.
	ProcessorNames []string
	// Phases numbers the phases in the per-record export (phase_index is 1
	// for profiling records when a warmup phase ran first).
	Phases metrics.PhaseLayout
	// Catalog is the run's metric catalog, built from every processor's
	// declared metrics: values that do not apply to the run are dropped
	// before accumulators and sinks see them, and the JSONL lines take
	// their units from it. Nil treats every value as undeclared.
	Catalog      *metrics.Catalog
	Accumulators []sdk.Accumulator
	// WarmupAccumulators fold the warmup phase's records (AIPerf's
	// warmup_metrics); without them warmup records reach only the sinks.
	// Accumulators never see a warmup record.
	WarmupAccumulators []sdk.Accumulator
	Sinks              []sdk.RecordSink
	Logger             *slog.Logger
	// TokenSource selects client tokenization or the server's usage.
	TokenSource TokenSource
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
	// Hooks see every processed record (warmup and profiling) after the
	// accumulators: the live display's tap, the gate's watch, the validity
	// collector.
	Hooks []Hook
	// Exclude, when set, keeps a record from the accumulators and hooks;
	// sinks still write it (requests cut off by a grace period).
	Exclude func(*sdk.RequestRecord) bool
}

// Hook is fed every processed record the accumulators are fed. Like
// accumulators and sinks it must not keep the record or its Values after
// Add returns: they are recycled.
type Hook interface{ Add(*sdk.RecordMetrics) }

// processed is a record's merged metrics and the index of the processor
// whose RecordMetrics carries them (-1: the pipeline's own).
type processed struct {
	rm    *sdk.RecordMetrics
	owner int
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
	names := make([]string, len(cfg.Processors))
	for i, proc := range cfg.Processors {
		if i < len(cfg.ProcessorNames) && cfg.ProcessorNames[i] != "" {
			names[i] = cfg.ProcessorNames[i]
		} else {
			names[i] = fmt.Sprintf("%T", proc)
		}
	}
	p := &Pipeline{
		endpoint: cfg.Endpoint, tokenizer: cfg.Tokenizer, processors: cfg.Processors,
		names: names, catalog: cfg.Catalog, layout: cfg.Phases, accumulators: cfg.Accumulators, warmupAccs: cfg.WarmupAccumulators, sinks: cfg.Sinks, hooks: cfg.Hooks, exclude: cfg.Exclude, log: log, tokenSource: cfg.TokenSource,
		// A finished request holds its response bytes until parsed: 1024
		// absorb a burst (80 ms at 13k req/s) without holding 50 MB of
		// them when processing falls behind sending.
		in: make(chan engine.Completed, 1024),
		// Processed records wait only for the single collector, which is
		// quick; each still holds its response bytes, so few are queued.
		processed: make(chan processed, 256),
		recyclers: make([]sdk.RecordRecycler, len(cfg.Processors)),
	}
	for i, proc := range cfg.Processors {
		p.recyclers[i], _ = proc.(sdk.RecordRecycler)
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
		// Parse may have turned the record into an error; the gate follows.
		valid := parsed.Record.Valid()
		var merged *sdk.RecordMetrics
		owner := -1
		for i, proc := range p.processors {
			rm, err := proc.Process(parsed)
			if err == nil && (rm == nil || rm.Values == nil) {
				err = fmt.Errorf("returned no metric values")
			}
			if err != nil {
				p.fail(fmt.Errorf("record processor %s on request %s: %w", p.names[i], c.Record.XRequestID, err))
				continue
			}
			if p.catalog.Filter(rm.Values, valid) {
				p.warnUndeclared(i, rm.Values)
			}
			if merged == nil {
				merged, owner = rm, i
				continue
			}
			for k, v := range rm.Values {
				merged.Values[k] = v
			}
			p.recycle(i, rm)
		}
		if merged == nil {
			merged = &sdk.RecordMetrics{Record: parsed.Record, Values: map[string]sdk.MetricValue{}, InputTokens: parsed.InputTokens}
		}
		p.processed <- processed{rm: merged, owner: owner}
	}
}

// recycle hands a processor back its RecordMetrics when it pools them.
func (p *Pipeline) recycle(owner int, rm *sdk.RecordMetrics) {
	if owner >= 0 && p.recyclers[owner] != nil {
		p.recyclers[owner].Recycle(rm)
	}
}

func (p *Pipeline) collect() {
	for pr := range p.processed {
		rm := pr.rm
		accs := p.accumulators
		if rm.Record.Phase == sdk.PhaseWarmup {
			accs = p.warmupAccs
		}
		if p.exclude == nil || !p.exclude(rm.Record) {
			for _, acc := range accs {
				acc.Add(rm)
			}
			for _, h := range p.hooks {
				h.Add(rm)
			}
		}
		if len(p.sinks) > 0 {
			info := p.info.Build(rm, p.catalog, RecordProcessorID, p.layout)
			if info != nil {
				// The raw exporter writes the exchange from the record itself.
				info.Request = rm.Record
			}
			for _, s := range p.sinks {
				if err := s.WriteRecord(info); err != nil {
					p.fail(fmt.Errorf("write record: %w", err)) // the sink names itself
				}
			}
		}
		p.recycle(pr.owner, rm)
		p.errMu.Lock()
		p.records++
		p.errMu.Unlock()
	}
}

// warnUndeclared logs, once per tag, a value no processor declared: it is
// still accumulated and exported, under its tag and without a unit.
func (p *Pipeline) warnUndeclared(proc int, values map[string]sdk.MetricValue) {
	for tag := range values {
		if p.catalog.Known(tag) {
			continue
		}
		if _, seen := p.warned.LoadOrStore(tag, struct{}{}); !seen {
			p.log.Warn("record processor produced a metric it did not declare; it is reported under its tag, without unit or display order",
				"processor", p.names[proc], "tag", tag)
		}
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
