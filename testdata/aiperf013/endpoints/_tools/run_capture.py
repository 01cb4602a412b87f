#!/usr/bin/env python3
"""Run one AIPerf 0.13 capture against fakeserver.py.

usage: run_capture.py NAME [--server-arg X ...] -- <aiperf profile args...>

The aiperf args may contain {URL} which is replaced with the fake server URL.
Creates /tmp/issue10/captures/NAME/ with:
  cmd.txt                    the exact aiperf command line
  requests.jsonl             the fake server's request log
  aiperf_output.log          aiperf stdout+stderr (tail, 200 lines)
  exit_code.txt
  artifact_dir.txt           the artifact directory AIPerf created (auto-named)
  inputs.json                AIPerf's inputs.json
  profile_export_first2.jsonl first 2 lines of profile_export.jsonl
  profile_export_aiperf_tags.txt  metric tags in profile_export_aiperf.json
  profile_export_aiperf.json full file when < 30 KB
Full artifacts are moved to /tmp/issue10/_full_artifacts/NAME.
"""

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path("/tmp/issue10")
AIPERF = "/tmp/aiperf-venv/bin/aiperf"


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def shrink(path: Path, limit: int = 300 * 1024) -> None:
    """Keep captures small: when a file exceeds `limit`, cut long base64 runs
    to their first 200 chars + a marker with the original run length."""
    import re
    if not path.exists() or path.stat().st_size <= limit:
        return
    text = path.read_text()
    text = re.sub(r"[A-Za-z0-9+/=]{400,}", lambda m: m.group(0)[:200] + f"...[TRUNCATED base64 run of {len(m.group(0))} chars]", text)
    path.write_text(text)
    (path.parent / "TRUNCATED.txt").open("a").write(f"{path.name}: long base64 runs truncated (file was over {limit} bytes)\n")


def main():
    argv = sys.argv[1:]
    name = argv[0]
    sep = argv.index("--")
    server_args = [a for a in argv[1:sep] if a != "--server-arg"]
    aiperf_args = argv[sep + 1:]

    cap = ROOT / "captures" / name
    if cap.exists():
        shutil.rmtree(cap)
    cap.mkdir(parents=True)
    full = ROOT / "_full_artifacts" / name
    if full.exists():
        shutil.rmtree(full)

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = cap / "requests.jsonl"
    log.touch()
    srv = subprocess.Popen(
        [sys.executable, str(ROOT / "fakeserver.py"), "--port", str(port), "--log", str(log), *server_args],
        stdout=subprocess.DEVNULL, stderr=open(cap / "server_stderr.log", "w"),
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)

    args = [a.replace("{URL}", url) for a in aiperf_args]
    cmd = [AIPERF, "profile", *args]
    (cap / "cmd.txt").write_text(shlex.join(cmd) + "\n" + (f"# fakeserver args: {shlex.join(server_args)}\n" if server_args else ""))
    env = dict(os.environ)
    env.pop("HF_HUB_OFFLINE", None)
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, cwd=cap, env=env, capture_output=True, text=True, timeout=300)
        out = proc.stdout + proc.stderr
        rc = proc.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or "") + (e.stderr or "") if isinstance(e.stdout, str) else ""
        rc = "timeout"
    dt = time.time() - t0
    srv.terminate()
    try:
        srv.wait(timeout=5)
    except subprocess.TimeoutExpired:
        srv.kill()
    lines = out.splitlines()
    (cap / "aiperf_output.log").write_text("\n".join(lines[-200:]) + "\n")
    (cap / "exit_code.txt").write_text(f"{rc}\n# wall {dt:.1f}s\n")

    arts = cap / "artifacts"
    dirs = [p.parent for p in arts.rglob("profile_export_aiperf.json")] if arts.exists() else []
    if not dirs and arts.exists():
        dirs = [p.parent for p in arts.rglob("inputs.json")]
    if dirs:
        d = dirs[0]
        (cap / "artifact_dir.txt").write_text(str(d.relative_to(cap)) + "\n" + "\n".join(sorted(p.name for p in d.iterdir())) + "\n")
        if (d / "inputs.json").exists():
            shutil.copy(d / "inputs.json", cap / "inputs.json")
        pe = d / "profile_export.jsonl"
        if pe.exists():
            with open(pe) as f:
                first2 = [f.readline(), f.readline()]
            (cap / "profile_export_first2.jsonl").write_text("".join(first2))
        pa = d / "profile_export_aiperf.json"
        if pa.exists():
            data = json.loads(pa.read_text())
            tags = []
            metrics = data.get("metrics") if isinstance(data.get("metrics"), dict) else None
            src = metrics if metrics is not None else data
            for k, v in src.items():
                if isinstance(v, dict) and "unit" in v:
                    tags.append(f"{k}\t{v.get('unit')}")
            (cap / "profile_export_aiperf_tags.txt").write_text("\n".join(tags) + "\n")
            if pa.stat().st_size < 30 * 1024:
                shutil.copy(pa, cap / "profile_export_aiperf.json")
        full.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(arts), str(full))
    elif arts.exists():
        full.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(arts), str(full))
    shrink(cap / "requests.jsonl")
    shrink(cap / "inputs.json")
    n = sum(1 for _ in open(log))
    print(f"{name}: rc={rc} requests_logged={n} wall={dt:.1f}s dir={dirs[0].name if dirs else None}")


if __name__ == "__main__":
    main()
