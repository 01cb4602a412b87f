package metricrecord

import (
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/core/metrics"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/tokenizer/tiktoken"
)

func intp(n int) *int { return &n }

// streamed builds a streamed chat record whose token counts come from the
// real builtin tokenizer, the way the pipeline fills them.
func streamed(chunks ...string) *sdk.ParsedRecord {
	tok := tiktoken.New()
	rs := make([]sdk.ParsedResponse, len(chunks))
	text := ""
	for i, c := range chunks {
		rs[i] = sdk.ParsedResponse{PerfNs: int64(100_000_000 + i*10_000_000), Text: c}
		text += c
	}
	return &sdk.ParsedRecord{
		Record:       &sdk.RequestRecord{StartPerfNs: 0, TimestampNs: 1, Streaming: true},
		Responses:    rs,
		InputText:    "Hello there",
		InputTokens:  intp(len(tok.Encode("Hello there"))),
		OutputTokens: intp(len(tok.Encode(text))),
	}
}

func TestProcessBeforeInit(t *testing.T) {
	if _, err := New().Process(streamed("a")); err == nil {
		t.Fatal("Process before Init succeeded")
	}
}

func TestProcessComputesMetrics(t *testing.T) {
	p := New()
	info := sdk.RunInfo{Streaming: true, Endpoint: sdk.EndpointMetadata{ProducesTokens: true, TokenizesInput: true}}
	if err := p.Init(info); err != nil {
		t.Fatal(err)
	}
	// " world" and "!" are one o200k token each after "Hello": OSL 3.
	rm, err := p.Process(streamed("Hello", " world", "!"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		metrics.TagTTFT:           100_000_000,
		metrics.TagRequestLatency: 120_000_000,
		metrics.TagOSL:            3,
		metrics.TagISL:            2,
		metrics.TagITL:            10_000_000, // (120-100) ms / (3-1)
	}
	for tag, w := range want {
		if got := rm.Values[tag].Scalar; got != w {
			t.Errorf("%s = %v, want %v", tag, got, w)
		}
	}
	if _, err := p.Process(nil); err == nil {
		t.Error("Process(nil) succeeded")
	}
}

// Process is called from many goroutines; run with -race.
func TestProcessConcurrent(t *testing.T) {
	p := New()
	if err := p.Init(sdk.RunInfo{Streaming: true, Endpoint: sdk.EndpointMetadata{ProducesTokens: true}}); err != nil {
		t.Fatal(err)
	}
	rec := streamed("a", "b")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				rm, err := p.Process(rec)
				if err != nil || rm.Values[metrics.TagRequestLatency].Scalar != 110_000_000 {
					t.Errorf("Process = %v, %v", rm, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
