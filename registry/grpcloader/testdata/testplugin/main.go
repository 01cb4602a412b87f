// Command testplugin is a gRPC plugin for grpcloader's tests: it implements
// all four external categories and misbehaves on request (FormatPayload's
// model selects panic, exit, sleep, log or fail). AIPERF_TESTPLUGIN_API_VERSION
// overrides the plugin API version it speaks.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
)

type plugin struct{ streaming bool }

func (*plugin) Metadata() sdk.EndpointMetadata {
	return sdk.EndpointMetadata{EndpointPath: "/v1/test", ServiceKind: "test", ProducesTokens: true, MetricsTitle: "Test Metrics"}
}

func (*plugin) FormatPayload(req sdk.RequestInfo) ([]byte, error) {
	switch req.Model {
	case "panic":
		var m map[string]int
		m["boom"]++ // nil map write: a real runtime panic
	case "exit":
		os.Exit(3)
	case "sleep":
		time.Sleep(10 * time.Second)
	case "log":
		fmt.Fprintln(os.Stderr, "stderr line from testplugin")
		log.Print("log line from testplugin")
	case "fail":
		return nil, errors.New("model fail is not served here")
	}
	return json.Marshal(map[string]any{"model": req.Model, "texts": req.Turn.Texts})
}

func (p *plugin) ParseResponse(data []byte) (sdk.ParsedResponse, error) {
	out, err := p.ParseRecord([]sdk.Response{{Data: data}})
	if err != nil {
		return sdk.ParsedResponse{}, err
	}
	return out[0], nil
}

func (*plugin) ParseRecord(units []sdk.Response) ([]sdk.ParsedResponse, error) {
	out := make([]sdk.ParsedResponse, len(units))
	for i, u := range units {
		switch s := string(u.Data); {
		case s == "panic":
			panic("testplugin: unit says panic")
		case s == "bad":
			return nil, fmt.Errorf("unit %d is bad", i)
		case strings.HasPrefix(s, "usage:"):
			n, _ := strconv.Atoi(strings.TrimPrefix(s, "usage:"))
			out[i] = sdk.ParsedResponse{Usage: &sdk.Usage{CompletionTokens: &n}}
		default:
			out[i] = sdk.ParsedResponse{Text: s, Reasoning: u.Event}
		}
	}
	return out, nil
}

func (p *plugin) Init(info sdk.RunInfo) error {
	if info.Endpoint.EndpointPath == "" {
		return errors.New("run info has no endpoint path")
	}
	p.streaming = info.Streaming
	return nil
}

func (p *plugin) Process(rec *sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	chars := 0
	for _, r := range rec.Responses {
		chars += len(r.Text)
	}
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{
		"text_chars":   {Scalar: float64(chars)},
		"turn_index":   {Scalar: float64(rec.Record.TurnIndex)},
		"streaming_on": {List: []float64{b2f(p.streaming)}, IsList: true},
	}}, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (*plugin) CanLoad(path string) bool { return strings.HasSuffix(path, ".tp") }

func (*plugin) Load(_ context.Context, path string, opts sdk.DatasetOptions) ([]sdk.Conversation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []sdk.Conversation
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		max := opts.OutputTokensMean
		out = append(out, sdk.Conversation{SessionID: fmt.Sprintf("s%d", i),
			Turns: []sdk.Turn{{Texts: []string{line}, MaxTokens: &max}}})
	}
	return out, nil
}

func (*plugin) Export(_ context.Context, ec *sdk.ExportContext) ([]sdk.ExportedFile, error) {
	var tags []string
	for _, m := range ec.Results.Metrics {
		tags = append(tags, fmt.Sprintf("%s|%s|%d|%d", m.Tag, m.Header, m.Flags, m.DisplayOrder))
	}
	path := filepath.Join(ec.ArtifactDir, "testplugin_export.txt")
	if err := os.WriteFile(path, []byte(strings.Join(tags, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	return []sdk.ExportedFile{{Label: "Testplugin Export", Path: path}}, nil
}

func main() {
	opts := []grpcplugin.ServeOption{grpcplugin.WithName("testplugin"), grpcplugin.WithVersion("9.9.9"),
		grpcplugin.WithDescription("misbehaves on request")}
	if v := os.Getenv("AIPERF_TESTPLUGIN_API_VERSION"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			log.Fatalf("AIPERF_TESTPLUGIN_API_VERSION: %v", err)
		}
		opts = append(opts, grpcplugin.WithAPIVersion(uint32(n)))
	}
	grpcplugin.Serve(&plugin{}, opts...)
}
