"""A local stand-in for the providers' HTTP APIs, on 127.0.0.1 only.

It records each request's path and JSON body and answers with the
smallest response the official SDKs parse: a Messages API `message`, a
Responses API `response`, a Chat Completions `chat.completion`. It sets
`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL` and dummy keys for the clients
made while it runs, and restores them after.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def send_json(handler: BaseHTTPRequestHandler, reply: dict) -> None:
    """Answers a request with `reply` as JSON, as the providers do."""
    data = json.dumps(reply).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def answer(path: str, body: dict) -> dict:
    model = body.get("model", "unknown")
    if path.endswith("/messages"):
        return {
            "id": "msg_local",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 1,
                "output_tokens": 1,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
    if path.endswith("/responses"):
        return {
            "id": "resp_local",
            "object": "response",
            "created_at": 0,
            "model": model,
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_local",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 1,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 1,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 2,
            },
        }
    return {
        "id": "chatcmpl_local",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "ok"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class LocalProvider:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict]] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?", 1)[0]
                provider.requests.append((path, body))
                send_json(self, answer(path, body))

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.saved: dict[str, str | None] = {}

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def last(self) -> tuple[str, dict]:
        return self.requests[-1]

    def __enter__(self) -> "LocalProvider":
        self.thread.start()
        settings = {
            "ANTHROPIC_BASE_URL": self.url,
            "OPENAI_BASE_URL": self.url + "/v1",
            "ANTHROPIC_API_KEY": "local-test-key",
            "OPENAI_API_KEY": "local-test-key",
        }
        for key, value in settings.items():
            self.saved[key] = os.environ.get(key)
            os.environ[key] = value
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
