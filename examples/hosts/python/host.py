"""What both Python example hosts share: the host's tools, the gate
contributors' calls go through (the same tools), the two persons'
sessions, and the agent loop around one provider call.

A host gives `run(send, wire, profile, model)` the function that sends a
body with its provider's SDK and returns what the model said.
"""

import datetime
import json
import pathlib
import sys
import tempfile
from typing import Any, Callable, Dict, List, Tuple

import contrib_runtime

EXAMPLES = pathlib.Path(__file__).resolve().parents[2]
TOOLS: List[Dict[str, Any]] = json.loads((EXAMPLES / "runtime" / "tools.json").read_text())

Call = Dict[str, Any]
Send = Callable[[Dict[str, Any], str], Tuple[str, List[Call]]]
"""Sends a body (labelled with the conversation's name) and returns the
model's words and tool calls (`{"id", "name", "input"}`)."""


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def session(model: str, person_id: str, person_name: str) -> str:
    """The examples' session (examples/runtime/session.toml) for a person,
    starting now, on `model`."""
    text = (EXAMPLES / "runtime" / "session.toml").read_text()
    started = now().isoformat(timespec="seconds")
    text = text.replace('started_at = "2026-03-02T09:00:00+00:00"', f'started_at = "{started}"')
    text = text.replace('name = "claude-sonnet-4-5"', f'name = "{model}"')
    text = text.replace('id = "sam-okafor"', f'id = "{person_id}"')
    text = text.replace('name = "Sam Okafor"', f'name = "{person_name}"')
    return text.replace('session = "2026-03-02-sam-1"', f'session = "{person_id}-1"')


def run_tool(name: str, arguments: Dict[str, Any]) -> Tuple[str, bool]:
    """The host's tools, canned: what each returns, and whether it failed."""
    if name == "search_code":
        return f"src/auth/login.rs:42: set_session_cookie(&user)  # {arguments.get('query', '')}", False
    if name == "read_memory":
        return "The release is on Thursday.", False
    if name == "fetch_url":
        return "Handbook: reviews within a day.", False
    if name == "get_current_time":
        return now().isoformat(timespec="seconds"), False
    if name == "read_object":
        return "fn login(user: &User) { set_session_cookie(user) }", False
    return f"there is no tool `{name}`", True


def gate(request: Dict[str, Any]) -> Any:
    """Contributors' calls, once the workspace's policy allows them, run
    through the same tools as the model's."""
    output, failed = run_tool(request["tool"], request["arguments"])
    if failed:
        return contrib_runtime.refused(output)
    return contrib_runtime.ran(output)


def take_turn(conversation: contrib_runtime.Conversation, wire: str, send: Send, label: str, prompt: str) -> str:
    """One turn: requests until the model stops calling tools."""
    conversation.turn(now(), prompt)
    for _ in range(8):
        conversation.request(now())
        body = conversation.body(wire)
        text, calls = send(body, label)
        conversation.model_said(text, calls)
        if not calls:
            print(f"[{label}] {prompt!r} -> {text!r}")
            return text
        results = []
        for call in calls:
            output, failed = run_tool(call["name"], call["input"])
            results.append({"id": call["id"], "output": output, "is_error": failed})
        conversation.tool_results(results)
    raise SystemExit(f"[{label}] the model kept calling tools")


def run(send: Send, wire: str, profile: str, model: str) -> None:
    """Two persons with one agent, two turns each; then a restart, and
    Sam's conversation resumed from its session log."""
    folder = pathlib.Path(sys.argv[1])
    state = pathlib.Path(tempfile.mkdtemp())
    sam, priya = session(model, "sam-okafor", "Sam Okafor"), session(model, "priya-n", "Priya N")

    workspace = contrib_runtime.Workspace.open(folder)
    first = workspace.start(sam, gate=gate, profile=profile, tools=TOOLS, log_path=state / "sam.log")
    other = workspace.start(priya, gate=gate, profile=profile, tools=TOOLS)
    take_turn(first, wire, send, "sam", "Can you review the login fix on branch fix-login?")
    take_turn(other, wire, send, "priya", "What does the review checklist say?")
    take_turn(first, wire, send, "sam", "Does it need a test?")
    take_turn(other, wire, send, "priya", "And about errors?")

    # What a host stores, then a restart: nothing kept in memory.
    (state / "sam.said.json").write_text(json.dumps(first.said))
    del first, other, workspace

    workspace = contrib_runtime.Workspace.open(folder)
    resumed = workspace.resume(
        sam,
        (state / "sam.log").read_text(),
        json.loads((state / "sam.said.json").read_text()),
        gate=gate,
        profile=profile,
        tools=TOOLS,
        log_path=state / "sam.log",
    )
    take_turn(resumed, wire, send, "sam-resumed", "I added the test. Anything else?")
    if resumed.log_error is not None:
        raise SystemExit(f"the session log was not written: {resumed.log_error}")
