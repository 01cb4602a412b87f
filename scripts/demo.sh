#!/usr/bin/env bash
# make demo: start the mock server, profile it, stop it.
set -euo pipefail
bin=${1:-bin/aiperf}
port=$(./scripts/freeport.sh 18765)
"$bin" mock-server --host 127.0.0.1 --port "$port" --ttft 20 --itl 1 --random-seed 7 &
mock=$!
trap 'kill $mock 2>/dev/null || true; wait $mock 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.05
done
"$bin" profile \
  --model Qwen/Qwen3-0.6B \
  --url "http://127.0.0.1:$port" \
  --endpoint-type chat --streaming \
  --concurrency 8 --request-count 200 --warmup-request-count 8 \
  --isl 128 --osl 160 --extra-inputs ignore_eos:true reasoning_effort:low \
  --goodput "time_to_first_token:50 inter_token_latency:5" \
  --random-seed 42 --tokenizer builtin \
  --gpu-telemetry "http://127.0.0.1:$port/dcgm/metrics" --slice-duration 1 \
  --artifact-dir artifacts/demo --generate-plots
# --generate-plots drew the run's plots (PNG, pure Go) and its one-file HTML
# report into artifacts/demo/plots. The live dashboard is the default UI on
# a terminal (none in a pipe, as CI).
