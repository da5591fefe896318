"""What arrived at the local provider (examples/hosts/provider.py),
checked: the rules a host on the runtime keeps without writing them.

    python3 check_recording.py RECORDING [LABEL...]

Each LABEL given must have arrived (ci.sh names every host's resumed
conversation, so a host that stops labelling its requests is noticed).

- the labelled Anthropic requests (a host labels its conversations with
  the `x-contrib-conversation` header, which no provider reads:
  `[HOST:]PERSON[-resumed]`) of one host carry the same tools and system
  blocks through the agent breakpoint, whoever the person, and at least
  two persons' conversations arrived;
- at most four cache breakpoints per request;
- every tool call in a request is answered in it, and every call the
  provider made is answered by a later request;
- a resumed conversation (a `*-resumed` label) keeps what the conversation
  before the restart sent and tells nothing twice: every text of the
  last request before the restart is still there, once, and no text
  appears twice. Prefaces (`<retrieved_content …>`) are the exception:
  they are retrieved again every turn and never stored (docs/runtime.md),
  so the turn after the restart has its own.
"""

import json
import sys
from collections import defaultdict
from typing import Any, Dict, List, Set


def texts(body: Dict[str, Any]) -> List[str]:
    """Every text the conversation tells the model, in order, on any wire."""
    found: List[str] = []
    for message in body.get("messages", body.get("input", [])):
        if message.get("role") in ("assistant", "system", "developer"):
            continue
        content = message.get("content", message.get("output"))
        if isinstance(content, str):
            found.append(content)
        elif isinstance(content, list):
            for block in content:
                if block.get("type") in ("text", "input_text") and block.get("text"):
                    found.append(block["text"])
    return found


def agent_prefix(body: Dict[str, Any]) -> str:
    system = body.get("system", [])
    marked = [index for index, block in enumerate(system) if "cache_control" in block]
    end = marked[0] + 1 if marked else 0
    return json.dumps([body.get("tools"), system[:end]], sort_keys=True)


def calls_and_answers(body: Dict[str, Any]) -> "tuple[List[str], Set[str]]":
    calls: List[str] = []
    answers: Set[str] = set()
    for message in body.get("messages", body.get("input", [])):
        if message.get("type") == "function_call":
            calls.append(message["call_id"])
        if message.get("type") == "function_call_output":
            answers.add(message["call_id"])
        for call in message.get("tool_calls") or []:
            calls.append(call["id"])
        if message.get("role") == "tool":
            answers.add(message["tool_call_id"])
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_use":
                    calls.append(block["id"])
                if block.get("type") == "tool_result":
                    answers.add(block["tool_use_id"])
    return calls, answers


def main() -> int:
    lines = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    failures: List[str] = []
    if not lines:
        failures.append("no request arrived")
    prefixes: Dict[str, Set[str]] = defaultdict(set)
    persons: Set[str] = set()
    by_label: Dict[str, List[Dict[str, Any]]] = defaultdict(list)
    made: Set[str] = set()
    answered: Set[str] = set()
    for number, line in enumerate(lines, 1):
        body, path = line["body"], line["path"]
        where = f"request {number} ({path}, {line.get('conversation')})"
        if line.get("conversation"):
            by_label[f"{path} {line['conversation']}"].append(body)
        text = json.dumps(body)
        breakpoints = text.count('"cache_control"') + text.count('"prompt_cache_breakpoint"')
        if breakpoints > 4:
            failures.append(f"{where}: {breakpoints} cache breakpoints, at most four")
        calls, answers = calls_and_answers(body)
        missing = [call for call in calls if call not in answers]
        if missing:
            failures.append(f"{where}: tool calls not answered: {missing}")
        answered |= answers
        made |= {call for call in calls if call.startswith("local_call_")}
        if path.endswith("/messages") and line.get("conversation"):
            host = line["conversation"].rpartition(":")[0]
            prefixes[host].add(agent_prefix(body))
            persons.add(line["conversation"].removesuffix("-resumed"))
    for host, variants in sorted(prefixes.items()):
        if len(variants) > 1:
            failures.append(
                f"{host or 'the default'} host's agent requests differ before the agent breakpoint ({len(variants)} variants)"
            )
    if len(persons) < 2:
        failures.append("fewer than two persons' conversations arrived on the Anthropic wire")
    if made - answered:
        failures.append(f"calls the provider made were never answered: {sorted(made - answered)}")
    arrived = {line.get("conversation") for line in lines}
    for expected in sys.argv[2:]:
        if expected not in arrived:
            failures.append(f"no request labelled `{expected}` arrived")
    resumed = [label for label in by_label if label.endswith("-resumed")]
    if not resumed:
        failures.append("no resumed conversation arrived (a request labelled `*-resumed`)")
    for label in resumed:
        before = by_label.get(label[: -len("-resumed")], [])
        after = by_label[label][0]
        if not before:
            failures.append(f"{label}: no requests from before the restart")
            continue
        told = texts(after)
        repeated = sorted({text for text in told if told.count(text) > 1})
        if repeated:
            failures.append(f"{label}: told twice after resuming: {repeated}")
        lost = [
            text
            for text in texts(before[-1])
            if text not in told and not text.startswith("<retrieved_content ")
        ]
        if lost:
            failures.append(f"{label}: what was said before the restart is missing: {lost}")
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    if not failures:
        print(f"{len(lines)} requests checked: {', '.join(sorted(by_label))}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
