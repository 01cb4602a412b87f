"""Endpoint for the non-OpenAI "textgen" JSON API (the same API as the Go
example plugin and the mock server's /v1/textgen route).

Request:   POST /v1/textgen
           {"model": "...", "input": "<prompt>", "max_new_tokens": n, "stream": bool}
Response:  {"output": "...", "usage": {"input_tokens": a, "output_tokens": b}}
Streaming: SSE events {"delta": "..."} ... then {"done": true, "usage": {...}}

Both calls run outside aiperf's timed window: payloads are formatted ahead
of time and a whole record is parsed in one call after it completed.
"""

import json

from . import plugin_pb2 as pb
from .errors import PluginError

PATH = "/v1/textgen"

METADATA = pb.EndpointMetadata(
    endpoint_path=PATH,
    streaming_path=PATH,
    service_kind="textgen",
    supports_streaming=True,
    produces_tokens=True,
    tokenizes_input=True,
    metrics_title="LLM Metrics",
)

_COMPACT = (",", ":")


def _json_object(raw, where):
    """Decodes an optional JSON object field (extra inputs)."""
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as e:
        raise PluginError(f"textgen: format payload: {where} is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise PluginError(f"textgen: format payload: {where} must be a JSON object, got {type(value).__name__}")
    return value


def format_payload(req):
    """RequestInfo -> the exact JSON body to send (UTF-8 bytes).

    textgen takes one prompt string: earlier turns of the conversation and
    the turn's non-empty texts are joined by newlines. max_new_tokens is
    omitted when the turn does not ask for a length (or asks for 0).
    --extra-inputs and then the turn's own extras are merged over the body.
    """
    model = req.turn.model or req.model
    if not model:
        raise PluginError("textgen: format payload: no model (RequestInfo.model and turn.model are empty)")
    parts = [h.text for h in req.history if h.text]
    parts.extend(t for t in req.turn.texts if t)

    body = {"model": model, "input": "\n".join(parts)}
    if req.turn.HasField("max_tokens") and req.turn.max_tokens != 0:
        body["max_new_tokens"] = req.turn.max_tokens
    body["stream"] = req.streaming
    body.update(_json_object(req.extra_inputs_json, "extra_inputs_json"))
    body.update(_json_object(req.turn.extra_json, "turn.extra_json"))
    return json.dumps(body, ensure_ascii=False, separators=_COMPACT).encode("utf-8")


def _usage(raw):
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError(f"usage must be an object, got {type(raw).__name__}")
    usage = pb.Usage()
    for src, dst in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens")):
        value = raw.get(src)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"usage.{src} must be an integer, got {value!r}")
        setattr(usage, dst, value)
    if usage.HasField("prompt_tokens") and usage.HasField("completion_tokens"):
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
    return usage


def parse_unit(data, out):
    """Parses one response unit (an SSE event's data or a whole body) into
    the ParsedResponse `out`. Units that carry nothing leave it empty."""
    data = data.strip()
    if not data or data == b"[DONE]":
        return
    try:
        obj = json.loads(data)
    except ValueError as e:
        raise ValueError(f"invalid JSON: {e}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    if "error" in obj:
        raise ValueError(f"server error: {obj['error']}")
    text = obj.get("delta", obj.get("output"))
    if text is not None:
        if not isinstance(text, str):
            raise ValueError(f"text must be a string, got {type(text).__name__}")
        out.text = text
    usage = _usage(obj.get("usage"))
    if usage is not None:
        out.usage.CopyFrom(usage)


def parse_record(units):
    """ParseRecordRequest.units -> ParseRecordResponse with one response per
    unit, in order. A unit that cannot be parsed keeps its place (perf_ns
    only) and is reported in unit_errors, so one bad event does not hide the
    rest of the record."""
    resp = pb.ParseRecordResponse()
    for i, unit in enumerate(units):
        parsed = resp.responses.add(perf_ns=unit.perf_ns)
        try:
            parse_unit(unit.data, parsed)
        except ValueError as e:
            parsed.Clear()
            parsed.perf_ns = unit.perf_ns
            resp.unit_errors[i] = f"unit {i}: {e}"
    return resp
