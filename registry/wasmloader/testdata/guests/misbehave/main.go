// Command misbehave is a test guest: an endpoint and a record processor
// whose ProcessRecord misbehaves on demand, chosen by the record's input
// text ("loop", "oom", "panic", "print", "read:PATH"). Its settings (a
// metric tag prefix, the endpoint path) are per instance, like its run
// info, so tests see the host replay Configure and Init on every instance.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
)

type guest struct{}

// streaming is this instance's copy of the run info Init received.
var streaming = -1.0

// settings is this instance's copy of the settings Configure delivered:
// a prefix of every metric tag and, for the endpoint, its path.
var settings = struct {
	Prefix string `json:"prefix"`
	Path   string `json:"path"`
}{Path: "/v1/generate"}

func (guest) PluginConfig() any { return &settings }

// Validate runs after Init: the path must be absolute.
func (guest) Validate() error {
	if !strings.HasPrefix(settings.Path, "/") {
		return fmt.Errorf("path %q must start with '/'", settings.Path)
	}
	return nil
}

func (guest) Init(_ context.Context, info sdk.RunInfo) error {
	if info.Endpoint.MetricsTitle == "fail" {
		return errors.New("refusing this run")
	}
	if info.Seed != 0 && len(info.Models) == 0 {
		return fmt.Errorf("seed %d without models", info.Seed)
	}
	streaming = 0
	if info.Streaming {
		streaming = 1
	}
	return nil
}

func (guest) Metrics() []sdk.MetricSpec {
	p := settings.Prefix
	return []sdk.MetricSpec{
		{Tag: p + "answer_bytes", Header: "Answer Bytes", Unit: "bytes", Integer: true},
		{Tag: p + "streaming_seen", Header: "Streaming Seen", Unit: "flag", Flags: sdk.FlagNoConsole},
		{Tag: p + "request_id_len", Header: "Request ID Length", Unit: "characters", Integer: true, DisplayOrder: -2},
		{Tag: p + "file_bytes", Header: "File Bytes", Unit: "bytes", Integer: true, Requires: []string{p + "answer_bytes"}},
	}
}

var sink [][]byte

func (guest) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	switch in := rec.InputText; {
	case in == "loop":
		for n := 0; ; n++ {
			if n < 0 {
				break
			}
		}
	case in == "oom":
		for {
			b := make([]byte, 1<<20)
			b[len(b)-1] = 1
			sink = append(sink, b)
		}
	case in == "panic":
		panic("asked to panic")
	case in == "print":
		fmt.Println("hello from the guest")
		fmt.Fprintln(os.Stderr, "warning from the guest")
	case strings.HasPrefix(in, "read:"):
		b, err := os.ReadFile(strings.TrimPrefix(in, "read:"))
		if err != nil {
			return nil, err
		}
		return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{settings.Prefix + "file_bytes": {Scalar: float64(len(b))}}}, nil
	}
	n := 0
	for _, r := range rec.Responses {
		n += len(r.Text)
	}
	p := settings.Prefix
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{
		p + "answer_bytes":   {Scalar: float64(n)},
		p + "streaming_seen": {Scalar: streaming},
		p + "request_id_len": {Scalar: float64(len(rec.Record.XRequestID))},
	}}, nil
}

func (guest) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: settings.Path, ServiceKind: "custom", SupportsStreaming: true,
		ProducesTokens: true, MetricsTitle: "Custom LLM"}
}

func (guest) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	return json.Marshal(map[string]any{"model": req.Model, "prompt": strings.Join(req.Turn.Texts, "\n"), "stream": req.Streaming})
}

// ParseResponse reads {"text": "...", "tokens": N}; "[DONE]" carries nothing.
func (guest) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	if string(data) == "[DONE]" {
		return sdk.ParsedResponse{}, nil
	}
	var body struct {
		Text   string `json:"text"`
		Tokens *int   `json:"tokens"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		return sdk.ParsedResponse{}, fmt.Errorf("not a generate chunk: %w", err)
	}
	p := sdk.ParsedResponse{Text: body.Text}
	if body.Tokens != nil {
		p.Usage = &sdk.Usage{CompletionTokens: body.Tokens}
	}
	return p, nil
}

func init() { wasmguest.Register(guest{}, wasmguest.Name("misbehave"), wasmguest.Version("0.0.1")) }

func main() {}
