package pythongrpc_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/aiperf-go/aiperf/registry"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestManifestDeclaresTheWrapper keeps the shipped example manifest honest:
// it parses with the registry's parser, points at the executable wrapper and
// carries that file's current checksum.
func TestManifestDeclaresTheWrapper(t *testing.T) {
	data, err := os.ReadFile(manifestName)
	if err != nil {
		t.Fatal(err)
	}
	m, err := registry.ParseManifest(data, manifestName)
	if err != nil {
		t.Fatalf("parse %s: %v", manifestName, err)
	}
	want := map[string]bool{"endpoint.textgen_py": true, "record_processor.answer_words": true}
	sum := sha256.Sum256(mustRead(t, wrapperName))
	wantSum := hex.EncodeToString(sum[:])
	dir, _ := filepath.Abs(".")
	for _, e := range m.Entries {
		key := e.Category + "." + e.Name
		if !want[key] {
			t.Errorf("unexpected entry %s", key)
			continue
		}
		delete(want, key)
		e.Dir = dir
		if e.Kind != registry.KindGRPC || e.APIVersion != sdk.APIVersion {
			t.Errorf("%s: kind %q api_version %d, want grpc and %d", key, e.Kind, e.APIVersion, sdk.APIVersion)
		}
		if e.ResolvedPath() != wrapperPath(t) {
			t.Errorf("%s: path resolves to %s, want %s", key, e.ResolvedPath(), wrapperPath(t))
		}
		if e.SHA256 != wantSum {
			t.Errorf("%s: sha256 %s, but %s hashes to %s (update the manifest)", key, e.SHA256, wrapperName, wantSum)
		}
	}
	for key := range want {
		t.Errorf("manifest lacks %s", key)
	}
	info, err := os.Stat(wrapperName)
	if err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("%s must exist and be executable (stat: %v)", wrapperName, err)
	}
}

func TestRunByHandIsRefusedWithoutTheCookie(t *testing.T) {
	requirePython(t)
	cmd := exec.Command(wrapperPath(t))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, grpcplugin.Handshake.MagicCookieKey+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("run without cookie: err %v, want exit status 1", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want no handshake line", stdout.String())
	}
	if !strings.Contains(stderr.String(), "not meant to be executed directly") {
		t.Errorf("stderr %q does not explain the refusal", stderr.String())
	}
}

func TestDescribe(t *testing.T) {
	p := startPlugin(t)
	d, err := p.rpc.Describe(callCtx(t), &pluginpb.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.ApiVersion != sdk.APIVersion || d.Name != "textgen_py" || d.Version != "0.1.0" {
		t.Errorf("describe = api v%d %q %q, want v%d textgen_py 0.1.0", d.ApiVersion, d.Name, d.Version, sdk.APIVersion)
	}
	if got := strings.Join(d.Categories, ","); got != sdk.CategoryEndpoint+","+sdk.CategoryRecordProcessor {
		t.Errorf("categories = %s", got)
	}
	want := sdk.EndpointMetadata{EndpointPath: "/v1/textgen", StreamingPath: "/v1/textgen", ServiceKind: "textgen",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true, MetricsTitle: "LLM Metrics"}
	if got := pluginpb.ToEndpointMetadata(d.Endpoint); got != want {
		t.Errorf("endpoint metadata = %+v, want %+v", got, want)
	}
	wantMetrics := []sdk.MetricSpec{
		{Tag: "answer_word_count", Header: "Answer Word Count", ShortHeader: "Words", Unit: "words", Integer: true},
		{Tag: "answer_words_per_second", Header: "Answer Words Per Second", ShortHeader: "Words/s", Unit: "words/sec",
			Flags: sdk.FlagLargerIsBetter},
		{Tag: "output_tokens_per_word", Header: "Output Tokens Per Word", Unit: "tokens/word", Flags: sdk.FlagProducesTokensOnly},
	}
	if got := pluginpb.ToMetricSpecs(d.Metrics); !reflect.DeepEqual(got, wantMetrics) {
		t.Errorf("metrics = %+v\nwant %+v", got, wantMetrics)
	}
}

func TestOtherCategoriesAreUnimplemented(t *testing.T) {
	p := startPlugin(t)
	_, err := p.rpc.CanLoad(callCtx(t), &pluginpb.CanLoadRequest{Path: "/tmp/x.jsonl"})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("CanLoad err = %v, want Unimplemented", err)
	}
	_, err = p.rpc.Export(callCtx(t), &pluginpb.ExportRequest{})
	if status.Code(err) != codes.Unimplemented {
		t.Errorf("Export err = %v, want Unimplemented", err)
	}
}

// TestKillStopsThePluginGracefully checks the go-plugin lifecycle: the
// plugin's stderr log reaches the host logger, and Kill ends the process
// through GRPCController/Shutdown instead of the forced kill go-plugin falls
// back to (and warns about) when a plugin ignores it.
func TestKillStopsThePluginGracefully(t *testing.T) {
	p := startPlugin(t)
	pid := p.client.ReattachConfig().Pid
	if _, err := p.rpc.Describe(callCtx(t), &pluginpb.DescribeRequest{}); err != nil {
		t.Fatal(err)
	}
	p.client.Kill()
	if !p.client.Exited() {
		t.Fatal("client does not report the plugin as exited after Kill")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("plugin process %d still exists after Kill (signal 0: %v)", pid, err)
	}
	logs := p.logs.String()
	for _, want := range []string{"[INFO]  host.aiperf-textgen-py: serving: address=127.0.0.1:", "plugin exited"} {
		if !strings.Contains(logs, want) {
			t.Errorf("host log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "failed to exit gracefully") {
		t.Errorf("plugin ignored the Shutdown call and was force-killed:\n%s", logs)
	}
}

// TestOrphanedPluginExits checks that a plugin whose host died without
// killing it does not linger: a shell plays the host, starts the plugin in
// the background, waits for its handshake line (so the plugin saw it as
// its parent) and exits, leaving the plugin reparented.
func TestOrphanedPluginExits(t *testing.T) {
	requirePython(t)
	fifo := filepath.Join(t.TempDir(), "handshake")
	cmd := exec.Command("sh", "-c", `mkfifo "$2" && { "$1" >"$2" 2>/dev/null & echo $!; read -r line <"$2"; }`,
		"sh", wrapperPath(t), fifo)
	cmd.Env = append(os.Environ(), grpcplugin.Handshake.MagicCookieKey+"="+grpcplugin.Handshake.MagicCookieValue)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("pid %q: %v", out, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	// Generous bound: the plugin polls its parent every second.
	deadline := time.Now().Add(20 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("orphaned plugin %d still running 20 s after its host exited", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processAlive treats a zombie (exited, not yet reaped by whoever adopted
// it) as gone.
func processAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
