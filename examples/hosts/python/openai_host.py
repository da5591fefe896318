"""A short agent host on the official `openai` SDK (the Responses API)
and `contrib_runtime`.

    python openai_host.py WORKSPACE

Reads OPENAI_BASE_URL and OPENAI_API_KEY and nothing else.
"""

import json
from typing import Any, Dict, List, Tuple

import openai

import host

client = openai.OpenAI()


def send(body: Dict[str, Any], label: str) -> Tuple[str, List[host.Call]]:
    reply = client.responses.create(**body, extra_headers={"x-contrib-conversation": label})
    calls = [
        {"id": item.call_id, "name": item.name, "input": json.loads(item.arguments or "{}")}
        for item in reply.output
        if item.type == "function_call"
    ]
    return reply.output_text, calls


if __name__ == "__main__":
    host.run(send, wire="openai-responses", profile="openai", model="gpt-5.4")
