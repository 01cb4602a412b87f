package grpcloader

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// conn is one entry's view of a plugin process: its category and name
// (the label category.name for messages) and its per-call deadline.
type conn struct {
	proc           *process
	label          string
	category, name string
	timeout        time.Duration
	logger         *slog.Logger
}

// ExternalConfigurer is implemented by every adapter this loader returns
// (and by the WASM loader's): the core delivers a manifest entry's
// settings through it, once, before Init, and only when the entry has
// settings. It is the registry's ConfigSink for external plugins; the
// method set matches registry.ConfigSink exactly:
//
//	Configure(ctx context.Context, configJSON []byte) error
//
// configJSON is the entry's settings as one JSON object (manifest config
// merged with --plugin-config values). The plugin decodes it strictly: an
// unknown key is an error naming the plugin and the key.
type ExternalConfigurer interface {
	Configure(ctx context.Context, configJSON []byte) error
}

var _ ExternalConfigurer = (*conn)(nil)

// Configure sends the entry's settings (the Configure RPC, with the
// entry's category and name), then describes the plugin again: its
// endpoint metadata and declared metrics may follow its settings.
func (c *conn) Configure(ctx context.Context, configJSON []byte) error {
	const method = "Configure"
	if err := c.deadError(method); err != nil {
		return err
	}
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	_, err := c.proc.rpc.Configure(cctx, &pluginpb.ConfigureRequest{Category: c.category, Name: c.name, ConfigJson: configJSON})
	if status.Code(err) == codes.Unimplemented && !c.proc.exited() {
		return fmt.Errorf("plugin %s: %s: the plugin takes no settings: it does not answer Configure (built against an older plugin SDK); remove its settings or rebuild it: %s",
			c.label, method, status.Convert(err).Message())
	}
	if err != nil {
		return c.callError(method, err)
	}
	return c.redescribe(ctx)
}

// redescribe refreshes the process's description (shared by every entry
// it serves).
func (c *conn) redescribe(ctx context.Context) error {
	const method = "Describe"
	cctx, cancel := c.callCtx(ctx)
	defer cancel()
	desc, err := c.proc.rpc.Describe(cctx, &pluginpb.DescribeRequest{})
	if err != nil {
		return c.callError(method, err)
	}
	c.proc.setDescription(desc)
	return nil
}

// callCtx bounds one call, so a hung plugin costs a timeout, never a hang.
func (c *conn) callCtx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, c.timeout)
}

// exitWait is how long a failed call waits for go-plugin to notice that the
// process died, so the error can say so.
const exitWait = time.Second

// callError turns an RPC failure into "plugin <category>.<name>: <method>: ...".
func (c *conn) callError(method string, err error) error {
	prefix := "plugin " + c.label + ": " + method
	st, _ := status.FromError(err)
	if st.Code() == codes.Unavailable || st.Code() == codes.Canceled {
		// A dead process shows up as a broken connection first.
		for deadline := time.Now().Add(exitWait); !c.proc.exited() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if c.proc.exited() {
		return fmt.Errorf("%s: the plugin process (pid %d, %s) has exited", prefix, c.proc.pid, c.proc.path)
	}
	switch st.Code() {
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s: no answer within %v (the per-call deadline; limits.call_timeout_ms in the manifest changes it): %s",
			prefix, c.timeout, st.Message())
	case codes.Unavailable:
		return fmt.Errorf("%s: lost the connection to the plugin process (pid %d): %s", prefix, c.proc.pid, st.Message())
	case codes.Unimplemented:
		return fmt.Errorf("%s: not implemented by the plugin: %s", prefix, st.Message())
	default:
		return fmt.Errorf("%s: %s", prefix, st.Message())
	}
}

// deadError is returned without an RPC once the process is known to be gone.
func (c *conn) deadError(method string) error {
	if c.proc.exited() {
		return fmt.Errorf("plugin %s: %s: the plugin process (pid %d, %s) has exited", c.label, method, c.proc.pid, c.proc.path)
	}
	return nil
}

// Info describes a loaded gRPC plugin (for `aiperf plugins` and --validate).
type Info struct {
	// Label is <category>.<name> of the manifest entry.
	Label      string
	Path       string
	PID        int
	APIVersion int
	// Name, Version and Description are what the plugin reported.
	Name        string
	Version     string
	Description string
	Categories  []string
}

// Described is implemented by every adapter this loader returns.
type Described interface {
	PluginInfo() Info
}

// PluginInfo implements Described.
func (c *conn) PluginInfo() Info {
	d := c.proc.desc
	return Info{Label: c.label, Path: c.proc.path, PID: c.proc.pid, APIVersion: int(d.GetApiVersion()),
		Name: d.GetName(), Version: d.GetVersion(), Description: d.GetDescription(),
		Categories: append([]string(nil), d.GetCategories()...)}
}
