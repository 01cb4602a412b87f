#!/usr/bin/env bash
# Installs the Python plugin's runtime dependencies for the python3 on PATH
# (or $AIPERF_PYTHON, e.g. a virtualenv's). CI runs it before the Go tests
# with AIPERF_REQUIRE_PYTHON_PLUGIN=1, so a missing package fails the tests
# instead of skipping them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${AIPERF_PYTHON:-python3}"
if ! "$python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore -r "$here/requirements.txt"; then
	echo "deps.sh: pip install failed for $python." >&2
	echo "If this Python is managed by the system (PEP 668), use a virtualenv:" >&2
	echo "  python3 -m venv DIR && AIPERF_PYTHON=DIR/bin/python3 $0 && export AIPERF_PYTHON=DIR/bin/python3" >&2
	exit 1
fi
"$python" -c 'import grpc, grpc_health.v1.health, google.protobuf; print("python plugin deps: grpcio", grpc.__version__)'
