"""Request bodies from `contrib compose --wire`, checked by the providers'
official Python SDKs.

For each JSON line `{"turn", "request", "body"}` of each wire's file:

1. the body is validated against the SDK's own request type
   (`anthropic.types.MessageCreateParamsNonStreaming`,
   `openai.types.responses.ResponseCreateParamsNonStreaming`,
   `openai.types.chat.CompletionCreateParamsNonStreaming`) with pydantic,
   and what validation keeps must equal the body: no key the type does
   not declare, at any level, and no value coerced;
2. the body is sent through the official client
   (`client.messages.create(**body)`, `client.responses.create(**body)`,
   `client.chat.completions.create(**body)`) to a local server on
   127.0.0.1 that answers like the provider, found through
   `ANTHROPIC_BASE_URL` and `OPENAI_BASE_URL`; what arrives must equal the
   body, and the client must parse the answer.

Usage: python check_bodies.py WIRE=FILE.jsonl...
Exits non-zero with the first difference; prints one line per wire.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pydantic

from provider import LocalProvider


def request_type(wire: str) -> Any:
    if wire == "anthropic":
        from anthropic.types import message_create_params

        return message_create_params.MessageCreateParamsNonStreaming
    if wire == "openai-responses":
        from openai.types.responses import response_create_params

        return response_create_params.ResponseCreateParamsNonStreaming
    if wire == "openai-chat":
        from openai.types.chat import completion_create_params

        return completion_create_params.CompletionCreateParamsNonStreaming
    raise SystemExit(f"unknown wire {wire!r}")


def forced(value: Any) -> Any:
    """Pydantic validates `Iterable[...]` fields lazily: walk the result so
    every item is validated now."""
    if isinstance(value, dict):
        return {key: forced(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [forced(item) for item in value]
    if hasattr(value, "__next__"):
        return [forced(item) for item in value]
    return value


def validate(wire: str, body: dict, where: str) -> None:
    """The SDK's request type takes the body as it is: validation passes,
    and what it keeps equals the body, so no key was unknown (pydantic
    drops keys a TypedDict does not declare) and no value was coerced."""
    adapter = pydantic.TypeAdapter(request_type(wire))
    try:
        kept = forced(adapter.validate_python(body))
    except pydantic.ValidationError as error:
        raise SystemExit(f"{where}: the SDK's request type refuses the body:\n{error}")
    if kept != body:
        raise SystemExit(
            f"{where}: the SDK's request type does not declare or changes part of the body:\n"
            f"body: {json.dumps(body, sort_keys=True)[:3000]}\n"
            f"kept: {json.dumps(kept, sort_keys=True, default=str)[:3000]}"
        )


def send(wire: str, body: dict, provider: LocalProvider) -> None:
    import anthropic
    import openai

    if wire == "anthropic":
        client = anthropic.Anthropic(max_retries=0)
        reply = client.messages.create(**body)
        assert reply.type == "message", reply
    elif wire == "openai-responses":
        client = openai.OpenAI(max_retries=0)
        reply = client.responses.create(**body)
        assert reply.object == "response", reply
    else:
        client = openai.OpenAI(max_retries=0)
        reply = client.chat.completions.create(**body)
        assert reply.object == "chat.completion", reply


def main(arguments: list[str]) -> int:
    with LocalProvider() as provider:
        for argument in arguments:
            wire, _, path = argument.partition("=")
            count = 0
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    if not line.strip():
                        continue
                    sent = json.loads(line)
                    where = f"{path}, turn {sent['turn']} request {sent['request']}"
                    body = sent["body"]
                    validate(wire, body, where)
                    send(wire, body, provider)
                    path_seen, arrived = provider.last()
                    expected_path = {
                        "anthropic": "/v1/messages",
                        "openai-responses": "/v1/responses",
                        "openai-chat": "/v1/chat/completions",
                    }[wire]
                    if path_seen != expected_path:
                        raise SystemExit(f"{where}: sent to {path_seen}, not {expected_path}")
                    if arrived != body:
                        raise SystemExit(
                            f"{where}: what arrived differs from what contrib produced:\n"
                            f"sent:    {json.dumps(body, sort_keys=True)[:2000]}\n"
                            f"arrived: {json.dumps(arrived, sort_keys=True)[:2000]}"
                        )
                    count += 1
            if count == 0:
                raise SystemExit(f"{path}: no request bodies")
            print(f"python sdk: {wire}: {count} bodies valid, sent and received unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
