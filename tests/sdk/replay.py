"""Replays `contrib simulate --requests FILE` through the official SDKs to
the provider double, on the simulated clock, and compares the usage the
double reports with the simulator's accounting, request by request.

    python replay.py PROFILE FILE

PROFILE is the profile the file was simulated under: `anthropic` goes
through `anthropic.Anthropic().messages.create`, `openai` (automatic
caching) through `openai.OpenAI().chat.completions.create`,
`openai-explicit` through `openai.OpenAI().responses.create`. Each layout
in the file gets a fresh double. Exits 1 on the first layout with a
disagreement, after printing the first few with the rule the double
applied; prints one summary line per layout otherwise.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict

import anthropic
import openai

from double import Double

SHOWN = 5


def texts(record: dict):
    """Each block's text and its breakpoint's lifetime, if any."""
    marks = dict(record["marks"])
    for index, (digest, tokens) in enumerate(record["blocks"]):
        yield f"blk:{digest}:{tokens}", marks.get(index)


def send_anthropic(client, record, clock):
    content = []
    for text, ttl in texts(record):
        block = {"type": "text", "text": text}
        if ttl:
            block["cache_control"] = {"type": "ephemeral", "ttl": ttl}
        content.append(block)
    message = client.messages.create(
        model=record["model"],
        max_tokens=0 if record["prewarm"] else 16,
        messages=[{"role": "user", "content": content}],
        extra_headers=clock,
    )
    usage = message.usage
    written = {
        "5m": usage.cache_creation.ephemeral_5m_input_tokens,
        "1h": usage.cache_creation.ephemeral_1h_input_tokens,
    }
    total = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    return total, usage.cache_read_input_tokens, written


def send_chat(client, record, clock):
    content = [{"type": "text", "text": text} for text, _ in texts(record)]
    completion = client.chat.completions.create(
        model=record["model"],
        messages=[{"role": "user", "content": content}],
        prompt_cache_key="contrib-agent-replay",
        prompt_cache_retention="24h" if record.get("retention") == "24h" else "in_memory",
        max_completion_tokens=16,
        extra_headers=clock,
    )
    details = completion.usage.prompt_tokens_details
    return completion.usage.prompt_tokens, details.cached_tokens, {record.get("retention"): details.cache_write_tokens}


def send_responses(client, record, clock):
    content = []
    for text, ttl in texts(record):
        part = {"type": "input_text", "text": text}
        if ttl:
            part["prompt_cache_breakpoint"] = {"mode": "explicit", "ttl": ttl}
        content.append(part)
    options = {"mode": "explicit", "ttl": "30m"}
    extra = {}
    if record["prewarm"]:
        options["prewarm"] = True
    else:
        extra["max_output_tokens"] = 16
    response = client.responses.create(
        model=record["model"],
        input=[{"type": "message", "role": "user", "content": content}],
        prompt_cache_options=options,
        extra_headers=clock,
        **extra,
    )
    details = response.usage.input_tokens_details
    written = {
        "30m": details.cache_write_tokens_details.ttl_30m_tokens,
        "12h": details.cache_write_tokens_details.ttl_12h_tokens,
    }
    return response.usage.input_tokens, details.cached_tokens, written


def main() -> int:
    profile, path = sys.argv[1], sys.argv[2]
    layouts: dict[str, list[dict]] = defaultdict(list)
    with open(path) as lines:
        for line in lines:
            record = json.loads(line)
            layouts[record["layout"]].append(record)
    failed = False
    for layout, records in layouts.items():
        started = time.monotonic()
        disagreements = []
        with Double(profile) as double:
            if profile == "anthropic":
                client = anthropic.Anthropic(base_url=double.url, api_key="double", max_retries=0)
                send = send_anthropic
            else:
                client = openai.OpenAI(base_url=f"{double.url}/v1", api_key="double", max_retries=0)
                send = send_chat if profile == "openai" else send_responses
            for number, record in enumerate(records):
                clock = {"x-double-clock": str(record["at"])}
                try:
                    total, read, written = send(client, record, clock)
                except (anthropic.APIStatusError, openai.APIStatusError) as error:
                    disagreements.append((number, record, f"refused: {error.message}"))
                    continue
                expected = record["expected"]
                written = {name: tokens for name, tokens in written.items() if tokens}
                got = (total, read, written)
                want = (expected["total"], expected["read"], {n: t for n, t in expected["written"].items() if t})
                if got != want:
                    disagreements.append((number, record, f"double (total, read, written) {got}, simulator {want}"))
        elapsed = time.monotonic() - started
        if disagreements:
            failed = True
            print(f"{profile} {layout}: {len(disagreements)} of {len(records)} requests disagree")
            for number, record, what in disagreements[:SHOWN]:
                rules = rule_trail(profile, records[: number + 1])
                print(f"  request {number} at {record['at']} ({record['model']}, {len(record['blocks'])} blocks, breakpoints {record['marks']}): {what}")
                print(f"    the double's rules: {rules}")
        else:
            print(f"{profile} {layout}: the double and the simulator agree on all {len(records)} requests ({elapsed:.1f} s)")
    return 1 if failed else 0


def rule_trail(profile: str, records: list[dict]) -> str:
    """The rules the double applied to the last of `records`, replayed
    directly (no HTTP) from a fresh cache."""
    from double import Cache, anthropic as on_anthropic, chat as on_chat, responses as on_responses

    cache = Cache(profile)
    out = None
    for record in records:
        body = body_for(profile, record)
        handler = {"anthropic": on_anthropic, "openai": on_chat}.get(profile, on_responses)
        _, out = handler(cache, body, record["at"])
    return "; ".join(out.rules) if out else "none"


def body_for(profile: str, record: dict) -> dict:
    if profile == "anthropic":
        content = [
            {"type": "text", "text": text, **({"cache_control": {"type": "ephemeral", "ttl": ttl}} if ttl else {})}
            for text, ttl in texts(record)
        ]
        return {"model": record["model"], "max_tokens": 0 if record["prewarm"] else 16, "messages": [{"role": "user", "content": content}]}
    if profile == "openai":
        content = [{"type": "text", "text": text} for text, _ in texts(record)]
        return {"model": record["model"], "messages": [{"role": "user", "content": content}],
                "prompt_cache_retention": "24h" if record.get("retention") == "24h" else "in_memory"}
    content = [
        {"type": "input_text", "text": text, **({"prompt_cache_breakpoint": {"mode": "explicit", "ttl": ttl}} if ttl else {})}
        for text, ttl in texts(record)
    ]
    return {"model": record["model"], "input": [{"type": "message", "role": "user", "content": content}],
            "prompt_cache_options": {"mode": "explicit", "ttl": "30m", "prewarm": record["prewarm"]}}


if __name__ == "__main__":
    sys.exit(main())
