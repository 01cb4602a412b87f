# Trims AIPerf 0.13's multi-run artifacts (/tmp/mr/art) to a few metrics
# for core/aggregate/testdata/aiperf013 (see its README.md).
import json, csv, io, sys
src, dst = sys.argv[1], sys.argv[2]
keep = ["request_throughput", "request_count", "time_to_first_token", "inter_token_latency",
        "request_latency", "http_req_connection_overhead", "benchmark_duration"]
top = ["schema_version", "aiperf_version", "was_cancelled"]
for i in (1, 2, 3):
    r = json.load(open(f"{src}/profile_runs/run_000{i}/profile_export_aiperf.json"))
    out = {k: v for k, v in r.items() if k in keep or k in top}
    open(f"{dst}/run_000{i}.json", "w").write(json.dumps(out, indent=2) + "\n")
def kept(name):
    return any(name == f"{m}_{s}" for m in keep for s in
               ["avg","min","max","sum","p1","p5","p10","p25","p50","p75","p90","p95","p99","std"])
a = json.load(open(f"{src}/aggregate/profile_export_aiperf_aggregate.json"))
a["metrics"] = {k: v for k, v in a["metrics"].items() if kept(k)}
open(f"{dst}/profile_export_aiperf_aggregate.json", "w").write(json.dumps(a, indent=2) + "\n")
raw = open(f"{src}/aggregate/profile_export_aiperf_aggregate.csv", newline="").read()
lines = raw.split("\r\n")
out = []
in_metrics = True
for i, l in enumerate(lines):
    if i == 0:
        out.append(l); continue
    if l == "":
        in_metrics = False
    if in_metrics and not kept(l.split(",")[0]):
        continue
    out.append(l)
open(f"{dst}/profile_export_aiperf_aggregate.csv", "w", newline="").write("\r\n".join(out))
