package grpcplugin

import (
	"fmt"
	"io"
	"os"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/hashicorp/go-plugin"
)

// ServeOption configures what a plugin reports about itself.
type ServeOption func(*serveConfig)

type serveConfig struct {
	name, version, description string
	apiVersion                 uint32
}

// WithName sets the name Describe reports (informational: the manifest
// decides the name the plugin is registered under).
func WithName(name string) ServeOption { return func(c *serveConfig) { c.name = name } }

// WithVersion sets the plugin's own version string.
func WithVersion(v string) ServeOption { return func(c *serveConfig) { c.version = v } }

// WithDescription sets the one-line description Describe reports.
func WithDescription(d string) ServeOption { return func(c *serveConfig) { c.description = d } }

// WithAPIVersion overrides the plugin API version spoken in the handshake
// and reported by Describe. Plugin authors never need it: it exists to test
// that hosts refuse plugins built for another major version.
func WithAPIVersion(v uint32) ServeOption { return func(c *serveConfig) { c.apiVersion = v } }

func newServeConfig(opts []ServeOption) serveConfig {
	c := serveConfig{apiVersion: sdk.APIVersion}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Serve runs impl as an aiperf plugin process and never returns. impl
// implements any subset of sdk.Endpoint (optionally with sdk.RecordParser),
// sdk.RecordProcessor, sdk.CustomDatasetLoader, sdk.DataExporter, the
// telemetry collectors and sdk.Plot (or sdk.ComparisonPlot), and optionally the lifecycle interfaces (see the package documentation). An
// impl implementing no category is a programming error: Serve reports it
// on stderr and exits with status 1.
//
// When aiperf stops the plugin (go-plugin's graceful shutdown), an impl
// implementing io.Closer is closed, within CloseTimeout, before the process
// exits.
//
// Run directly instead of by aiperf, the binary prints a note that it is a
// plugin and exits.
func Serve(impl any, opts ...ServeOption) {
	srv, err := NewServer(impl, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcplugin:", err)
		os.Exit(1)
	}
	hs := Handshake
	hs.ProtocolVersion = uint(srv.desc.GetApiVersion())
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         plugin.PluginSet{PluginName: &GRPCPlugin{Impl: srv}},
		GRPCServer:      NewGRPCServer,
	})
	if err := closeImpl(impl, CloseTimeout); err != nil {
		fmt.Fprintln(os.Stderr, "[WARN] grpcplugin:", err)
	}
	os.Exit(0)
}

// CloseTimeout bounds the implementation's Close at shutdown: go-plugin
// kills a plugin process that has not exited 2 s after it asked it to stop.
const CloseTimeout = time.Second

// closeImpl closes impl when it is an io.Closer, waiting at most timeout;
// a panic in Close is reported as its error.
func closeImpl(impl any, timeout time.Duration) error {
	c, ok := impl.(io.Closer)
	if !ok {
		return nil
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic in Close: %v", r)
			}
		}()
		done <- c.Close()
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("closing the plugin: %w", err)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("closing the plugin: Close did not return within %v", timeout)
	}
}
