package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/core/clock"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Fixtures standing in for plugins: no package under core/ imports
// plugins/, tests included, so the engine is tested against the contract
// (sdk interfaces) with small, exact implementations.

const chatPath = "/v1/chat/completions"

func intp(v int) *int { return &v }

// --- endpoint ---------------------------------------------------------------

// chatFixture is a minimal OpenAI-chat-shaped endpoint: bodies the mock
// server accepts, and the content of chat chunks and bodies parsed back.
type chatFixture struct{}

var _ sdk.Endpoint = chatFixture{}

func (chatFixture) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: chatPath, StreamingPath: chatPath, ServiceKind: "openai",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"}
}

type fixtureMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (chatFixture) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	model := req.Model
	if req.Turn.Model != "" {
		model = req.Turn.Model
	}
	if model == "" {
		return nil, errors.New("fixture: no model")
	}
	msgs := make([]fixtureMessage, 0, len(req.History)+1)
	for _, h := range req.History {
		msgs = append(msgs, fixtureMessage{h.Role, h.Text})
	}
	msgs = append(msgs, fixtureMessage{roleOf(req.Turn), strings.Join(req.Turn.Texts, "")})
	body := map[string]any{"model": model, "messages": msgs, "stream": req.Streaming}
	if req.Turn.MaxTokens != nil {
		key := "max_completion_tokens"
		if req.UseLegacyMaxTokens {
			key = "max_tokens"
		}
		body[key] = *req.Turn.MaxTokens
	}
	if req.IncludeUsage {
		body["stream_options"] = map[string]any{"include_usage": true}
	}
	maps.Copy(body, req.ExtraInputs)
	maps.Copy(body, req.Turn.Extra)
	return json.Marshal(body)
}

type fixtureChunk struct {
	Choices []struct {
		Delta   *fixtureMessage `json:"delta"`
		Message *fixtureMessage `json:"message"`
	} `json:"choices"`
}

func (chatFixture) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if d := bytes.TrimSpace(data); len(d) == 0 || string(d) == "[DONE]" {
		return sdk.ParsedResponse{}, nil
	}
	var c fixtureChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return sdk.ParsedResponse{}, fmt.Errorf("fixture: %w", err)
	}
	if len(c.Choices) == 0 {
		return sdk.ParsedResponse{}, nil
	}
	m := c.Choices[0].Delta
	if m == nil {
		m = c.Choices[0].Message
	}
	if m == nil {
		return sdk.ParsedResponse{}, nil
	}
	return sdk.ParsedResponse{Text: m.Content}, nil
}

// detectingFixture adds a first-token detector that counts its calls.
type detectingFixture struct {
	chatFixture
	calls atomic.Int64
}

var _ sdk.FirstTokenDetector = (*detectingFixture)(nil)

func (d *detectingFixture) IsFirstToken(data []byte) bool {
	d.calls.Add(1)
	p, err := d.chatFixture.ParseResponse(data)
	return err == nil && p.HasContent()
}

// recordingEndpoint records the RequestInfo of every FormatPayload call and
// renders a body that names it, so Prepare's inputs and outputs are exact.
type recordingEndpoint struct {
	chatFixture
	meta func(*sdk.EndpointMetadata)
	mu   sync.Mutex
	got  []sdk.RequestInfo
}

func (r *recordingEndpoint) Metadata() sdk.EndpointMetadata {
	md := r.chatFixture.Metadata()
	if r.meta != nil {
		r.meta(&md)
	}
	return md
}

func (r *recordingEndpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	r.mu.Lock()
	r.got = append(r.got, req)
	n := len(r.got)
	r.mu.Unlock()
	body, err := r.chatFixture.FormatPayload(req)
	if err != nil {
		return nil, err
	}
	return append(body[:len(body)-1:len(body)-1], fmt.Sprintf(`,"call":%d}`, n)...), nil
}

// --- tokenizer --------------------------------------------------------------

// wordTokenizer counts whitespace-separated words: exact and obvious.
type wordTokenizer struct{}

var _ sdk.Tokenizer = wordTokenizer{}

func (wordTokenizer) Name() string { return "words" }
func (wordTokenizer) Encode(text string) []int {
	ids := make([]int, len(strings.Fields(text)))
	for i := range ids {
		ids[i] = i
	}
	return ids
}
func (wordTokenizer) Decode(ids []int) string { return strings.Repeat("w ", len(ids)) }
func (wordTokenizer) Count(text string) int   { return len(strings.Fields(text)) }

// --- timing -----------------------------------------------------------------

// closedLoop keeps plan.Concurrency sessions in flight until
// plan.RequestCount credits went out.
type closedLoop struct{}

var _ sdk.TimingStrategy = closedLoop{}

func (closedLoop) Run(ctx context.Context, plan sdk.PhasePlan, s sdk.CreditSender) error {
	if plan.Concurrency < 1 {
		return fmt.Errorf("closed loop: concurrency must be >= 1, got %d", plan.Concurrency)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range plan.Concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= plan.RequestCount {
					return
				}
				s.Send(ctx, sdk.Credit{Index: i, Phase: plan.Phase, IssuedNs: clock.Now()})
			}
		})
	}
	wg.Wait()
	return nil
}

// --- sampler and URL selection ----------------------------------------------

// sequentialSampler sends the sessions in dataset order and records each
// Order call.
type sequentialSampler struct {
	mu    sync.Mutex
	calls [][2]int64 // (n, seed)
}

var _ sdk.DatasetSampler = (*sequentialSampler)(nil)

func (s *sequentialSampler) Order(n int, seed int64) func(int) int {
	s.mu.Lock()
	s.calls = append(s.calls, [2]int64{int64(n), seed})
	s.mu.Unlock()
	return func(credit int) int { return credit % n }
}

// funcSampler is an order given by a function of (n, credit).
type funcSampler func(n, credit int) int

func (f funcSampler) Order(n int, _ int64) func(int) int {
	return func(credit int) int { return f(n, credit) }
}

// roundRobin sends session i to URL i mod n.
type roundRobin struct{}

var _ sdk.URLSelectionStrategy = roundRobin{}

func (roundRobin) Pick(credit, urls int) int { return credit % urls }

// funcPicker is a URL choice given by a function.
type funcPicker func(credit, urls int) int

func (f funcPicker) Pick(credit, urls int) int { return f(credit, urls) }

// withDefaults fills the engine's required plugins the tests do not vary.
func withDefaults(o Options) Options {
	if o.Sampler == nil {
		o.Sampler = &sequentialSampler{}
	}
	if o.URLSelection == nil {
		o.URLSelection = roundRobin{}
	}
	return o
}
