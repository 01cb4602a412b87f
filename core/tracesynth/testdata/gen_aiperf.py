"""Runs AIPerf 0.13's real mooncake_trace loader (load_dataset: max_isl filter,
session grouping, Synthesizer, max_osl cap) on trace.jsonl once per case and
writes aiperf_<case>.jsonl: the loaded traces in AIPerf's order, as
model_dump(exclude_none=True) without "type", with "session_id" only for
records that named one (AIPerf gives the others generated ids).

Run from this directory: /tmp/aiperf-venv/bin/python gen_aiperf.py
"""

import orjson

from aiperf.cli_runner import _make_benchmark_run
from aiperf.common import random_generator as rng
from aiperf.config.flags.cli_config import CLIConfig
from aiperf.config.flags.converter import convert_cli_to_aiperf
from aiperf.config.loader.plan import build_benchmark_plan
from aiperf.dataset.loader.mooncake_trace import MooncakeTraceDatasetLoader

CASES = {
    "default": {},
    "speedup2": {"synthesis_speedup_ratio": 2.0},
    "maxisl_maxosl": {"synthesis_max_isl": 2000, "synthesis_max_osl": 100},
    "prefix2": {"synthesis_prefix_len_multiplier": 2.0},
    "prefix1_5": {"synthesis_prefix_len_multiplier": 1.5},
    "prefix0_5": {"synthesis_prefix_len_multiplier": 0.5},
    "prompt0_5": {"synthesis_prompt_len_multiplier": 0.5},
    "prompt2": {"synthesis_prompt_len_multiplier": 2.0},
    "output1_5_maxosl": {"synthesis_output_len_multiplier": 1.5, "synthesis_max_osl": 300},
    "root3_seed42": {"synthesis_prefix_root_multiplier": 3},
    "combined_seed7": {
        "random_seed": 7,
        "synthesis_speedup_ratio": 4.0,
        "synthesis_prefix_len_multiplier": 1.5,
        "synthesis_prefix_root_multiplier": 2,
        "synthesis_prompt_len_multiplier": 1.3,
        "synthesis_max_isl": 3000,
        "synthesis_max_osl": 200,
    },
    "speedup2_prefix1_5_root3_maxosl200": {
        "synthesis_speedup_ratio": 2.0,
        "synthesis_prefix_len_multiplier": 1.5,
        "synthesis_prefix_root_multiplier": 3,
        "synthesis_max_osl": 200,
    },
    "bs64_prefix2_root4": {
        "isl_block_size": 64,
        "synthesis_prefix_len_multiplier": 2.0,
        "synthesis_prefix_root_multiplier": 4,
    },
}


class _Stub:
    pass


def load(opts: dict) -> list[dict]:
    rng.reset()
    kw = {"random_seed": 42, **opts}
    if "isl_block_size" in kw:
        kw["prompt_input_tokens_block_size"] = kw.pop("isl_block_size")
    cli = CLIConfig(
        model_names=["m"],
        input_file="trace.jsonl",
        custom_dataset_type="mooncake_trace",
        **kw,
    )
    plan = build_benchmark_plan(convert_cli_to_aiperf(cli))
    run = _make_benchmark_run(plan.configs[0], random_seed=kw["random_seed"])
    # load_dataset never builds prompts; it only resets the generator's scope.
    pg = _Stub()
    pg._hash_id_corpus_rng = _Stub()
    pg._hash_id_corpus_rng.set_trace_id = lambda _id: None
    pg._cache = {}
    pg.tokenizer = _Stub()
    loader = MooncakeTraceDatasetLoader(filename="trace.jsonl", prompt_generator=pg, run=run)
    named = set()
    with open("trace.jsonl", "rb") as f:
        for line in f:
            if line.strip():
                sid = orjson.loads(line).get("session_id")
                if sid:
                    named.add(sid)
    out = []
    for sid, traces in loader.load_dataset().items():
        for t in traces:
            d = t.model_dump(exclude_none=True, exclude={"type"}, mode="json")
            d.pop("session_id", None)
            if sid in named:
                d["session_id"] = sid
            out.append(d)
    return out


for name, opts in CASES.items():
    with open(f"aiperf_{name}.jsonl", "wb") as f:
        for d in load(opts):
            f.write(orjson.dumps(d) + b"\n")
