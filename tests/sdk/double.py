"""A provider double: the providers' prompt caches, on 127.0.0.1 only.

It answers the Anthropic Messages API, OpenAI Chat Completions and the
OpenAI Responses API with the usage fields the real APIs return, computed
by applying the cache rules of contrib's profiles (crates/contrib-runtime/src/profiles.toml,
read for the numbers: minimums, lifetimes, breakpoint limits, lookback,
steps) with its own implementation of them:

- explicit breakpoints (Anthropic's `cache_control`; OpenAI's
  `prompt_cache_breakpoint` with `prompt_cache_options.mode = "explicit"`):
  a breakpoint on a prefix shorter than the model's minimum caches
  nothing; a request reads the longest live entry found at a block
  boundary within the lookback before one of its breakpoints (Anthropic:
  20 blocks; OpenAI: no limit); it writes an entry at each breakpoint past
  what it read, for the breakpoint's lifetime; more breakpoints than the
  limit is a 400 on Anthropic, and only the latest four are written on
  OpenAI;
- automatic caching (OpenAI before GPT-5.6): the longest live prefix ending
  at a block boundary at or past the minimum, counted in whole steps; every
  prefix at or past the minimum written for the retention the request asks
  for (`prompt_cache_retention`: `24h`, otherwise in-memory);
- a read keeps an entry alive for its lifetime from the read; entries die
  when their lifetime has passed without a use.

The clock is the request's `x-double-clock` header (Unix seconds), so a
simulated day replays in seconds. Tokens: each content block's text is
`blk:<hash>:<tokens>`, and the double counts the tokens it says; the
simulator and the double therefore agree on counts by construction and
differ only in the rules. Every answer carries, in the `x-double-rules`
header, the rules that decided it, so a disagreement names its rule.
"""

from __future__ import annotations

import json
import threading
import tomllib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

PROFILES = Path(__file__).resolve().parents[2] / "crates" / "contrib-runtime" / "src" / "profiles.toml"


class Refused(Exception):
    """A request the provider would refuse with a 400."""


@dataclass
class Entry:
    expires: int
    seconds: int


@dataclass
class Outcome:
    total: int = 0
    read: int = 0
    written: dict[str, int] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)

    @property
    def uncached(self) -> int:
        return self.total - self.read - sum(self.written.values())


def blocks_of(texts: list[tuple[str, str | None]]) -> list[tuple[str, int, str | None]]:
    """`(hash, tokens, breakpoint lifetime)` of each `blk:` text."""
    blocks = []
    for text, ttl in texts:
        tag, digest, tokens = text.split(":")
        if tag != "blk":
            raise Refused(f"not a replay block: {text[:40]!r}")
        blocks.append((digest, int(tokens), ttl))
    return blocks


class Cache:
    """One provider's cache under one profile of profiles.toml."""

    def __init__(self, profile_name: str):
        profiles = tomllib.loads(PROFILES.read_text())["profiles"]
        self.profile = profiles[profile_name]
        self.lifetimes = {life["name"]: life["seconds"] for life in self.profile["lifetimes"]}
        self.entries: dict[str, Entry] = {}
        self.lock = threading.Lock()

    def minimum(self, model: str) -> int:
        entry = self.profile.get("models", {}).get(model)
        return entry["minimum_prefix_tokens"] if entry else self.profile["minimum_prefix_tokens"]

    def live(self, digest: str, now: int) -> Entry | None:
        entry = self.entries.get(digest)
        return entry if entry is not None and entry.expires >= now else None

    def put(self, digest: str, now: int, seconds: int) -> None:
        entry = self.live(digest, now)
        if entry is None:
            self.entries[digest] = Entry(now + seconds, seconds)
        elif entry.expires < now + seconds:
            entry.expires, entry.seconds = now + seconds, seconds

    def explicit(self, model, blocks, now, lookback, limit, over_limit) -> Outcome:
        out = Outcome(total=sum(tokens for _, tokens, _ in blocks))
        through, running = [], 0
        for _, tokens, _ in blocks:
            running += tokens
            through.append(running)
        marks = [(index, ttl) for index, (_, _, ttl) in enumerate(blocks) if ttl]
        if len(marks) > limit:
            if over_limit == "refuse":
                raise Refused(f"{len(marks)} breakpoints; at most {limit}")
            out.rules.append(f"breakpoint limit: only the latest {limit} of {len(marks)} written")
            marks = marks[-limit:]
        minimum = self.minimum(model)
        short = [index for index, _ in marks if through[index] < minimum]
        if short:
            out.rules.append(f"minimum prefix: {len(short)} breakpoint(s) under {minimum} tokens cache nothing")
        marks = [(index, ttl) for index, ttl in marks if through[index] >= minimum]
        if not marks:
            return out
        best = -1
        for index, _ in marks:
            floor = 0 if lookback == 0 else max(0, index - lookback + 1)
            for position in range(index, floor - 1, -1):
                if position > best and self.live(blocks[position][0], now):
                    best = position
                    break
        if best >= 0:
            entry = self.live(blocks[best][0], now)
            entry.expires = now + entry.seconds
            out.read = through[best]
            out.rules.append(f"prefix match: read {out.read} tokens through block {best}")
        else:
            out.rules.append("prefix match: no live entry within the lookback")
        done = out.read
        for index, ttl in marks:
            if through[index] > done:
                out.written[ttl] = out.written.get(ttl, 0) + through[index] - done
                done = through[index]
            self.put(blocks[index][0], now, self.lifetimes[ttl])
        return out

    def automatic(self, model, blocks, now, retention) -> Outcome:
        out = Outcome(total=sum(tokens for _, tokens, _ in blocks))
        seconds = self.lifetimes[retention]
        minimum, step = self.minimum(model), self.profile.get("increment_tokens", 1) or 1
        through, running = [], 0
        for _, tokens, _ in blocks:
            running += tokens
            through.append(running)
        for index in range(len(blocks) - 1, -1, -1):
            if through[index] < minimum:
                break
            entry = self.live(blocks[index][0], now)
            if entry:
                entry.expires = now + entry.seconds
                out.read = through[index] // step * step
                out.rules.append(f"prefix match: block {index}, {out.read} tokens in steps of {step}")
                break
        if out.total < minimum:
            out.rules.append(f"minimum prefix: {out.total} tokens under {minimum}, nothing cached")
            return out
        if out.total > out.read:
            out.written[retention] = out.total - out.read
        for index, (digest, _, _) in enumerate(blocks):
            if through[index] >= minimum:
                self.put(digest, now, seconds)
        out.rules.append(f"retention: {retention}")
        return out


def anthropic(cache: Cache, body: dict, now: int) -> tuple[dict, Outcome]:
    texts = []
    for block in body.get("system", []) or []:
        texts.append((block["text"], (block.get("cache_control") or {}).get("ttl", "5m") if block.get("cache_control") else None))
    for message in body["messages"]:
        for block in message["content"]:
            control = block.get("cache_control")
            texts.append((block["text"], control.get("ttl", "5m") if control else None))
    profile = cache.profile
    out = cache.explicit(body["model"], blocks_of(texts), now, profile["lookback_blocks"], profile["max_breakpoints"], "refuse")
    generated = body["max_tokens"] > 0
    usage = {
        "input_tokens": out.uncached,
        "output_tokens": 1 if generated else 0,
        "cache_creation_input_tokens": sum(out.written.values()),
        "cache_read_input_tokens": out.read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": out.written.get("5m", 0),
            "ephemeral_1h_input_tokens": out.written.get("1h", 0),
        },
    }
    answer = {
        "id": "msg_double", "type": "message", "role": "assistant", "model": body["model"],
        "content": [{"type": "text", "text": "ok"}] if generated else [],
        "stop_reason": "end_turn" if generated else "max_tokens", "stop_sequence": None,
        "usage": usage,
    }
    return answer, out


def chat(cache: Cache, body: dict, now: int) -> tuple[dict, Outcome]:
    texts = [(part["text"], None) for message in body["messages"] for part in message["content"]]
    retention = "24h" if body.get("prompt_cache_retention") == "24h" else "in-memory"
    out = cache.automatic(body["model"], blocks_of(texts), now, retention)
    answer = {
        "id": "chatcmpl-double", "object": "chat.completion", "created": now, "model": body["model"],
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        "usage": {
            "prompt_tokens": out.total, "completion_tokens": 1, "total_tokens": out.total + 1,
            "prompt_tokens_details": {"cached_tokens": out.read, "cache_write_tokens": sum(out.written.values())},
        },
    }
    return answer, out


def responses(cache: Cache, body: dict, now: int) -> tuple[dict, Outcome]:
    options = body.get("prompt_cache_options") or {}
    texts = []
    for item in body["input"]:
        for part in item["content"]:
            mark = part.get("prompt_cache_breakpoint")
            texts.append((part["text"], (mark.get("ttl") or options.get("ttl", "30m")) if mark else None))
    if options.get("mode") != "explicit":
        raise Refused("the double replays explicit mode only on the Responses API")
    profile = cache.profile
    out = cache.explicit(body["model"], blocks_of(texts), now, profile["lookback_blocks"], profile["max_breakpoints"], "latest")
    generated = not options.get("prewarm", False)
    written = sum(out.written.values())
    answer = {
        "id": "resp_double", "object": "response", "created_at": now, "model": body["model"], "status": "completed",
        "output": [{"type": "message", "id": "msg_double", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}]}] if generated else [],
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {
            "input_tokens": out.total,
            "input_tokens_details": {
                "cached_tokens": out.read, "cache_write_tokens": written,
                "cache_write_tokens_details": {"ttl_30m_tokens": out.written.get("30m", 0), "ttl_12h_tokens": out.written.get("12h", 0)},
            },
            "output_tokens": 1 if generated else 0, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": out.total + (1 if generated else 0),
        },
    }
    return answer, out


class Double:
    """The double on 127.0.0.1, one cache for `profile`, while in a `with`."""

    def __init__(self, profile: str):
        self.cache = Cache(profile)
        double = self

        class Handler(BaseHTTPRequestHandler):
            # Keep-alive: a replay sends thousands of requests in a row.
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length))
                now = int(self.headers.get("x-double-clock", "0"))
                route = {"/v1/messages": anthropic, "/v1/chat/completions": chat, "/v1/responses": responses}
                handler = next((f for path, f in route.items() if self.path.endswith(path)), None)
                try:
                    if handler is None:
                        raise Refused(f"no such path {self.path}")
                    with double.cache.lock:
                        answer, out = handler(double.cache, body, now)
                    status, data = 200, json.dumps(answer).encode()
                    rules = "; ".join(out.rules)
                except (Refused, KeyError, ValueError) as error:
                    status = 400
                    data = json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": str(error)}}).encode()
                    rules = f"refused: {error}"
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.send_header("x-double-rules", rules)
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "Double":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
