#!/bin/bash
# Does the live dashboard slow the timed run? A/B of --ui dashboard against
# --ui none, both in a pseudo-terminal (script(1)) so the dashboard really
# draws on the alternate screen, at a fixed --request-rate for 10 s against
# `mock-server --fast` on the same host. Prints the achieved request
# throughput of each run; issue 13 asks for < 2% difference.
# Usage: scripts/ui-overhead.sh [path/to/aiperf] [rate] [rounds]
set -euo pipefail
bin=$(realpath "${1:-bin/aiperf}")
rate=${2:-5000}
rounds=${3:-3}
out=$(mktemp -d /tmp/ui-overhead.XXXX)
port=$("$(dirname "$0")/freeport.sh")
"$bin" mock-server --port "$port" --fast --log-level WARNING >"$out/mock.log" 2>&1 &
mock=$!
trap 'kill $mock 2>/dev/null' EXIT
sleep 1
args="-m m -u 127.0.0.1:$port --endpoint-type chat --streaming --request-rate $rate --request-rate-mode constant --random-seed 1 --benchmark-duration 10 --isl 32 --osl 16 --tokenizer builtin --no-gpu-telemetry --no-server-metrics"
for i in $(seq "$rounds"); do
  for ui in none dashboard; do
    dir="$out/$ui$i"
    script -qec "stty cols 120 rows 40; $bin profile $args --ui $ui --artifact-dir $dir" /dev/null >"$out/$ui$i.tty" 2>&1
    python3 - "$dir" "$ui" "$i" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/profile_export_aiperf.json"))
print(f"{sys.argv[2]:9s} round {sys.argv[3]}: {d['request_throughput']['avg']:8.1f} req/s  "
      f"TTFT p50 {d['time_to_first_token']['p50']:.2f} ms  latency p99 {d['request_latency']['p99']:.2f} ms")
PY
  done
done
