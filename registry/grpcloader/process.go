package grpcloader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/grpcplugin"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/hashicorp/go-plugin"
)

// process is one running plugin binary.
type process struct {
	path   string
	label  string // the entry that started it, for messages
	client *plugin.Client
	rpc    pluginpb.PluginClient
	desc   *pluginpb.DescribeResponse // at start: identity and categories
	pid    int
	digest string // hex sha256 of the binary, computed on first need

	// current is the latest Describe answer: the plugin is described again
	// after every Configure and Init of any entry it serves, since its
	// endpoint metadata and declared metrics may follow its settings.
	current atomic.Pointer[description]

	// telemetryMu serializes the telemetry adapters' calls into this
	// process; telemetryOwner is the adapter whose settings it holds now
	// (one process serves every source of a binary, each its own "url").
	telemetryMu    sync.Mutex
	telemetryOwner *telemetrySource
}

// description is one Describe answer, converted once.
type description struct {
	meta    sdk.EndpointMetadata
	metrics []sdk.MetricSpec
}

func (p *process) setDescription(d *pluginpb.DescribeResponse) {
	p.current.Store(&description{meta: pluginpb.ToEndpointMetadata(d.GetEndpoint()), metrics: pluginpb.ToMetricSpecs(d.GetMetrics())})
}

func (p *process) exited() bool { return p.client.Exited() }

// kill stops the process: go-plugin asks it to shut down, then kills it
// after a grace period; either way it has exited (and been reaped) on return.
func (p *process) kill() error {
	p.client.Kill()
	if !p.client.Exited() {
		return fmt.Errorf("plugin %s: process %d (%s) did not exit", p.label, p.pid, p.path)
	}
	return nil
}

// checkBinary refuses a missing, non-regular or non-executable file before
// anything is executed.
func checkBinary(label, path string) error {
	st, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("plugin %s: binary %s does not exist (build it, or fix path in the manifest)", label, path)
	case err != nil:
		return fmt.Errorf("plugin %s: binary %s: %w", label, path, err)
	case !st.Mode().IsRegular():
		return fmt.Errorf("plugin %s: %s is not a regular file (mode %v)", label, path, st.Mode())
	case st.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("plugin %s: binary %s is not executable (mode %v; chmod +x it)", label, path, st.Mode().Perm())
	}
	return nil
}

var hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)

// verifyChecksum compares the manifest's sha256 with the binary's and
// returns the binary's digest. A running process reuses the digest
// computed when it was started, so the file is hashed once.
func verifyChecksum(label, path, want string, running *process) (string, error) {
	want = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(want)), "sha256:")
	if !hexDigest.MatchString(want) {
		return "", fmt.Errorf("plugin %s: manifest sha256 %q is not a 64-digit hex SHA-256 digest", label, want)
	}
	got := ""
	if running != nil {
		got = running.digest
	}
	if got == "" {
		var err error
		if got, err = fileSHA256(path); err != nil {
			return "", fmt.Errorf("plugin %s: hashing %s: %w", label, path, err)
		}
		if running != nil {
			running.digest = got
		}
	}
	if got != want {
		return "", fmt.Errorf("checksum mismatch for plugin %s: manifest says %s, file is %s (%s)", label, want, got, path)
	}
	return got, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// incompatibleVersion matches go-plugin's handshake refusal, which names
// the plugin's protocol version.
var incompatibleVersion = regexp.MustCompile(`(?i)incompatible API version.*Plugin version: (\d+)`)

// start runs the binary, completes the handshake and calls Describe.
func (l *Loader) start(ctx context.Context, label, path string) (*process, error) {
	logger := l.opts.Logger.With("plugin", label)
	hc := newHCLogAdapter(logger)
	// go-plugin's Kill waits for its own start to time out, so a start
	// abandoned on Ctrl-C kills the process through exec instead: its
	// context is cancelled only then (startClient), never once it runs.
	procCtx, abortStart := context.WithCancel(context.Background())
	cmd := exec.CommandContext(procCtx, path)
	cmd.Env = pluginEnv(os.Environ())
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig: grpcplugin.Handshake,
		Plugins:         grpcplugin.ClientPlugins(),
		Cmd:             cmd,
		// The host's environment holds API keys and tokens: a plugin gets
		// only the variables it needs to run (pluginEnv).
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           hc,
		// Output written to os.Stdout/os.Stderr after Serve travels over
		// go-plugin's stdio stream; raw fd-2 output goes through Logger.
		SyncStdout:      &lineWriter{emit: func(s string) { logger.Log(context.Background(), prefixLevel(s), s, "stream", "stdout") }},
		SyncStderr:      &lineWriter{emit: func(s string) { logger.Log(context.Background(), prefixLevel(s), s, "stream", "stderr") }},
		StartTimeout:    l.opts.StartTimeout,
		GRPCDialOptions: grpcplugin.ClientDialOptions(),
		// Managed lets plugin.CleanupClients() reach it if the host bails
		// out without Close.
		Managed: true,
	})
	p := &process{path: path, label: label, client: client}
	fail := func(err error) (*process, error) {
		client.Kill()
		return nil, err
	}
	rpcClient, err := startClient(ctx, client, abortStart)
	if err != nil {
		if ctx.Err() != nil {
			return fail(fmt.Errorf("plugin %s: start of %s interrupted: %w", label, path, ctx.Err()))
		}
		if m := incompatibleVersion.FindStringSubmatch(err.Error()); m != nil {
			v, _ := strconv.Atoi(m[1])
			return fail(versionError(label, v))
		}
		return fail(fmt.Errorf("plugin %s: starting %s: %w", label, path, err))
	}
	if rc := client.ReattachConfig(); rc != nil {
		p.pid = rc.Pid
	}
	raw, err := rpcClient.Dispense(grpcplugin.PluginName)
	if err != nil {
		return fail(fmt.Errorf("plugin %s: %s: %w", label, path, err))
	}
	p.rpc = raw.(pluginpb.PluginClient)
	c := &conn{proc: p, label: label, timeout: l.opts.StartTimeout, logger: l.opts.Logger}
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	desc, err := p.rpc.Describe(cctx, &pluginpb.DescribeRequest{})
	if err != nil {
		return fail(c.callError("Describe", err))
	}
	if err := checkAPIVersion(label, desc.GetApiVersion()); err != nil {
		return fail(err)
	}
	p.desc = desc
	p.setDescription(desc)
	logger.Debug("grpc plugin started", "path", path, "pid", p.pid, "version", desc.GetVersion(),
		"categories", strings.Join(desc.GetCategories(), ","))
	return p, nil
}

// startClient runs the plugin binary and waits for its handshake, at most
// the start timeout, and no longer than ctx: go-plugin's Client() takes no
// context, so when ctx ends first abort kills the process, which ends the
// wait.
func startClient(ctx context.Context, client *plugin.Client, abort context.CancelFunc) (plugin.ClientProtocol, error) {
	type result struct {
		rpc plugin.ClientProtocol
		err error
	}
	done := make(chan result, 1)
	go func() {
		rpc, err := client.Client()
		done <- result{rpc, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			abort()
		}
		return r.rpc, r.err
	case <-ctx.Done():
		abort()
		r := <-done // returns once the process is gone
		return nil, errors.Join(ctx.Err(), r.err)
	}
}

// KillAll stops every plugin process this process started: the last
// thing a forced exit (a second Ctrl-C) does, so none outlives aiperf.
func KillAll() { plugin.CleanupClients() }

// checkAPIVersion refuses a plugin whose Describe reports another major
// version (a plugin may pass the handshake and still disagree here, e.g. a
// hand-written non-Go plugin).
func checkAPIVersion(label string, v uint32) error {
	if int(v) != sdk.APIVersion {
		return versionError(label, int(v))
	}
	return nil
}

func versionError(label string, v int) error {
	return fmt.Errorf("plugin %s speaks plugin API v%d, this aiperf speaks v%d (rebuild it against the v%d plugin SDK)",
		label, v, sdk.APIVersion, sdk.APIVersion)
}

// supportedCategories are those whose descriptors accept gRPC plugins:
// the Plugin service has RPCs for them, and newAdapter an adapter.
var supportedCategories = func() []string {
	var out []string
	for _, c := range sdk.Categories {
		if c.Accepts(sdk.KindGRPC) {
			out = append(out, c.Name)
		}
	}
	return out
}()

func supported(category string) bool { return slices.Contains(supportedCategories, category) }

func supportedList() string { return strings.Join(supportedCategories, ", ") }

// checkCategory refuses a plugin whose Describe does not list category.
func checkCategory(label, category string, implemented []string) error {
	if slices.Contains(implemented, category) {
		return nil
	}
	have := strings.Join(implemented, ", ")
	if have == "" {
		have = "none"
	}
	return fmt.Errorf("plugin %s: the binary does not implement category %s (it implements: %s)", label, category, have)
}

// pluginEnvAllow are the host variables a plugin process inherits: what a
// program needs to start and find its runtime (PATH, locale, temp dir, a
// Python virtualenv), and nothing that may carry credentials.
var pluginEnvAllow = map[string]bool{
	"PATH": true, "HOME": true, "TMPDIR": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true,
	"TZ": true, "VIRTUAL_ENV": true, "PYTHONPATH": true, "AIPERF_PYTHON": true,
}

// pluginEnv filters environ (KEY=value entries) to pluginEnvAllow and any
// AIPERF_PLUGIN_ENV_* variable, passed on without its prefix so a user can
// hand a plugin a setting deliberately.
func pluginEnv(environ []string) []string {
	const passPrefix = "AIPERF_PLUGIN_ENV_"
	var out []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
		case pluginEnvAllow[k]:
			out = append(out, kv)
		case strings.HasPrefix(k, passPrefix) && len(k) > len(passPrefix):
			out = append(out, k[len(passPrefix):]+"="+v)
		}
	}
	return out
}
