#!/usr/bin/env python3
"""Fake inference server answering every AIPerf 0.13 endpoint type plausibly.

Logs every request (method, path, query, headers minus auth, exact body bytes)
as one JSON line to --log.  Standard library only (http.server, threaded).

Usage: python3 fakeserver.py --port 18800 --log /tmp/x/requests.jsonl
       [--content-delay 0.3]   # delay before GET /v1/videos/{id}/content answers
       [--embeddings-no-object] # omit "object":"embedding" in embeddings data
       [--empty]                # answer every POST with an empty-content body

Paths served:
  POST /v1/chat/completions      chat (stream: SSE chat.completion.chunk + usage chunk + [DONE])
  POST /v1/completions           completions (stream: SSE text_completion + usage chunk + [DONE])
  POST /v1/embeddings            embeddings / nim_embeddings / chat_embeddings
  POST /v1/ranking               nim_rankings   {"rankings":[{"index","logit"}]}
  POST /rerank                   hf_tei_rankings  top-level list [{"index","score"}]
  POST /v2/rerank                cohere_rankings {"results":[{"index","relevance_score"}]}
  POST /generate                 huggingface_generate {"generated_text": ...}
  POST /generate_stream          TGI SSE {"token":{"text":..}} ... final with generated_text
  POST /v1/images/generations    image_generation (stream: OpenAI image SSE events)
  POST /v1/videos                video_generation job create (multipart or JSON)
  GET  /v1/videos/{id}           poll: in_progress first, completed second
  GET  /v1/videos/{id}/content   video/mp4 bytes
  POST /rag/api/prompt           solido_rag {"content":..., "sources":[..]} (stream: SSE of same)
  POST /v1/responses             OpenAI Responses (stream: typed events)
  POST /v1/messages              Anthropic Messages (stream: typed events)
  POST anything else             {"text": "...", "choices":[...]}  (template/custom)
  GET  /metrics                  404
"""

from __future__ import annotations

import argparse
import base64
import json
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

LOCK = threading.Lock()
ARGS = None
VIDEO_POLLS: dict[str, int] = {}
WORDS = ["Hello", " from", " the", " fake", " server", "."]
TINY_PNG_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def log_request(handler: "Handler", body: bytes) -> None:
    headers = {
        k: v
        for k, v in handler.headers.items()
        if k.lower() not in ("authorization", "x-api-key")
    }
    split = urlsplit(handler.path)
    entry = {
        "ts": time.time(),
        "method": handler.command,
        "path": split.path,
        "query": split.query,
        "headers": headers,
        "body_len": len(body),
    }
    try:
        entry["body"] = body.decode("utf-8")
    except UnicodeDecodeError:
        entry["body"] = None
        entry["body_b64"] = base64.b64encode(body).decode()
    with LOCK, open(ARGS.log, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, ensure_ascii=False) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def setup(self):
        super().setup()
        # Without TCP_NODELAY small SSE chunks coalesce (Nagle + delayed ACK),
        # which makes every event of a stream arrive at once.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # ---------------------------------------------------------------- helpers
    def _read_body(self) -> bytes:
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            return self.rfile.read(n)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                line = self.rfile.readline().strip()
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                out += self.rfile.read(size)
                self.rfile.readline()
            return out
        return b""

    def _json(self, obj, status=200, ctype="application/json"):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _bytes(self, data: bytes, ctype: str, status=200):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, text: str):
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _sse_event(self, obj, event: str | None = None):
        s = ""
        if event:
            s += f"event: {event}\n"
        s += "data: " + (obj if isinstance(obj, str) else json.dumps(obj)) + "\n\n"
        self._chunk(s)
        time.sleep(0.003)

    def _sse_end(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # ---------------------------------------------------------------- verbs
    def do_GET(self):
        body = self._read_body()
        log_request(self, body)
        path = urlsplit(self.path).path
        if path.startswith("/v1/videos/"):
            rest = path[len("/v1/videos/"):]
            if rest.endswith("/content"):
                time.sleep(ARGS.content_delay)
                return self._bytes(b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 64, "video/mp4")
            job = rest
            with LOCK:
                VIDEO_POLLS[job] = VIDEO_POLLS.get(job, 0) + 1
                n = VIDEO_POLLS[job]
            if n < 2:
                return self._json({"id": job, "object": "video", "status": "in_progress",
                                   "progress": 50, "model": "mock-model", "created_at": 1700000000})
            return self._json({"id": job, "object": "video", "status": "completed", "progress": 100,
                               "model": "mock-model", "size": "64x64", "seconds": "1",
                               "created_at": 1700000000, "completed_at": 1700000001,
                               "inference_time_s": 1.25, "peak_memory_mb": 2048.5})
        if path == "/v1/models":
            return self._json({"object": "list", "data": [{"id": "mock-model", "object": "model"}]})
        return self._json({"error": "not found"}, status=404)

    def do_POST(self):
        body = self._read_body()
        log_request(self, body)
        path = urlsplit(self.path).path
        req = {}
        ctype = self.headers.get("Content-Type", "")
        if "json" in ctype or body[:1] == b"{":
            try:
                req = json.loads(body or b"{}")
            except Exception:
                req = {}
        stream = bool(req.get("stream")) or "text/event-stream" in self.headers.get("Accept", "")
        if ARGS.empty:
            return self._json({})

        if path.endswith("/chat/completions"):
            return self.chat(req, bool(req.get("stream")))
        if path.endswith("/v1/completions"):
            return self.completions(req, bool(req.get("stream")))
        if path.endswith("/v1/embeddings"):
            return self.embeddings(req)
        if path.endswith("/v1/ranking"):
            n = len(req.get("passages") or [])
            return self._json({"rankings": [{"index": i, "logit": 1.0 - i * 0.1} for i in range(n)]})
        if path == "/rerank":
            n = len(req.get("texts") or [])
            return self._json([{"index": i, "score": 0.9 - i * 0.1} for i in range(n)])
        if path.endswith("/v2/rerank"):
            n = len(req.get("documents") or [])
            return self._json({"id": "rr-1", "results": [{"index": i, "relevance_score": 0.9 - i * 0.1}
                                                         for i in range(n)],
                               "meta": {"billed_units": {"search_units": 1}}})
        if path == "/generate":
            return self._json({"generated_text": "".join(WORDS)})
        if path == "/generate_stream":
            self._sse_start()
            for i, w in enumerate(WORDS):
                last = i == len(WORDS) - 1
                self._sse_event({"index": i, "token": {"id": 100 + i, "text": w, "logprob": -0.1, "special": False},
                                 "generated_text": "".join(WORDS) if last else None,
                                 "details": {"finish_reason": "length", "generated_tokens": len(WORDS)} if last else None})
            return self._sse_end()
        if path.endswith("/v1/images/generations"):
            return self.images(req, bool(req.get("stream")))
        if path.endswith("/v1/videos"):
            job = "video_" + uuid.uuid4().hex[:8]
            return self._json({"id": job, "object": "video", "status": "queued", "progress": 0,
                               "model": "mock-model", "created_at": 1700000000})
        if path.endswith("/rag/api/prompt"):
            if stream:
                self._sse_start()
                for w in WORDS:
                    self._sse_event({"content": w})
                self._sse_event({"content": "", "sources": [{"doc": "a.pdf"}]})
                return self._sse_end()
            return self._json({"content": "".join(WORDS), "sources": [{"doc": "a.pdf", "score": 0.5}]})
        if path.endswith("/v1/responses"):
            return self.resp_api(req, bool(req.get("stream")))
        if path.endswith("/v1/messages"):
            return self.messages(req, bool(req.get("stream")))
        # template / custom paths
        if stream:
            self._sse_start()
            for w in WORDS:
                self._sse_event({"text": w})
            self._sse_event("[DONE]")
            return self._sse_end()
        return self._json({"text": "".join(WORDS), "custom": {"answer": "".join(WORDS)}})

    # ---------------------------------------------------------------- bodies
    def chat(self, req, stream):
        usage = {"prompt_tokens": 10, "completion_tokens": len(WORDS), "total_tokens": 10 + len(WORDS)}
        if not stream:
            return self._json({"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000,
                               "model": req.get("model"),
                               "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(WORDS)},
                                            "finish_reason": "length"}], "usage": usage})
        self._sse_start()
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": req.get("model")}
        self._sse_event({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})
        for i, w in enumerate(WORDS):
            self._sse_event({**base, "choices": [{"index": 0, "delta": {"content": w},
                                                  "finish_reason": "length" if i == len(WORDS) - 1 else None}]})
        if (req.get("stream_options") or {}).get("include_usage"):
            self._sse_event({**base, "choices": [], "usage": usage})
        self._sse_event("[DONE]")
        self._sse_end()

    def completions(self, req, stream):
        usage = {"prompt_tokens": 10, "completion_tokens": len(WORDS), "total_tokens": 10 + len(WORDS)}
        base = {"id": "cmpl-1", "object": "text_completion", "created": 1700000000, "model": req.get("model")}
        if not stream:
            return self._json({**base, "choices": [{"index": 0, "text": "".join(WORDS), "finish_reason": "length"}],
                               "usage": usage})
        self._sse_start()
        for i, w in enumerate(WORDS):
            self._sse_event({**base, "choices": [{"index": 0, "text": w,
                                                  "finish_reason": "length" if i == len(WORDS) - 1 else None}]})
        if (req.get("stream_options") or {}).get("include_usage"):
            self._sse_event({**base, "choices": [], "usage": usage})
        self._sse_event("[DONE]")
        self._sse_end()

    def embeddings(self, req):
        inp = req.get("input")
        n = len(inp) if isinstance(inp, list) else 1
        item = lambda i: ({"embedding": [0.1, 0.2], "index": i} if ARGS.embeddings_no_object
                          else {"object": "embedding", "embedding": [0.1, 0.2], "index": i})
        return self._json({"object": "list", "data": [item(i) for i in range(n)], "model": req.get("model"),
                           "usage": {"prompt_tokens": 5 * n, "total_tokens": 5 * n}})

    def images(self, req, stream):
        usage = {"input_tokens": 12, "output_tokens": 256, "total_tokens": 268,
                 "input_tokens_details": {"text_tokens": 12, "image_tokens": 0}}
        if not stream:
            return self._json({"created": 1700000000, "data": [{"b64_json": TINY_PNG_B64, "revised_prompt": "rp"}],
                               "size": "1024x1024", "quality": "low", "output_format": "png",
                               "background": "opaque", "usage": usage})
        self._sse_start()
        self._sse_event({"type": "image_generation.partial_image", "b64_json": TINY_PNG_B64,
                         "partial_image_index": 0, "created_at": 1700000000, "size": "1024x1024",
                         "quality": "low", "background": "opaque", "output_format": "png"},
                        event="image_generation.partial_image")
        self._sse_event({"type": "image_generation.completed", "b64_json": TINY_PNG_B64,
                         "created_at": 1700000000, "size": "1024x1024", "quality": "low",
                         "background": "opaque", "output_format": "png", "usage": usage},
                        event="image_generation.completed")
        self._sse_end()

    def resp_api(self, req, stream):
        usage = {"input_tokens": 10, "output_tokens": len(WORDS), "total_tokens": 10 + len(WORDS)}
        text = "".join(WORDS)
        full = {"id": "resp_1", "object": "response", "status": "completed", "model": req.get("model"),
                "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": text, "annotations": []}]}],
                "usage": usage}
        if not stream:
            return self._json(full)
        self._sse_start()
        self._sse_event({"type": "response.created", "response": {**full, "status": "in_progress", "output": []}},
                        event="response.created")
        for w in WORDS:
            self._sse_event({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
                             "content_index": 0, "delta": w}, event="response.output_text.delta")
        self._sse_event({"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0,
                         "content_index": 0, "text": text}, event="response.output_text.done")
        self._sse_event({"type": "response.completed", "response": full}, event="response.completed")
        self._sse_end()

    def messages(self, req, stream):
        text = "".join(WORDS)
        if not stream:
            return self._json({"id": "msg_1", "type": "message", "role": "assistant", "model": req.get("model"),
                               "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                               "usage": {"input_tokens": 10, "output_tokens": len(WORDS)}})
        self._sse_start()
        self._sse_event({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                                              "content": [], "model": req.get("model"),
                                                              "usage": {"input_tokens": 10, "output_tokens": 1}}},
                        event="message_start")
        self._sse_event({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                        event="content_block_start")
        self._sse_event({"type": "ping"}, event="ping")
        for w in WORDS:
            self._sse_event({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}},
                            event="content_block_delta")
        self._sse_event({"type": "content_block_stop", "index": 0}, event="content_block_stop")
        self._sse_event({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                         "usage": {"output_tokens": len(WORDS)}}, event="message_delta")
        self._sse_event({"type": "message_stop"}, event="message_stop")
        self._sse_end()


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=18800)
    p.add_argument("--log", required=True)
    p.add_argument("--content-delay", type=float, default=0.3)
    p.add_argument("--embeddings-no-object", action="store_true")
    p.add_argument("--empty", action="store_true")
    ARGS = p.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    srv.serve_forever()


if __name__ == "__main__":
    main()
