// Package textgen is the example endpoint for "textgen", a non-OpenAI JSON
// API (served by aiperf's mock server at /v1/textgen), shared by the gRPC
// and WASM example plugins.
package textgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Path is the textgen API route, for streaming and non-streaming requests.
const Path = "/v1/textgen"

// Settings are the endpoint's own settings: the manifest entry's config,
// or --plugin-config endpoint.<name>.<key>=value. aiperf decodes them
// strictly (sdk.DecodeConfig) before the run: an unknown key is an error.
type Settings struct {
	// IgnoreEOS adds "ignore_eos": true to every request body, so the
	// server generates exactly max_new_tokens tokens (fixed output lengths
	// without --extra-inputs on every run).
	IgnoreEOS bool `json:"ignore_eos"`
}

// Endpoint formats textgen requests and parses textgen responses. Its only
// state is its settings, written before the run; it is safe for concurrent
// use.
type Endpoint struct {
	settings Settings
}

var (
	_ sdk.Endpoint     = (*Endpoint)(nil)
	_ sdk.RecordParser = (*Endpoint)(nil)
	_ sdk.Configurable = (*Endpoint)(nil)
)

// PluginConfig returns the settings aiperf decodes the configured values
// into (the zero Settings are the defaults).
func (e *Endpoint) PluginConfig() any { return &e.settings }

// Metadata describes the endpoint to aiperf.
func (*Endpoint) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{
		EndpointPath:      Path,
		StreamingPath:     Path,
		ServiceKind:       "textgen",
		SupportsStreaming: true,
		ProducesTokens:    true,
		TokenizesInput:    true,
		MetricsTitle:      "LLM Metrics",
	}
}

// FormatPayload builds the request body. Earlier turns of a multi-turn
// conversation are prepended to the input, one per line. --extra-inputs and
// then the turn's own extras are merged last, so they can override any
// field (e.g. "ignore_eos", which the ignore_eos setting sets).
func (e *Endpoint) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	model := req.Model
	if req.Turn.Model != "" {
		model = req.Turn.Model
	}
	body := map[string]any{
		"model":  model,
		"input":  inputText(req),
		"stream": req.Streaming,
	}
	if req.Turn.MaxTokens != nil {
		body["max_new_tokens"] = *req.Turn.MaxTokens
	}
	if e.settings.IgnoreEOS {
		body["ignore_eos"] = true
	}
	for k, v := range req.ExtraInputs {
		body[k] = v
	}
	for k, v := range req.Turn.Extra {
		body[k] = v
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("textgen: encoding request body: %w", err)
	}
	return b, nil
}

func inputText(req sdk.RequestInfo) string {
	if len(req.History) == 0 && len(req.Turn.Texts) == 1 {
		return req.Turn.Texts[0]
	}
	var sb strings.Builder
	for _, h := range req.History {
		sb.WriteString(h.Text)
		sb.WriteByte('\n')
	}
	sb.WriteString(strings.Join(req.Turn.Texts, "\n"))
	return sb.String()
}

// unit is every field a textgen response unit may carry: a whole body
// (output + usage), a stream delta, or the final done event (usage).
type unit struct {
	Output *string `json:"output"`
	Delta  string  `json:"delta"`
	Done   bool    `json:"done"`
	Usage  *struct {
		InputTokens  *int `json:"input_tokens"`
		OutputTokens *int `json:"output_tokens"`
	} `json:"usage"`
}

// ParseResponse parses one unit: a whole non-streaming body or one SSE
// event's data.
func (e *Endpoint) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	var u unit
	return e.parse(data, &u)
}

// ParseRecord parses a whole record in one call (aiperf makes one plugin
// call per record, never one per SSE event).
func (e *Endpoint) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	out := make([]sdk.ParsedResponse, len(units))
	var u unit
	for i := range units {
		p, err := e.parse(units[i].Data, &u)
		if err != nil {
			return nil, fmt.Errorf("unit %d: %w", i, err)
		}
		p.PerfNs = units[i].PerfNs
		out[i] = p
	}
	return out, nil
}

func (*Endpoint) parse(data []byte, u *unit) (sdk.ParsedResponse, error) {
	data = bytes.TrimSpace(data)
	// Empty data and "[DONE]" carry nothing (the contract's rule for every
	// endpoint: the transport passes such units on unchanged).
	if len(data) == 0 || bytes.Equal(data, []byte("[DONE]")) {
		return sdk.ParsedResponse{}, nil
	}
	*u = unit{}
	if err := json.Unmarshal(data, u); err != nil {
		return sdk.ParsedResponse{}, fmt.Errorf("textgen: invalid response JSON %.80q: %w", data, err)
	}
	p := sdk.ParsedResponse{Text: u.Delta}
	if u.Output != nil {
		p.Text = *u.Output
	}
	if u.Usage != nil {
		usage := &sdk.Usage{PromptTokens: u.Usage.InputTokens, CompletionTokens: u.Usage.OutputTokens}
		if u.Usage.InputTokens != nil && u.Usage.OutputTokens != nil {
			total := *u.Usage.InputTokens + *u.Usage.OutputTokens
			usage.TotalTokens = &total
		}
		p.Usage = usage
	}
	return p, nil
}
