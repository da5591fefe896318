"""A local provider for the example hosts' CI run (examples/hosts/ci.sh),
on 127.0.0.1 only: answers like the Anthropic Messages API, the OpenAI
Responses API and Chat Completions, and records every request.

    python3 provider.py RECORDING URL_FILE

Writes its base URL to URL_FILE once it listens, and one JSON line per
request to RECORDING: `{"path", "conversation", "body"}` (`conversation`
is the `x-contrib-conversation` header a host may send, else null).

The first request of a conversation (one whose body holds no call this
provider made) is answered with one tool call, `search_code` (or the
first tool offered); every later one with text, via the answers of
tests/sdk/provider.py.
"""

import json
import pathlib
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "sdk"))
from provider import answer, send_json  # noqa: E402 (the SDK checks' text answers)

CALL_PREFIX = "local_call_"
lock = threading.Lock()
calls_made = [0]


def tool_named(body: dict) -> str:
    names = [tool.get("name") or tool.get("function", {}).get("name") for tool in body.get("tools", [])]
    return "search_code" if "search_code" in names else (names[0] if names else "search_code")


def with_a_call(path: str, body: dict) -> dict:
    with lock:
        calls_made[0] += 1
        call_id = f"{CALL_PREFIX}{calls_made[0]}"
    name, arguments = tool_named(body), {"query": "set_session_cookie"}
    reply = answer(path, body)
    if path.endswith("/messages"):
        reply["content"] = [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": call_id, "name": name, "input": arguments},
        ]
        reply["stop_reason"] = "tool_use"
    elif path.endswith("/responses"):
        reply["output"] = [
            {
                "type": "function_call",
                "id": "fc_" + call_id,
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        ]
    else:
        reply["choices"][0]["message"] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        }
        reply["choices"][0]["finish_reason"] = "tool_calls"
    return reply


def main() -> None:
    recording, url_file = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server API)
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.split("?", 1)[0]
            line = {"path": path, "conversation": self.headers.get("x-contrib-conversation"), "body": body}
            with lock, recording.open("a") as out:
                out.write(json.dumps(line) + "\n")
            if CALL_PREFIX in json.dumps(body):
                reply = answer(path, body)
            else:
                reply = with_a_call(path, body)
            send_json(self, reply)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    host, port = server.server_address[:2]
    url_file.write_text(f"http://{host}:{port}\n")
    server.serve_forever()


if __name__ == "__main__":
    main()
