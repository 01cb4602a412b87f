package pythongrpc_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
)

const (
	wrapperName  = "aiperf-textgen-py"
	manifestName = "aiperf-plugins.yaml"
	// CI sets it after deps.sh: a missing python3 or package then fails the
	// tests instead of skipping them.
	requireEnv  = "AIPERF_REQUIRE_PYTHON_PLUGIN"
	callTimeout = 20 * time.Second
)

var pythonCheck = sync.OnceValue(func() error {
	python := os.Getenv("AIPERF_PYTHON")
	if python == "" {
		python = "python3"
	}
	path, err := exec.LookPath(python)
	if err != nil {
		return fmt.Errorf("no %s on PATH: %w", python, err)
	}
	out, err := exec.Command(path, "-c", "import grpc, grpc_health.v1.health, google.protobuf").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s cannot import the plugin's packages (%w): %s", path, err, bytes.TrimSpace(out))
	}
	return nil
})

// requirePython skips the test when Python or the pip packages are
// missing, unless CI demands them.
func requirePython(tb testing.TB) {
	tb.Helper()
	if err := pythonCheck(); err != nil {
		if os.Getenv(requireEnv) == "1" {
			tb.Fatalf("python plugin cannot run (%v); run examples/plugins/python-grpc/deps.sh", err)
		}
		tb.Skipf("skipping python plugin test: %v (set %s=1 to fail instead; deps.sh installs the packages)", err, requireEnv)
	}
}

func wrapperPath(tb testing.TB) string {
	tb.Helper()
	p, err := filepath.Abs(wrapperName)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// syncBuffer collects the host logger's output; go-plugin writes to it from
// its stderr-reading goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type started struct {
	client *plugin.Client
	rpc    pluginpb.PluginClient
	logs   *syncBuffer
}

// startPlugin starts the Python plugin exactly as aiperf's grpc loader
// does: go-plugin client, gRPC only, the manifest's wrapper as the command.
func startPlugin(tb testing.TB) started {
	tb.Helper()
	requirePython(tb)
	logs := &syncBuffer{}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  grpcplugin.Handshake,
		Plugins:          grpcplugin.ClientPlugins(),
		GRPCDialOptions:  grpcplugin.ClientDialOptions(),
		Cmd:              exec.Command(wrapperPath(tb)),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "host", Output: logs, Level: hclog.Debug}),
		StartTimeout:     30 * time.Second,
	})
	tb.Cleanup(client.Kill)
	proto, err := client.Client()
	if err != nil {
		tb.Fatalf("start python plugin: %v\nhost log:\n%s", err, logs)
	}
	raw, err := proto.Dispense(grpcplugin.PluginName)
	if err != nil {
		tb.Fatalf("dispense: %v", err)
	}
	rpc, ok := raw.(pluginpb.PluginClient)
	if !ok {
		tb.Fatalf("dispensed %T, want pluginpb.PluginClient", raw)
	}
	return started{client: client, rpc: rpc, logs: logs}
}

func callCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	tb.Cleanup(cancel)
	return ctx
}

func intp(v int) *int { return &v }

func mustRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameParsed(a, b sdk.ParsedResponse) bool {
	return a.PerfNs == b.PerfNs && a.Text == b.Text && a.Reasoning == b.Reasoning && showUsage(a.Usage) == showUsage(b.Usage)
}

func showParsed(p sdk.ParsedResponse) string {
	return fmt.Sprintf("{perf %d text %q reasoning %q usage %s}", p.PerfNs, p.Text, p.Reasoning, showUsage(p.Usage))
}

func showUsage(u *sdk.Usage) string {
	if u == nil {
		return "nil"
	}
	f := func(p *int) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("{prompt %s completion %s total %s reasoning %s}", f(u.PromptTokens), f(u.CompletionTokens),
		f(u.TotalTokens), f(u.ReasoningTokens))
}
