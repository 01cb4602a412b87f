package grpcplugin

import (
	"context"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/pluginpb"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
)

// Handshake is the go-plugin handshake both sides must agree on. The magic
// cookie only tells a binary it was started by aiperf (it is not a secret);
// ProtocolVersion is the plugin API major version, so a plugin built for
// another major version fails the handshake.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  sdk.APIVersion,
	MagicCookieKey:   "AIPERF_PLUGIN",
	MagicCookieValue: "7c3e9a1f5b2d48e6a0c4f19d2b7e6a35c8d1f04e9b2a7c6d",
}

// PluginName is the key under which the Plugin service is dispensed.
const PluginName = "aiperf"

// MaxMessageBytes bounds one gRPC message either way. gRPC's 4 MiB default
// is too small for a whole dataset or an export context with every input.
const MaxMessageBytes = 512 << 20

// GRPCPlugin is the go-plugin glue for service aiperf.plugin.v1.Plugin.
// Impl is set on the plugin side only.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl pluginpb.PluginServer
}

var _ plugin.GRPCPlugin = (*GRPCPlugin)(nil)

// GRPCServer registers the Plugin service (plugin side).
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginpb.RegisterPluginServer(s, p.Impl)
	return nil
}

// GRPCClient returns a pluginpb.PluginClient (host side).
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return pluginpb.NewPluginClient(c), nil
}

// ClientPlugins is the plugin set a host passes to plugin.ClientConfig.
func ClientPlugins() plugin.PluginSet {
	return plugin.PluginSet{PluginName: &GRPCPlugin{}}
}

// ClientDialOptions raise the host's message size limits to MaxMessageBytes.
func ClientDialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithDefaultCallOptions(
		grpc.MaxCallRecvMsgSize(MaxMessageBytes), grpc.MaxCallSendMsgSize(MaxMessageBytes))}
}

// NewGRPCServer builds the plugin side's gRPC server with the raised limits.
func NewGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.MaxRecvMsgSize(MaxMessageBytes), grpc.MaxSendMsgSize(MaxMessageBytes))
	return grpc.NewServer(opts...)
}
