// Package pythongrpc holds the Go tests of the Python aiperf plugin next to
// it (plugin.py, aiperf_plugin/): they start the real Python process through
// hashicorp/go-plugin, exactly as aiperf's grpc loader does, and check what
// it answers over the generated pluginpb client.
package pythongrpc
