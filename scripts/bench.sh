#!/usr/bin/env bash
# make bench: throughput scenarios against `aiperf mock-server --fast` on
# loopback. Client and server share this machine's cores, so the numbers are
# a floor for the client; see docs/PERFORMANCE.md for method and results.
set -euo pipefail
bin=${1:-bin/aiperf}
out=${BENCH_DIR:-artifacts/bench}
rm -rf "$out"; mkdir -p "$out"
port=$(./scripts/freeport.sh 18865)
"$bin" mock-server --host 127.0.0.1 --port "$port" --fast --log-level WARNING &
mock=$!
trap 'kill $mock 2>/dev/null || true; wait $mock 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done

# name concurrency requests osl streaming
scenarios=(
  "stream-osl20-c64 64 20000 20 --streaming"
  "stream-osl200-c64 64 5000 200 --streaming"
  "nonstream-osl20-c64 64 20000 20"
)
printf '%-22s %12s %14s %14s %10s %10s\n' scenario "req/s" "SSE events/s" "tokens/s" "client CPU" "max RSS"
for s in "${scenarios[@]}"; do
  read -r name conc n osl streaming <<<"$s"
  dir="$out/$name"
  timer=(); [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%P %M' -o "$dir.time")
  echo "- -" >"$dir.time"
  "${timer[@]}" "$bin" profile -m bench-model -u "http://127.0.0.1:$port" \
    --concurrency "$conc" --request-count "$n" --isl 32 --osl "$osl" --extra-inputs ignore_eos:true \
    ${streaming:-} --random-seed 1 --tokenizer builtin --artifact-dir "$dir" --ui none --log-level WARNING >"$dir.out" 2>&1 \
    || { cat "$dir.out"; exit 1; }
  rps=$(grep -E 'Request Throughput' "$dir.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')
  tps=$(grep -E 'Output Token Throughput \(tokens/sec\)' "$dir.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')
  # A chat stream is: role delta, one event per token, finish chunk, usage chunk, [DONE].
  events="-"
  [ -n "${streaming:-}" ] && events=$(awk -v r="$rps" -v o="$osl" 'BEGIN{printf "%.0f", r*(o+4)}')
  read -r cpu rss <"$dir.time"
  [ "$rss" != "-" ] && rss="$(awk -v k="$rss" 'BEGIN{printf "%.0fMB", k/1024}')"
  printf '%-22s %12s %14s %14s %10s %10s\n' "$name" "$rps" "$events" "$tps" "$cpu" "$rss"
done

# Telemetry overhead (issue 12): the streaming scenario with every collector off, and
# with server metrics (the mock's /metrics) plus GPU telemetry (the mock's fake DCGM
# exporter) sampled every 333 ms; three alternating pairs, then the median change.
printf '\n%-22s %12s %12s %10s\n' telemetry "off req/s" "on req/s" change
changes=()
for i in 1 2 3; do
  for mode in off on; do
    flags=(--no-server-metrics --no-gpu-telemetry)
    [ "$mode" = on ] && flags=(--gpu-telemetry "http://127.0.0.1:$port/dcgm/metrics")
    "$bin" profile -m bench-model -u "http://127.0.0.1:$port" --concurrency 64 --request-count 20000 --isl 32 --osl 20 \
      --extra-inputs ignore_eos:true --streaming --random-seed 1 --tokenizer builtin --ui none --log-level WARNING \
      --artifact-dir "$out/telemetry-$mode-$i" "${flags[@]}" >"$out/telemetry-$mode-$i.out" 2>&1 \
      || { cat "$out/telemetry-$mode-$i.out"; exit 1; }
    declare "rps_$mode=$(grep -E 'Request Throughput' "$out/telemetry-$mode-$i.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')"
  done
  change=$(awk -v a="$rps_off" -v b="$rps_on" 'BEGIN{printf "%+.1f%%", (b-a)/a*100}')
  changes+=("${change%\%}")
  printf '%-22s %12s %12s %10s\n' "pair $i" "$rps_off" "$rps_on" "$change"
done
printf '%-22s %36s\n' "median change" "$(printf '%s\n' "${changes[@]}" | sort -g | sed -n 2p)%"

# Non-LLM endpoint types (issue 10): closed loop at concurrency 64 against the mock's own routes.
# name endpoint-type requests extra-flags
endpoint_scenarios=(
  "embeddings-b8-c64 embeddings 20000 -b 8"
  "nim-rankings-c64 nim_rankings 20000 --rankings-passages-mean 10"
  "cohere-rankings-c64 cohere_rankings 20000"
)
echo
printf '%-22s %12s %10s %10s\n' scenario "req/s" "client CPU" "max RSS"
for s in "${endpoint_scenarios[@]}"; do
  read -r name ep n extra <<<"$s"
  dir="$out/$name"
  timer=(); [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%P %M' -o "$dir.time")
  echo "- -" >"$dir.time"
  "${timer[@]}" "$bin" profile -m bench-model -u "http://127.0.0.1:$port" --endpoint-type "$ep" \
    --concurrency 64 --request-count "$n" --isl 32 $extra --random-seed 1 --tokenizer builtin \
    --artifact-dir "$dir" --ui none --log-level WARNING >"$dir.out" 2>&1 || { cat "$dir.out"; exit 1; }
  rps=$(grep -E 'Request Throughput' "$dir.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')
  read -r cpu rss <"$dir.time"
  [ "$rss" != "-" ] && rss="$(awk -v k="$rss" 'BEGIN{printf "%.0fMB", k/1024}')"
  printf '%-22s %12s %10s %10s\n' "$name" "$rps" "$cpu" "$rss"
done

# Open-loop precision: constant arrivals at fixed rates for 3 s each, non-streaming and 1 output
# token so the mock's and the client's per-request work is minimal. Schedule lag = how late each
# request left its scheduled time (ms).
echo
printf '%-26s %10s %22s %10s %10s %10s\n' scenario "target/s" "achieved/s" "lag p50" "lag p99" "lag max"
for rate in ${BENCH_RATES:-1000 5000 10000 20000}; do
  dir="$out/rate-$rate"
  "$bin" profile -m bench-model -u "http://127.0.0.1:$port" --request-rate "$rate" --arrival-pattern constant \
    --benchmark-duration 3 --benchmark-grace-period 5 --isl 16 --osl 1 --random-seed 1 --tokenizer builtin \
    --artifact-dir "$dir" --ui none --log-level WARNING >"$dir.out" 2>&1 || { cat "$dir.out"; exit 1; }
  go run ./scripts/benchreport "constant-rate" "$rate" "$dir/profile_export_aiperf.json"
done
# The same at 5k req/s under plain GOGC=100, against aiperf's GC policy above.
dir="$out/rate-5000-gogc100"
GOGC=100 "$bin" profile -m bench-model -u "http://127.0.0.1:$port" --request-rate 5000 --arrival-pattern constant \
  --benchmark-duration 3 --benchmark-grace-period 5 --isl 16 --osl 1 --random-seed 1 --tokenizer builtin \
  --artifact-dir "$dir" --ui none --log-level WARNING >"$dir.out" 2>&1 || { cat "$dir.out"; exit 1; }
go run ./scripts/benchreport "constant-rate GOGC=100" 5000 "$dir/profile_export_aiperf.json"

# Memory and the GC policy (issue 15): max RSS and throughput of long closed-loop runs and of many
# concurrent streams, with aiperf's policy (internal/gcpolicy) and with plain GOGC=100 beside it.
# name env concurrency requests/duration dataset-entries streaming
memory_scenarios=(
  "closed-1M-c64 - 64 1000000 1000"
  "closed-1M-distinct-c64 - 64 1000000 0"
  "closed-300k-c64 - 64 300000 1000"
  "closed-300k-c64-gogc100 GOGC=100 64 300000 1000"
  "streams-1400-10s - 1400 10s 100 --streaming"
  "streams-1400-10s-gogc100 GOGC=100 1400 10s 100 --streaming"
)
echo
printf '%-28s %12s %10s %10s %10s\n' "memory scenario" "req/s" requests "client CPU" "max RSS"
for s in "${memory_scenarios[@]}"; do
  read -r name envs conc n entries streaming <<<"$s"
  [ -n "${BENCH_SKIP_1M:-}" ] && [[ $name == closed-1M* ]] && continue
  dir="$out/$name"
  count=(--request-count "$n"); [[ $n == *s ]] && count=(--benchmark-duration "${n%s}")
  ds=(--num-dataset-entries "$entries"); [ "$entries" = 0 ] && ds=()
  echo "- -" >"$dir.time"
  env ${envs/#-/X=} /usr/bin/time -f '%P %M' -o "$dir.time" "$bin" profile -m bench-model -u "http://127.0.0.1:$port" \
    --concurrency "$conc" "${count[@]}" "${ds[@]}" --isl 16 --osl 20 --extra-inputs ignore_eos:true ${streaming:-} \
    --random-seed 1 --tokenizer builtin --artifact-dir "$dir" --ui none --log-level WARNING \
    --no-server-metrics --no-gpu-telemetry >"$dir.out" 2>&1 || { cat "$dir.out"; exit 1; }
  rps=$(grep -E 'Request Throughput' "$dir.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')
  reqs=$(grep -E 'Request Count' "$dir.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')
  read -r cpu rss <"$dir.time"
  [ "$rss" != "-" ] && rss="$(awk -v k="$rss" 'BEGIN{printf "%.0fMB", k/1024}')"
  printf '%-28s %12s %10s %10s %10s\n' "$name" "$rps" "$reqs" "$cpu" "$rss"
done

# Memory per in-flight stream: N streams held open at once by a slow mock (2 s to first token);
# the client's max RSS difference between N=2000 and N=200, divided by 1800.
if [ -x /usr/bin/time ]; then
  slow=$(./scripts/freeport.sh 18965)
  "$bin" mock-server --host 127.0.0.1 --port "$slow" --ttft 2000 --itl 10 --log-level WARNING &
  slowpid=$!
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$slow") 2>/dev/null && break; sleep 0.05; done
  rss() {
    /usr/bin/time -f '%M' -o "$out/rss-$1" "$bin" profile -m bench-model -u "http://127.0.0.1:$slow" --streaming \
      --concurrency "$1" --request-count "$1" --isl 16 --osl 10 --extra-inputs ignore_eos:true --tokenizer builtin \
      --artifact-dir "$out/held-$1" --ui none --log-level WARNING >/dev/null 2>&1
    cat "$out/rss-$1"
  }
  small=$(rss 200); large=$(rss 2000)
  kill $slowpid 2>/dev/null || true
  echo
  awk -v s="$small" -v l="$large" 'BEGIN{printf "memory per in-flight stream: %.1f KiB (max RSS %d KiB with 200 held, %d KiB with 2000)\n", (l-s)/1800, s, l}'
fi

# Endpoint kinds: the same closed-loop run (streaming, OSL 20, c=32, 5000 requests) through the
# built-in chat endpoint and the textgen example endpoint as a Go gRPC process, a WASM module and a
# Python gRPC process.
# Plugins parse each record once, after it finished (one call per record); the rate shows how much
# that post-processing costs when it has to keep up.
plugdir="$(pwd)/$out/plugins"
mkdir -p "$plugdir"
go build -o "$plugdir/textgen-plugin" ./examples/plugins/go-grpc-endpoint
printf 'endpoint:\n  textgen:\n    kind: grpc\n    description: bench\n    path: %s\n    api_version: 1\n' "$plugdir/textgen-plugin" >"$plugdir/go.yaml"
GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o "$plugdir/textgen.wasm" ./examples/plugins/go-wasm-endpoint
printf 'endpoint:\n  textgen_wasm:\n    kind: wasm\n    description: bench\n    path: %s\n    api_version: 1\n' "$plugdir/textgen.wasm" >"$plugdir/wasm.yaml"
kinds=("builtin chat" "grpc-go textgen $plugdir/go.yaml" "wasm-go textgen_wasm $plugdir/wasm.yaml")
if python3 -c 'import grpc, grpc_health, google.protobuf' 2>/dev/null; then
  printf 'endpoint:\n  textgen_py:\n    kind: grpc\n    description: bench\n    path: %s\n    api_version: 1\n' \
    "$(pwd)/examples/plugins/python-grpc/aiperf-textgen-py" >"$plugdir/py.yaml"
  kinds+=("grpc-python textgen_py $plugdir/py.yaml")
fi
echo
printf '%-14s %12s %12s\n' "endpoint kind" "req/s" "wall s"
for k in "${kinds[@]}"; do
  read -r label ep manifest <<<"$k"
  dir="$out/kind-$label"
  start=$(date +%s.%N)
  "$bin" profile -m bench-model -u "http://127.0.0.1:$port" --endpoint-type "$ep" ${manifest:+--plugins "$manifest"} \
    --streaming --concurrency 32 --request-count 5000 --isl 32 --osl 20 --extra-inputs ignore_eos:true \
    --random-seed 1 --tokenizer builtin --artifact-dir "$dir" --ui none --log-level WARNING >"$dir.out" 2>&1 \
    || { cat "$dir.out"; exit 1; }
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.2f", e-s}')
  rps=$(grep -E 'Request Throughput' "$dir.out" | awk -F'│' '{gsub(/[ ,]/,"",$3); print $3}')
  printf '%-14s %12s %12s\n' "$label" "$rps" "$wall"
done
