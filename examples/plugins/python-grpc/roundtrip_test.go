package pythongrpc_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/core/transport"
	"github.com/aiperf-go/aiperf/mockserver"
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/registry"
	"github.com/aiperf-go/aiperf/registry/grpcloader"
)

// processor is what the grpc loader's record processor adapter implements:
// the category, Init, and the settings the core delivers.
type processor interface {
	sdk.RecordProcessor
	sdk.Initializer
	registry.ConfigSink
}

// loadShippedManifest loads both entries of aiperf-plugins.yaml through
// aiperf's real grpc loader (sha256 check included), as a profile run does.
func loadShippedManifest(t testing.TB, logs *syncBuffer) (*grpcloader.Loader, sdk.Endpoint, processor) {
	t.Helper()
	requirePython(t)
	m, err := registry.ParseManifest(mustRead(t, manifestName), manifestName)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	loader := grpcloader.New(grpcloader.Options{StartTimeout: 30 * time.Second,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	t.Cleanup(func() { _ = loader.Close() })
	got := map[string]any{}
	for _, e := range m.Entries {
		e.Dir = dir
		v, err := loader.Load(context.Background(), e)
		if err != nil {
			t.Fatalf("load %s.%s: %v", e.Category, e.Name, err)
		}
		got[e.Category] = v
	}
	ep, ok := got[sdk.CategoryEndpoint].(sdk.Endpoint)
	if _, parses := got[sdk.CategoryEndpoint].(sdk.RecordParser); !ok || !parses {
		t.Fatalf("endpoint entry loaded as %T, want sdk.Endpoint and sdk.RecordParser", got[sdk.CategoryEndpoint])
	}
	rp, ok := got[sdk.CategoryRecordProcessor].(processor)
	if !ok {
		t.Fatalf("record_processor entry loaded as %T, want sdk.RecordProcessor, sdk.Initializer and registry.ConfigSink",
			got[sdk.CategoryRecordProcessor])
	}
	return loader, ep, rp
}

// TestRoundTripAgainstTheMockServer runs the Python plugin the way a
// profile run does: loaded through the grpc loader from the shipped
// manifest, the endpoint formats the body, the real core transport sends it
// to the mock server's real textgen route, the endpoint parses the whole
// record in one call, and the record processor counts the answer's words.
// Lengths are exact because the mock honours ignore_eos.
func TestRoundTripAgainstTheMockServer(t *testing.T) {
	logs := &syncBuffer{}
	loader, ep, rp := loadShippedManifest(t, logs)

	// Both entries name one binary: one process serves both categories.
	epInfo, rpInfo := ep.(grpcloader.Described).PluginInfo(), rp.(grpcloader.Described).PluginInfo()
	if epInfo.PID == 0 || epInfo.PID != rpInfo.PID || epInfo.Name != "textgen_py" {
		t.Fatalf("plugin info endpoint %+v, record processor %+v: want one named process", epInfo, rpInfo)
	}
	if md := ep.Metadata(); md.EndpointPath != mockserver.TextgenPath || !md.SupportsStreaming {
		t.Fatalf("metadata %+v", md)
	}

	srv, err := mockserver.New(mockserver.Config{Host: "127.0.0.1", Port: 0, Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	tr := transport.New(transport.Options{Timeout: 30 * time.Second})
	t.Cleanup(func() { _ = tr.Close() })

	if got := rp.Metrics(); len(got) != 3 || got[0].Tag != "answer_word_count" {
		t.Fatalf("declared metrics %+v, want the three word metrics", got)
	}
	if err := rp.Init(context.Background(), sdk.RunInfo{Endpoint: ep.Metadata(), Streaming: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		streaming bool
		maxTokens int
		// wantUnits: one unit per token plus the final usage event when
		// streaming; the whole body otherwise.
		wantUnits int
	}{
		{"streaming", true, 12, 13},
		{"non-streaming", false, 7, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := ep.FormatPayload(sdk.RequestInfo{Model: "mock-model", Streaming: tc.streaming,
				Turn:        sdk.Turn{Texts: []string{"Tell me about benchmarks."}, MaxTokens: intp(tc.maxTokens)},
				ExtraInputs: map[string]any{"ignore_eos": true}})
			if err != nil {
				t.Fatal(err)
			}
			rec := &sdk.RequestRecord{}
			tr.Send(context.Background(), &sdk.TransportRequest{URL: "http://" + addr + ep.Metadata().EndpointPath, Body: body,
				Streaming: tc.streaming, Headers: map[string]string{"Content-Type": "application/json"}}, rec)
			if rec.Error != nil || rec.Status != 200 {
				t.Fatalf("send: status %d error %+v (body %s)", rec.Status, rec.Error, body)
			}
			if len(rec.Responses) != tc.wantUnits {
				t.Fatalf("%d response units, want %d", len(rec.Responses), tc.wantUnits)
			}

			parsed, err := ep.(sdk.RecordParser).ParseRecord(rec.Responses)
			if err != nil {
				t.Fatal(err)
			}
			pr := &sdk.ParsedRecord{Record: rec, Responses: parsed}
			var text strings.Builder
			for i, r := range parsed {
				if r.PerfNs != rec.Responses[i].PerfNs {
					t.Errorf("unit %d perf_ns %d, want %d", i, r.PerfNs, rec.Responses[i].PerfNs)
				}
				text.WriteString(r.Text)
				if r.Usage != nil {
					pr.Usage = r.Usage
				}
			}
			if pr.Usage == nil || pr.Usage.CompletionTokens == nil || *pr.Usage.CompletionTokens != tc.maxTokens {
				t.Fatalf("usage %s, want %d completion tokens", showUsage(pr.Usage), tc.maxTokens)
			}
			if pr.Usage.PromptTokens == nil || *pr.Usage.PromptTokens <= 0 ||
				*pr.Usage.TotalTokens != *pr.Usage.PromptTokens+tc.maxTokens {
				t.Errorf("usage %s: want positive prompt tokens and total = prompt + completion", showUsage(pr.Usage))
			}
			if tc.streaming && len(pr.ContentResponses()) != tc.maxTokens {
				t.Errorf("%d content units, want one per token (%d)", len(pr.ContentResponses()), tc.maxTokens)
			}
			if text.Len() == 0 {
				t.Fatal("parsed answer is empty")
			}

			pr.OutputTokens = pr.Usage.CompletionTokens
			metrics, err := rp.Process(pr)
			if err != nil {
				t.Fatal(err)
			}
			words := len(strings.Fields(text.String()))
			if got := metrics.Values["answer_word_count"].Scalar; got != float64(words) {
				t.Errorf("answer_word_count = %v, want %d (Go's count of %q)", got, words, text.String())
			}
			if got, want := metrics.Values["output_tokens_per_word"].Scalar, float64(tc.maxTokens)/float64(words); got != want {
				t.Errorf("output_tokens_per_word = %v, want %v", got, want)
			}
			if metrics.Record != rec {
				t.Error("metrics do not point at the processed record")
			}
		})
	}

	// The plugin's own log line reaches our logger under its manifest name.
	if out := logs.String(); !strings.Contains(out, "msg=serving") || !strings.Contains(out, "plugin=endpoint.textgen_py") {
		t.Errorf("plugin log not forwarded with its name:\n%s", out)
	}
	if err := loader.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if processAlive(epInfo.PID) {
		t.Errorf("plugin process %d still running after the loader closed", epInfo.PID)
	}
	if out := logs.String(); strings.Contains(out, "failed to exit gracefully") {
		t.Errorf("plugin was force-killed instead of shutting down:\n%s", out)
	}
}

// TestLoaderRefusesAnEditedWrapper: the manifest's sha256 guards what aiperf
// executes, so a wrapper that differs from it is never started.
func TestLoaderRefusesAnEditedWrapper(t *testing.T) {
	requirePython(t)
	dir := t.TempDir()
	edited := append(mustRead(t, wrapperName), "# edited\n"...)
	if err := os.WriteFile(filepath.Join(dir, wrapperName), edited, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := registry.ParseManifest(mustRead(t, manifestName), manifestName)
	if err != nil {
		t.Fatal(err)
	}
	e := m.Entries[0]
	e.Dir = dir
	loader := grpcloader.New(grpcloader.Options{})
	t.Cleanup(func() { _ = loader.Close() })
	_, err = loader.Load(context.Background(), e)
	if err == nil || !strings.Contains(err.Error(), "checksum mismatch for plugin "+e.Category+"."+e.Name) ||
		!strings.Contains(err.Error(), e.SHA256) {
		t.Fatalf("load edited wrapper: err %v, want a checksum mismatch naming the plugin and the manifest's sum", err)
	}
}
