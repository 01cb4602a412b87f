package records

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/engine"
	"github.com/aiperf-go/aiperf/core/internal/testfixtures"
	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// oneByOne sends the plan's credits one after another from one goroutine.
type oneByOne struct{}

func (oneByOne) Run(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error {
	for i := 0; i < plan.RequestCount && ctx.Err() == nil; i++ {
		s.Send(ctx, sdk.Credit{Index: i, Phase: plan.Phase})
	}
	return nil
}

// inOrder sends the sessions in dataset order to the first URL.
type inOrder struct{}

func (inOrder) Order(n int, _ int64) func(int) int { return func(i int) int { return i % n } }
func (inOrder) Pick(int, int) int                  { return 0 }

// turnRun is one multi-turn run through the real engine, transport, mock
// server and record pipeline.
type turnRun struct {
	done []engine.Completed // in sending order
	obs  *observer
	acc  coreAccumulator
}

// runSessions sends every conversation once (its turns with history) with
// the fixture chat endpoint, and processes the records with tokens counted
// by src.
func runSessions(t *testing.T, convs []sdk.Conversation, src TokenSource) *turnRun {
	t.Helper()
	// The mock server counts prompt_tokens with the same word tokenizer,
	// over every message of the body: a second witness of what was sent.
	url := mocktest.Start(t, mockserver.Config{Fast: true, Tokenizer: words})
	popts := engine.PrepareOptions{Models: []string{"m"}, Streaming: true, IncludeUsage: true, Tokenizer: words}
	reqs, _, err := engine.Prepare(chat, convs, popts)
	if err != nil {
		t.Fatal(err)
	}
	tr := transport.New(transport.Options{MaxConnsPerHost: 4, Timeout: 30 * time.Second})
	t.Cleanup(func() { _ = tr.Close() })
	e, err := engine.New(tr, oneByOne{}, reqs, engine.Options{URLs: []string{url + testfixtures.ChatEndpointMetadata.EndpointPath},
		Streaming: true, Endpoint: chat, Prepare: popts, Sampler: inOrder{}, URLSelection: inOrder{}})
	if err != nil {
		t.Fatal(err)
	}
	info := testfixtures.StreamingRun()
	cat := fixtureCatalog(t, info)
	r := &turnRun{obs: newObserver(), acc: newCoreAccumulator(t, cat, info)}
	p := NewPipeline(Config{Endpoint: chat, Tokenizer: words, Processors: []sdk.RecordProcessor{testfixtures.Processor{}},
		Catalog: cat, Accumulators: []sdk.Accumulator{r.acc, r.obs}, Sinks: []sdk.RecordSink{r.obs}, TokenSource: src})
	var mu sync.Mutex
	err = e.RunPhase(context.Background(), sdk.PhasePlan{Phase: sdk.PhaseProfiling, RequestCount: len(convs), Concurrency: 1},
		func(c engine.Completed) {
			mu.Lock()
			r.done = append(r.done, c)
			mu.Unlock()
			p.Submit(c)
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.done {
		if !c.Record.Valid() {
			t.Fatalf("turn %d failed: %+v", c.Record.TurnIndex, c.Record.Error)
		}
	}
	return r
}

// answerOf is the text the assistant streamed for a finished turn, and the
// prompt_tokens the server reported for it.
func answerOf(t *testing.T, c engine.Completed) (string, int) {
	t.Helper()
	var b strings.Builder
	prompt := -1
	for _, u := range c.Record.Responses {
		p, err := chat.ParseResponse(u.Data)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(p.Text)
		if p.Usage != nil && p.Usage.PromptTokens != nil {
			prompt = *p.Usage.PromptTokens
		}
	}
	return b.String(), prompt
}

func (r *turnRun) isl(t *testing.T, c engine.Completed) int {
	t.Helper()
	v, ok := r.obs.values[c.Record.XRequestID][testfixtures.TagISL]
	if !ok {
		t.Fatalf("turn %d has no %s: %v", c.Record.TurnIndex, testfixtures.TagISL, r.obs.values[c.Record.XRequestID])
	}
	return int(v.Scalar)
}

func threeTurns() []sdk.Conversation {
	osl := func(n int) *int { return &n }
	return []sdk.Conversation{{SessionID: "s1", Turns: []sdk.Turn{
		{Texts: []string{"the first question has six words"}, MaxTokens: osl(5)},
		{Texts: []string{"a second question of six"}, MaxTokens: osl(7)},
		{Texts: []string{"and", " a third in two texts"}, MaxTokens: osl(4)},
	}}}
}

// A later turn of a session carries the whole conversation so far, and its
// ISL counts all of it: AIPerf's 256 / 578 / 900 for 256-token turns with
// 66-token answers.
func TestMultiTurnISLCountsTheConversationSent(t *testing.T) {
	convs := threeTurns()
	r := runSessions(t, convs, ClientTokenizer)
	if len(r.done) != 3 {
		t.Fatalf("%d records, want the 3 turns of the session", len(r.done))
	}
	turns := convs[0].Turns
	prompt := func(i int) string { return strings.Join(turns[i].Texts, "") }
	// The conversation each turn sends, as ISL joins it.
	var sent []string
	total := 0
	for i, c := range r.done {
		if c.Record.TurnIndex != i {
			t.Fatalf("record %d is turn %d", i, c.Record.TurnIndex)
		}
		sent = append(sent, prompt(i))
		want := words.Count(strings.Join(sent, " "))
		got := r.isl(t, c)
		answer, serverPrompt := answerOf(t, c)
		t.Logf("turn %d: ISL %d (server prompt_tokens %d), answer %q", i, got, serverPrompt, answer)
		if got != want {
			t.Errorf("turn %d: ISL %d, want %d (the words of %q)", i, got, want, strings.Join(sent, " "))
		}
		// The server tokenized the body it received with the same tokenizer.
		if got != serverPrompt {
			t.Errorf("turn %d: ISL %d, but the server counted %d prompt tokens in the body", i, got, serverPrompt)
		}
		total += got
		sent = append(sent, answer)
		if words.Count(answer) == 0 {
			t.Fatalf("turn %d: empty answer; the test needs the history to grow", i)
		}
	}
	// turn 1 = its prompt; later turns = earlier prompts + answers + their own.
	if first := r.isl(t, r.done[0]); first != words.Count(prompt(0)) {
		t.Errorf("turn 1 ISL %d, want its prompt's %d words", first, words.Count(prompt(0)))
	}
	a1, _ := answerOf(t, r.done[0])
	a2, _ := answerOf(t, r.done[1])
	if got, want := r.isl(t, r.done[1]), words.Count(prompt(0))+words.Count(a1)+words.Count(prompt(1)); got != want {
		t.Errorf("turn 2 ISL %d, want turn1 + answer1 + turn2 = %d", got, want)
	}
	if got, want := r.isl(t, r.done[2]), r.isl(t, r.done[1])+words.Count(a2)+words.Count(prompt(2)); got != want {
		t.Errorf("turn 3 ISL %d, want ISL(turn 2) + answer2 + turn3 = %d", got, want)
	}
	// The JSONL line and the run total carry the same counts.
	for _, c := range r.done {
		if l := r.obs.lines[c.Record.XRequestID]; l == nil || l.Metrics[testfixtures.TagISL].Value != r.isl(t, c) {
			t.Errorf("turn %d: JSONL ISL %+v, want %d", c.Record.TurnIndex, l, r.isl(t, c))
		}
	}
	res := r.acc.Accumulator.Summarize()
	if isl, ok := res.Metric(testfixtures.TagISL); !ok || isl.Sum == nil || int(*isl.Sum) != total {
		t.Errorf("ISL sum %+v, want %d (the per-record counts)", isl, total)
	}
}

// With --use-server-token-count the ISL of every turn is the server's
// prompt_tokens; the tokenizer is not asked.
func TestMultiTurnISLFromServerUsage(t *testing.T) {
	r := runSessions(t, threeTurns(), ServerUsage)
	for _, c := range r.done {
		_, serverPrompt := answerOf(t, c)
		if got := r.isl(t, c); got != serverPrompt {
			t.Errorf("turn %d: ISL %d, want the server's prompt_tokens %d", c.Record.TurnIndex, got, serverPrompt)
		}
	}
	if a, b := r.isl(t, r.done[0]), r.isl(t, r.done[2]); b <= a {
		t.Errorf("turn 3 ISL %d not above turn 1's %d: the server saw no history", b, a)
	}
}
