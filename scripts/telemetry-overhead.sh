#!/bin/bash
# Telemetry overhead A/B on the GPU host: mock on cores 0-7, client on 8-15.
# Usage (on a host with a GPU and >= 16 cores): OUT=dir scripts/telemetry-overhead.sh [path/to/aiperf]
bin=$(realpath "${1:-bin/aiperf}")
OUT=${OUT:-/tmp/telemetry-overhead}; mkdir -p "$OUT"
taskset -c 0-7 "$bin" mock-server --port 18000 --fast --log-level WARNING > "$OUT/mock.log" 2>&1 &
mock=$!
trap 'kill $mock 2>/dev/null' EXIT
sleep 1
A="-m m -u localhost:18000 --concurrency 64 --isl 32 --osl 20 --extra-inputs ignore_eos:true --streaming --tokenizer builtin --ui none --log-level WARNING --benchmark-duration 8"
for i in 1 2 3 4 5 6; do
  for m in off on; do
    if [ $m = on ]; then X="--gpu-telemetry pynvml"; else X="--no-gpu-telemetry --no-server-metrics"; fi
    taskset -c 8-15 "$bin" profile $A $X --artifact-dir /tmp/ov_$m$i > /tmp/ov_$m$i.out 2>&1
    python3 -c "import json;d=json.load(open('/tmp/ov_$m$i/profile_export_aiperf.json'));print('$m',$i,round(d['request_throughput']['avg'],1))"
  done
done | tee "$OUT/overhead.txt"
grep -c . /tmp/ov_on1/gpu_telemetry_export.jsonl > "$OUT/samples.txt"
ls /tmp/ov_on1 >> "$OUT/samples.txt"
