"""An agent host on the official `anthropic` SDK and `contrib_runtime`.

    python anthropic_host.py WORKSPACE

Reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (the SDK's own
environment) and nothing else. examples/hosts/run.sh installs a workspace
and runs it.
"""

from typing import Any, Dict, List, Tuple

import anthropic

import host

client = anthropic.Anthropic()


def send(body: Dict[str, Any], label: str) -> Tuple[str, List[host.Call]]:
    # The body is the request as the runtime wrote it: system blocks with
    # their cache breakpoints, tools, messages, model, max_tokens.
    reply = client.messages.create(**body, extra_headers={"x-contrib-conversation": label})
    text = "".join(block.text for block in reply.content if block.type == "text")
    calls = [
        {"id": block.id, "name": block.name, "input": block.input}
        for block in reply.content
        if block.type == "tool_use"
    ]
    return text, calls


if __name__ == "__main__":
    host.run(send, wire="anthropic", profile="anthropic", model="claude-sonnet-4-5")
