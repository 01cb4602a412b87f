#!/usr/bin/env bash
# Regenerates the Python stubs in aiperf_plugin/ from the one protocol
# definition, plugin-sdk/proto/aiperf/plugin/v1/plugin.proto.
#
# The proto directory is mapped to the virtual import path "aiperf_plugin"
# so the generated gRPC module imports "from aiperf_plugin import
# plugin_pb2" and the stubs work as a regular package, without sys.path
# tricks. Only the file's name in the descriptor pool changes; the protobuf
# package (aiperf.plugin.v1) and therefore every gRPC method path stay the
# same as for the Go side.
#
# Needs grpcio-tools (pip install -r requirements-dev.txt).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
proto_dir="$root/plugin-sdk/proto/aiperf/plugin/v1"
python="${AIPERF_PYTHON:-python3}"
"$python" -m grpc_tools.protoc \
	"-Iaiperf_plugin=$proto_dir" \
	--python_out="$here" --pyi_out="$here" --grpc_python_out="$here" \
	"$proto_dir/plugin.proto"
echo "regenerated $here/aiperf_plugin/plugin_pb2{.py,.pyi,_grpc.py}"
