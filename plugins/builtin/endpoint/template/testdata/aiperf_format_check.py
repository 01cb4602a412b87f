"""Renders every template of jinja_golden.jsonl with AIPerf 0.13's own
TemplateEndpoint.format_payload (real Turn/Text/Image models) and compares the
orjson body with the golden one.

    /tmp/aiperf-venv/bin/python aiperf_format_check.py jinja_golden.jsonl

Templates that apply tojson to the turn's Text/Image objects are reported as
SKIP: AIPerf's pydantic models are not JSON serializable, while the Go endpoint
exposes the turn as plain maps.
"""

import json
import sys
import types

import jinja2
import orjson
from aiperf.common.models import Image, Text, Turn
from aiperf.endpoints.template_endpoint import TemplateEndpoint

TEXT = "a<b & \"c\" 'd'"
ok = bad = skipped = 0
for line in open(sys.argv[1]):
    row = json.loads(line)
    ep = object.__new__(TemplateEndpoint)
    ep._template = jinja2.Environment(autoescape=True).from_string(row["template"])
    ep._extra_fields = {}
    ep.trace = ep.error = lambda *a, **k: None
    ep.model_endpoint = types.SimpleNamespace(
        primary_model_name="m", endpoint=types.SimpleNamespace(streaming=True))
    turn = Turn(
        texts=[Text(name="text", contents=[TEXT]), Text(name="query", contents=["q1"]),
               Text(name="passages", contents=["p1", "p2"])],
        images=[Image(name="image_url", contents=["img1"])],
        extra_body={"n": None, "x": 1.5},
    )
    try:
        body = orjson.dumps(ep.format_payload(types.SimpleNamespace(turns=[turn]))).decode()
    except Exception as e:  # noqa: BLE001
        skipped += 1
        print("SKIP", repr(e), row["template"])
        continue
    if body == row["body"]:
        ok += 1
    else:
        bad += 1
        print("DIFF", row["template"], body, row["body"], sep="\n  ")
print(f"{ok} match, {bad} differ, {skipped} skipped")
sys.exit(1 if bad else 0)
