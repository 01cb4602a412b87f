"""Regenerates jinja_golden.jsonl with real Jinja2 and orjson, as AIPerf 0.13 renders.

Run with AIPerf's environment (jinja2 3.1.6, orjson 3.11.9):
    python3 jinja_golden.py templates.json > jinja_golden.jsonl
where templates.json is a JSON list of template strings (the templates already in
jinja_golden.jsonl can be listed with: jq -s 'map(.template)' jinja_golden.jsonl).

The variables are those TemplateEndpoint.format_payload builds for the turn that
TestRenderMatchesJinja2 builds (goldenTurn in format_test.go): texts (group "text"), a "query" group, a
"passages" group, one image, no max_tokens, no role, model "m", streaming, extra_body
{"n": None, "x": 1.5}, which is merged into the body afterwards. The turn is given as a
dict, as the Go endpoint exposes it (AIPerf passes its pydantic Turn, which tojson cannot
serialise; aiperf_format_check.py checks the rest against AIPerf's own format_payload).
"""

import json
import sys

import jinja2
import orjson

TEXT = "a<b & \"c\" 'd'"
TURN = dict(
    model=None, role=None, max_tokens=None,
    texts=[dict(name="text", contents=[TEXT]), dict(name="query", contents=["q1"]),
           dict(name="passages", contents=["p1", "p2"])],
    images=[dict(name="image_url", contents=["img1"])], audios=[], videos=[],
    extra_body={"n": None, "x": 1.5}, delay=None, timestamp=None,
)
VARS = dict(
    texts=[TEXT, "q1", "p1", "p2"], images=["img1"], audios=[], videos=[],
    text=TEXT, image="img1", audio=None, video=None,
    queries=["q1"], passages=["p1", "p2"], query="q1", passage="p1",
    texts_by_name={"text": [TEXT], "query": ["q1"], "passages": ["p1", "p2"]},
    images_by_name={"image_url": ["img1"]}, audios_by_name={}, videos_by_name={},
    model="m", max_tokens=None, role=None, turn=TURN, turns=[TURN],
    request_info=dict(turns=[TURN]), stream=True,
)

env = jinja2.Environment(autoescape=True)
for template in json.load(open(sys.argv[1])):
    payload = orjson.loads(env.from_string(template).render(**VARS))
    payload.update(TURN["extra_body"])
    print(json.dumps({"template": template, "body": orjson.dumps(payload).decode()}, ensure_ascii=False))
